/**
 * KairosDB and Kairograph side by side on one keyspace of the test Cassandra, for the suites of the `kairosdb` project:
 * the same REST request sent to both with both answers back, metric names unique to a run, and polling with a deadline
 * for what KairosDB's asynchronous ingest has not stored yet.
 */
import { inject } from 'vitest';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.js';
import { storeOptions } from '../integration/cassandra-stores.js';
import { callRest, startRestGateway, type RestCall, type RestGateway, type RestResponse } from '../rest/rest-client.js';

export type ServerName = 'kairosdb' | 'kairograph';

/** One server that speaks KairosDB's REST API. */
export interface RestServer {
  readonly name: ServerName;
  /** `http://127.0.0.1:<port>`; paths start with `/api/v1`. */
  readonly url: string;
  call(method: string, path: string, options?: RestCall): Promise<RestResponse>;
}

export interface BothAnswers {
  readonly kairosdb: RestResponse;
  readonly kairograph: RestResponse;
}

export interface Pair {
  readonly kairosdb: RestServer;
  readonly kairograph: RestServer;
  /** KairosDB's keyspace, which Kairograph's store uses too. */
  readonly keyspace: string;
  /** Kairograph's store, for what the API does not show (statement counts, the spec). */
  readonly store: CassandraStore;
  /**
   * The same request to both servers at once, both answers back. A write through KairosDB is only queued when it
   * answers 204: poll with `until` before reading it back.
   */
  both(method: string, path: string, options?: RestCall): Promise<BothAnswers>;
  close(): Promise<void>;
}

/**
 * Kairograph (the real gateway over a CassandraStore) on the keyspace of the run's KairosDB. `env` adds gateway settings.
 * Never TRUNCATE that keyspace: KairosDB caches the row keys it has indexed and would not index them again, so its later
 * points would be stored but never found. Name metrics with `uniquePrefix` instead.
 */
export async function openPair(env: Record<string, string> = {}): Promise<Pair> {
  const kairos = inject('kairosdb');
  const store = await CassandraStore.open(storeOptions(kairos.keyspace));
  let gateway: RestGateway;
  try {
    gateway = await startRestGateway(store, env);
  } catch (err) {
    await store.close();
    throw err;
  }
  const kairosdb: RestServer = {
    name: 'kairosdb',
    url: kairos.url,
    call: (method, path, options) => callRest(kairos.url, method, path, options, true),
  };
  const kairograph: RestServer = { name: 'kairograph', url: gateway.url, call: gateway.call };
  return {
    kairosdb,
    kairograph,
    keyspace: kairos.keyspace,
    store,
    async both(method, path, options) {
      const [a, b] = await Promise.all([kairosdb.call(method, path, options), kairograph.call(method, path, options)]);
      return { kairosdb: a, kairograph: b };
    },
    async close() {
      await gateway.close();
      await store.close();
    },
  };
}

/**
 * A metric name prefix no other run or file uses (`kg.<label>.<base36 time and pid>.`): the keyspace outlives runs when
 * KairosDB or Cassandra is reused, and `GET /api/v1/metricnames?prefix=` then lists this run's names only.
 */
export function uniquePrefix(label: string): string {
  return `kg.${label}.${Date.now().toString(36)}${process.pid.toString(36)}.`;
}

/**
 * Sends the request until `accept` holds for the answer and returns that answer; fails after `timeoutMs` with the last
 * answer in the message. For KairosDB's ingest, which stores a batch some time after its 204.
 */
export async function until(
  server: RestServer,
  method: string,
  path: string,
  options: RestCall,
  accept: (answer: RestResponse) => boolean,
  timeoutMs = 20_000,
): Promise<RestResponse> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const answer = await server.call(method, path, options);
    if (accept(answer)) return answer;
    if (performance.now() > deadline) {
      throw new Error(
        `${server.name}: ${method} ${path} did not give the awaited answer within ${timeoutMs} ms; last answer ${answer.status} ${answer.text.slice(0, 2000)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The `sample_size` of each query of a `/datapoints/query` answer ([] for anything else). */
export function sampleSizes(answer: RestResponse): number[] {
  const queries = (answer.json as { queries?: { sample_size?: number }[] } | undefined)?.queries;
  return Array.isArray(queries) ? queries.map((q) => q.sample_size ?? -1) : [];
}
