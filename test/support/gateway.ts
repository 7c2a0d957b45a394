/**
 * Starts the real gateway on a free 127.0.0.1 port for a test, over a given store (the primary source) and any more
 * stores as further sources, and sends GraphQL like a client.
 */
import type { Server } from 'node:http';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/gateway/config.js';
import { createGateway, listen } from '../../src/gateway/create-gateway.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import type { Source } from '../../src/sources/source.js';
import { Sources } from '../../src/sources/sources.js';
import type { Store } from '../../src/store/store.js';

export interface GraphQLResponse {
  readonly status: number;
  readonly headers: Headers;
  /** `data` and `errors`: what tests compare exactly. */
  readonly body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
  };
  /** The response's `extensions` (the request's statistics), kept apart from the body. */
  readonly extensions: Record<string, unknown> | undefined;
}

export interface TestGateway {
  readonly url: string;
  /** The gateway itself: its shared reads (the sources requests use), live queries, yoga. */
  readonly gateway: ReturnType<typeof createGateway>;
  /** The listening HTTP server (tests watch its sockets). */
  readonly server: Server;
  graphql(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphQLResponse>;
  /** Posts any GraphQL-over-HTTP payload (e.g. a persisted operation's hash), as plugins and CI clients do. */
  post(payload: Record<string, unknown>, headers?: Record<string, string>): Promise<GraphQLResponse>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  /** Where the gateway's JSON log lines go (silent when absent). */
  readonly logLines?: string[];
  /** More sources, by name, each with the KairosDB layout over its store (as SOURCES_FILE would configure them). */
  readonly sources?: Readonly<Record<string, Store>>;
  /** Sources of other layouts, after those (a heroic source over a test keyspace). */
  readonly layouts?: readonly Source[];
}

/**
 * The results cache's settings come from the test run's environment, so every suite can run with the cache (the
 * default) and without it: `CACHE_MAX_BYTES=0 npx vitest run ...`. A test's own `env` wins.
 */
const CACHE_SETTINGS = ['CACHE_MAX_BYTES', 'CACHE_FRESHNESS_MS', 'CACHE_TTL_MS'];

export async function startGateway(
  store: Store,
  env: Record<string, string> = {},
  options: TestGatewayOptions = {},
): Promise<TestGateway> {
  const fromRun = Object.fromEntries(
    CACHE_SETTINGS.flatMap((name) => (process.env[name] !== undefined ? [[name, process.env[name]]] : [])),
  );
  const config: Config = loadConfig({ SEED_DEMO: 'false', ...fromRun, ...env });
  const lines = options.logLines;
  const log = lines
    ? pino({ level: 'info' }, { write: (line: string) => void lines.push(line) })
    : pino({ level: 'silent' });
  const others = [
    ...Object.entries(options.sources ?? {}).map(([name, other]) => new KairosdbSource(name, other)),
    ...(options.layouts ?? []),
  ];
  const gateway = createGateway({
    sources: new Sources(new KairosdbSource(config.primarySourceName, store), others),
    config,
    log,
  });
  const server = await listen(gateway.handle, '127.0.0.1', 0, {
    requestTimeoutMs: config.queryTimeoutMs,
    webSockets: gateway.webSockets,
  });
  // The collectors' TCP ports, when the test's env sets them (TELNET_PORT, GRAPHITE_PORT).
  await gateway.tcpIngest.listen();
  const post: TestGateway['post'] = async (payload, headers = {}) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(payload),
    });
    const { extensions, ...body } = (await response.json()) as GraphQLResponse['body'] & {
      extensions?: Record<string, unknown>;
    };
    return { status: response.status, headers: response.headers, body, extensions };
  };
  return {
    url: server.url,
    gateway,
    server: server.server,
    graphql: (query, variables, headers = {}) => post({ query, ...(variables ? { variables } : {}) }, headers),
    post,
    close: async () => {
      await gateway.tcpIngest.close();
      await server.close();
    },
  };
}
