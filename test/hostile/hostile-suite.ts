/**
 * Requests from a hostile or careless client, written once and run against every store (embedded in the unit run,
 * Cassandra in the integration run): each attack found against the gateway replayed over real HTTP with its exact
 * answer, then property-based fuzzing of both front ends. Invariants everywhere: the process stays up and keeps
 * answering, no 5xx but STORE_UNAVAILABLE, OVERLOADED and QUERY_TIMEOUT, every error carries a code (GraphQL) or a
 * message (REST) that is not the masked "Unexpected error.", and a refused write leaves nothing behind.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { startRestGateway, type RestGateway, type RestResponse } from '../rest/rest-client.js';
import type { GraphQLResponse } from '../support/gateway.js';
import { addPointsVariables, ingestBody, queryBody, seriesVariables } from './arbitraries.js';

/** Makes a fresh, empty store; the suite closes it. */
export type HostileStoreFactory = () => Promise<Store>;

export interface HostileSuiteOptions {
  /** Runs of each fuzzing property (fewer on Cassandra, where each write is a round trip). */
  readonly fuzzRuns: number;
  /** How many times the heavy query names its metric of 120,000 points (Cassandra reads about 0.5 M points/s here). */
  readonly heavyCopies: number;
}

const T0 = 1_700_000_000_000;
const STEP = 10_000;
/** What a 5xx may be: the store is down, the server is full, or the request ran out of time. */
const SERVER_SIDE_CODES = ['STORE_UNAVAILABLE', 'OVERLOADED', 'QUERY_TIMEOUT'];
const REST_STATUSES = [200, 204, 400, 404, 405, 413, 415, 422, 503, 504];

const SERIES = `query Series($metric: String!, $from: Time!, $to: Time, $where: [TagMatch!], $timeZone: String, $limit: Int, $fill: Fill) {
  series(metric: $metric, from: $from, to: $to, where: $where, timeZone: $timeZone, limit: $limit, fill: $fill,
         groupBy: { tags: ["host"] }, aggregators: [{ sum: { sampling: { value: 1, unit: YEARS } } }]) {
    name tags { name values } points { epochMs value long text }
  }
}`;
const ADD_POINTS = `mutation Add($series: [SeriesPointsInput!]!) { addPoints(series: $series) { series points } }`;

