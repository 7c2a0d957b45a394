// Vitest globalSetup of the `integration` project: one real Cassandra for the whole run, handed to tests through
// inject('cassandra') and env KAIROGRAPH_TEST_CASSANDRA, stopped in teardown whatever the tests did.
import type { TestProject } from 'vitest/node';
import { startCassandra } from './cassandra-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    cassandra: { contactPoint: string; port: number; localDataCenter: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startCassandra();
  const how = server.pid === 0 ? 'reusing KAIROGRAPH_CASSANDRA' : `pid ${server.pid}, CQL-ready in ${server.bootMs} ms`;
  console.log(`[integration] Cassandra on ${server.contactPoint} (${how})`);
  project.provide('cassandra', { contactPoint: server.contactPoint, port: server.port, localDataCenter: server.localDataCenter });
  // Workers start after globalSetup and inherit the env, so code that reads env (the gateway's config) finds the node too.
  process.env.KAIROGRAPH_TEST_CASSANDRA = server.contactPoint;
  return async () => {
    await server.stop();
  };
}
