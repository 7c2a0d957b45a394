// Vitest globalSetup of the `integration` and `kairosdb` projects: one real Cassandra for the whole run, shared by every
// project that lists this file, handed to tests through inject('cassandra') and env KAIROGRAPH_TEST_CASSANDRA, and
// stopped in the teardown of the last project that used it, whatever the tests did.
import type { TestProject } from 'vitest/node';
import { startCassandra, type CassandraServer } from './cassandra-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    cassandra: { contactPoint: string; port: number; localDataCenter: string };
  }
}

interface SharedNode {
  readonly server: Promise<CassandraServer>;
  users: number;
}

// Vitest loads a globalSetup file once per project (a module instance each), all in its main process, one project after
// the other: the node is shared through the process, so a run of both projects boots one node, not two.
const SHARED = Symbol.for('kairograph.test-cassandra');
const holder = globalThis as typeof globalThis & { [SHARED]?: SharedNode };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = (holder[SHARED] ??= { server: startCassandra(), users: 0 });
  shared.users++;
  let server: CassandraServer;
  try {
    server = await shared.server;
  } catch (err) {
    if (--shared.users === 0) delete holder[SHARED];
    throw err;
  }
  if (shared.users === 1) {
    const how =
      server.pid === 0 ? 'reusing KAIROGRAPH_CASSANDRA' : `pid ${server.pid}, CQL-ready in ${server.bootMs} ms`;
    console.log(`[${project.name}] Cassandra on ${server.contactPoint} (${how})`);
  }
  project.provide('cassandra', {
    contactPoint: server.contactPoint,
    port: server.port,
    localDataCenter: server.localDataCenter,
  });
  // Workers start after globalSetup and inherit the env, so code that reads env (the gateway's config) finds the node too.
  process.env.KAIROGRAPH_TEST_CASSANDRA = server.contactPoint;
  return async () => {
    if (--shared.users > 0) return;
    delete holder[SHARED];
    await server.stop();
  };
}