export function describeHostileRequests(
  storeName: string,
  createStore: HostileStoreFactory,
  options: HostileSuiteOptions,
): void {
  describe(`hostile requests against the ${storeName} store`, () => {
    const opened: { store: Store; gateway: RestGateway }[] = [];
    const gateways: RestGateway[] = [];
    afterEach(async () => {
      for (const { store, gateway } of opened.splice(0)) {
        // The process is still up and serving, whatever the test sent.
        expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
        await gateway.close();
        await store.close();
      }
      for (const gateway of gateways.splice(0)) await gateway.close();
    });
    const start = async (env: Record<string, string> = {}) => {
      const store = await createStore();
      const gateway = await startRestGateway(store, env);
      opened.push({ store, gateway });
      return gateway;
    };
    /** Another gateway, with its own settings, over the store of `gw`. */
    const alongside = async (gw: RestGateway, env: Record<string, string>) => {
      const gateway = await startRestGateway(opened.find((o) => o.gateway === gw)!.store, env);
      gateways.push(gateway);
      return gateway;
    };

    /** 6 hosts × `points` points of system.cpu.usage, 10 s apart from T0, a host per batch (MAX_WRITE_POINTS). */
    const seedCpu = async (gw: RestGateway, points: number) => {
      for (let h = 0; h < 6; h++) {
        const body = {
          name: 'system.cpu.usage',
          tags: { host: `web-0${h + 1}`, dc: h < 3 ? 'eu' : 'us' },
          datapoints: Array.from({ length: points }, (_, i) => [T0 + i * STEP, (h * 7 + i) % 100]),
        };
        expect((await gw.call('POST', '/api/v1/datapoints', { body })).status).toBe(204);
      }
    };

    describe('attacks, replayed', () => {
      it('fails 120 aliases of raw points, each within its own budgets, with BUDGET_EXCEEDED at the default settings', async () => {
        const gw = await start();
        // 12,000 points per alias: 120 of them are 1,440,000 points, over the default MAX_REQUEST_POINTS of 1,000,000.
        await seedCpu(gw, 2_000);
        const aliases = Array.from(
          { length: 120 },
          (_, i) => `a${i}: series(metric: "system.cpu.usage", from: ${T0}) { points { epochMs value } }`,
        );
        const alone = await gw.graphql(`{ ${aliases[0]} }`);
        expect(alone.status).toBe(200);
        const response = await gw.graphql(`{ ${aliases.join('\n')} }`);
        expect(response.status).toBe(422);
        expect(response.body.data).toBeNull();
        for (const error of response.body.errors!) {
          expect(error).toMatchObject({
            message: 'request exceeded its points returned budget of 1000000 (MAX_REQUEST_POINTS)',
            extensions: { code: 'BUDGET_EXCEEDED' },
          });
        }
      });

      it('matches a catastrophic regex in linear time on both front ends, within a time limit that could not stop it', async () => {
        // A backtracking matcher needs minutes for this pair, and the thread is never free for the timer to fire.
        const gw = await start({ QUERY_TIMEOUT_MS: '5000' });
        const evil = `${'a'.repeat(31)}!`;
        expect(
          (
            await gw.call('POST', '/api/v1/datapoints', {
              body: [
                { name: 'k', tags: { k: evil }, datapoints: [[T0, 1]] },
                { name: 'k', tags: { k: 'aaa' }, datapoints: [[T0, 2]] },
              ],
            })
          ).status,
        ).toBe(204);
        const rest = await gw.call('POST', '/api/v1/datapoints/query', {
          body: { start_absolute: T0, metrics: [{ name: 'k', tags: { k: ['regex:(a+)+$'] } }] },
        });
        expect(rest.status).toBe(200);
        expect(rest.json).toMatchObject({
          queries: [{ sample_size: 1, results: [{ tags: { k: ['aaa'] }, values: [[T0, 2]] }] }],
        });
        const graphql = await gw.graphql(
          `{ series(metric: "k", from: ${T0}, where: [{ tag: "k", regex: "(a+)+$" }]) { tags { name values } points { value } } }`,
        );
        expect(graphql.body).toEqual({
          data: { series: [{ tags: [{ name: 'k', values: ['aaa'] }], points: [{ value: 2 }] }] },
        });
      });

      it('answers /health while a heavy query runs, and the time limit stops a heavy query', async () => {
        const gw = await start();
        await seedCpu(gw, 20_000);
        // The metric many times over (40 on the embedded store: 4.8 million points read), as averages over 60 to 99 s:
        // identical queries running together would be read once (src/sharing/shared-queries.ts).
        const heavy = {
          start_absolute: T0,
          metrics: Array.from({ length: options.heavyCopies }, (_, i) => ({
            name: 'system.cpu.usage',
            aggregators: [{ name: 'avg', sampling: { value: 60 + i, unit: 'seconds' } }],
          })),
        };
        let heavyDone = false;
        const running = gw.call('POST', '/api/v1/datapoints/query', { body: heavy }).finally(() => (heavyDone = true));
        await new Promise((resolve) => setTimeout(resolve, 20));
        const health = await fetch(`${gw.url}/health`);
        expect(health.status).toBe(200);
        expect(heavyDone).toBe(false);
        expect((await running).status).toBe(200);

        const limited = await alongside(gw, { QUERY_TIMEOUT_MS: '50' });
        const stopped = await limited.call('POST', '/api/v1/datapoints/query', { body: heavy });
        expect(stopped.status).toBe(504);
        expect(stopped.json).toEqual({ errors: ['query exceeded its time limit of 50 ms'] });
      });
    });

    describe('fuzzing both front ends', () => {
      it('KairosDB ingest: a valid body is stored whole, anything else is a 4xx that names the problem and stores nothing', async () => {
        const gw = await start();
        await fc.assert(
          fc.asyncProperty(ingestBody, async (body) => {
            const before = await fingerprint(gw, namesIn(body));
            const answer = await gw.call('POST', '/api/v1/datapoints', { body });
            checkRest(answer);
            if (answer.status !== 204) expect(await fingerprint(gw, namesIn(body))).toEqual(before);
          }),
          { numRuns: options.fuzzRuns },
        );
      });

      it('KairosDB queries, tag queries and deletes answer 2xx or a 4xx that names the problem', async () => {
        const gw = await start();
        await seedCpu(gw, 30);
        await fc.assert(
          fc.asyncProperty(
            queryBody,
            fc.constantFrom('/api/v1/datapoints/query', '/api/v1/datapoints/query/tags', '/api/v1/datapoints/delete'),
            async (body, path) => {
              checkRest(await gw.call('POST', path, { body }));
            },
          ),
          { numRuns: options.fuzzRuns },
        );
        checkRest(await gw.call('DELETE', `/api/v1/metric/${encodeURIComponent('__proto__')}`));
      });

      it('GraphQL series: every error has a code, bad input is a 400, and nothing is masked', async () => {
        const gw = await start();
        await seedCpu(gw, 30);
        await fc.assert(
          fc.asyncProperty(seriesVariables, async (variables) => {
            checkGraphQL(await gw.graphql(SERIES, variables));
          }),
          { numRuns: options.fuzzRuns },
        );
      });

      it('GraphQL addPoints: stored whole, or refused with a code and nothing stored', async () => {
        const gw = await start();
        await fc.assert(
          fc.asyncProperty(addPointsVariables, async (variables) => {
            const series: unknown = variables.series;
            const names = Array.isArray(series) ? series.map((s: { metric?: unknown } | null) => s?.metric) : [];
            const before = await fingerprint(gw, names);
            const answer = await gw.graphql(ADD_POINTS, variables);
            checkGraphQL(answer);
            if (answer.body.errors !== undefined) expect(await fingerprint(gw, names)).toEqual(before);
          }),
          { numRuns: options.fuzzRuns },
        );
      });
    });
  });
}

