// Vitest globalSetup of the `kairosdb` project, listed after cassandra-global-setup.ts: one real KairosDB 1.3 on the
// run's Cassandra for the whole run, handed to tests through inject('kairosdb'), stopped in teardown.
import cassandra from 'cassandra-driver';
import type { TestProject } from 'vitest/node';
import { startKairosDB } from './kairosdb-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kairosdb: { url: string; keyspace: string; version: string; telnetPort: number };
  }
}

/** The keyspace of a KairosDB the run boots; a reused one says its own (KAIROGRAPH_KAIROSDB_KEYSPACE). */
const KEYSPACE = 'kg_kairosdb';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const node = process.env.KAIROGRAPH_TEST_CASSANDRA;
  if (!node)
    throw new Error("kairosdb-global-setup.ts needs the run's Cassandra: list cassandra-global-setup.ts before it");
  const reusing = (process.env.KAIROGRAPH_KAIROSDB ?? '').trim() !== '';
  // A KairosDB we boot starts on an empty keyspace, so a reused Cassandra does not collect every run's points. Never
  // emptied while one runs: KairosDB caches the row keys it has indexed and would not write them again.
  if (!reusing) await dropKeyspace(node, KEYSPACE);
  const server = await startKairosDB({ cassandra: node, keyspace: KEYSPACE, telnet: true });
  const how = server.pid === 0 ? 'reusing KAIROGRAPH_KAIROSDB' : `pid ${server.pid}, REST-ready in ${server.bootMs} ms`;
  console.log(`[${project.name}] KairosDB ${server.version} on ${server.url}, keyspace ${server.keyspace} (${how})`);
  project.provide('kairosdb', {
    url: server.url,
    keyspace: server.keyspace,
    version: server.version,
    telnetPort: server.telnetPort,
  });
  return async () => {
    await server.stop();
  };
}

async function dropKeyspace(contactPoint: string, keyspace: string): Promise<void> {
  const client = new cassandra.Client({
    contactPoints: [contactPoint],
    policies: { loadBalancing: new cassandra.policies.loadBalancing.RoundRobinPolicy() },
    protocolOptions: { maxVersion: 4 },
    socketOptions: { readTimeout: 60_000 },
  });
  try {
    await client.connect();
    await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
  } finally {
    await client.shutdown();
  }
}
