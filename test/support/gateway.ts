/**
 * Starts the real gateway on a free 127.0.0.1 port for a test, over a given store, and sends GraphQL like a client.
 */
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { createGateway, listen } from '../../src/server/create-gateway.js';
import type { Store } from '../../src/store/store.js';

export interface GraphQLResponse {
  readonly status: number;
  readonly body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
    extensions?: Record<string, unknown>;
  };
}

export interface TestGateway {
  readonly url: string;
  graphql(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse>;
  close(): Promise<void>;
}

export async function startGateway(store: Store, env: Record<string, string> = {}): Promise<TestGateway> {
  const config: Config = loadConfig({ SEED_DEMO: 'false', ...env });
  const gateway = createGateway({ store, config, log: pino({ level: 'silent' }) });
  const server = await listen(gateway.handle, '127.0.0.1', 0);
  return {
    url: server.url,
    async graphql(query, variables) {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
      });
      return { status: response.status, body: (await response.json()) as GraphQLResponse['body'] };
    },
    close: () => server.close(),
  };
}