/** A REST answer within the contract: a known status, and a JSON `{"errors": [...]}` that is not masked for errors. */
function checkRest(answer: RestResponse): void {
  expect(REST_STATUSES).toContain(answer.status);
  if (answer.status >= 400) {
    const errors = (answer.json as { errors?: unknown }).errors;
    expect(
      Array.isArray(errors) && errors.length > 0 && errors.every((e) => typeof e === 'string' && e.length > 0),
    ).toBe(true);
    expect(errors).not.toContain('Unexpected error.');
  }
  if (answer.status >= 500) expect(answer.status === 503 || answer.status === 504).toBe(true);
}

/** A GraphQL answer within the contract: every error has a code, a 5xx only for the server-side codes. */
function checkGraphQL(answer: GraphQLResponse): void {
  expect([200, 400, 422, 503, 504]).toContain(answer.status);
  for (const error of answer.body.errors ?? []) {
    const code = error.extensions?.code;
    expect(typeof code, JSON.stringify(error)).toBe('string');
    expect(code).not.toBe('INTERNAL_SERVER_ERROR');
    if (answer.status >= 500) expect(SERVER_SIDE_CODES).toContain(code);
  }
}

/** The strings of a fuzzed body that could be metric names. */
function namesIn(body: unknown): unknown[] {
  const metrics = Array.isArray(body) ? body : [body];
  return metrics.map((m) => (typeof m === 'object' && m !== null ? (m as { name?: unknown }).name : undefined));
}

/** What the store holds that a write of these names could change: the metric names, and the points of each. */
async function fingerprint(gw: RestGateway, names: readonly unknown[]): Promise<unknown> {
  const listed = (await gw.call('GET', '/api/v1/metricnames')).json as { results: string[] };
  const counts: Record<string, number> = {};
  for (const name of new Set(names)) {
    if (typeof name !== 'string' || !listed.results.includes(name)) continue;
    const answer = await gw.call('POST', '/api/v1/datapoints/query', {
      body: { start_absolute: -8_640_000_000_000_000, metrics: [{ name }] },
    });
    counts[name] = (answer.json as { queries: { sample_size: number }[] }).queries[0]!.sample_size;
  }
  return { names: listed.results, counts };
}
