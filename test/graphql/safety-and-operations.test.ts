/**
 * What keeps the gateway safe and operable over HTTP: introspection for Grafana, limits on operation shape, CSRF,
 * masked internal errors, persisted operations, time limits, and the operations endpoints and logs.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DashboardOverviewDocument, MetricCatalogDocument } from '../../src/generated/operations/graphql.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import type { Store } from '../../src/store/store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { faultyStore, type Faults } from '../support/store-wrappers.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

let inner: EmbeddedStore;
let faults: Faults;
let store: Store;
let gw: TestGateway | undefined;

beforeAll(async () => {
  inner = await EmbeddedStore.open({ path: tempDir() });
  const timestamps = Array.from({ length: 600 }, (_, i) => 1_000_000 + i * 1000);
  await inner.write({
    series: ['a', 'b'].map((host) => ({
      metric: 'system.cpu.usage',
      tags: { host, dc: 'eu-west' },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps,
      values: timestamps.map((t) => t / 1000),
    })),
  });
});
afterEach(async () => {
  await gw?.close();
  gw = undefined;
  faults = {};
});
afterAll(async () => {
  await inner.close();
  removeTempDirs();
});

async function gateway(env: Record<string, string> = {}, logLines?: string[]): Promise<TestGateway> {
  faults = {};
  store = faultyStore(inner, new Proxy({}, { get: (_, key: keyof Faults) => faults[key] }) as Faults);
  gw = await startGateway(store, env, logLines ? { logLines } : {});
  return gw;
}

const hashOf = (document: unknown) =>
  (document as { __meta__: { hash: string } }).__meta__.hash.replace(/^sha256:/, '');

describe('introspection', () => {
  it("answers Grafana's Save & test", async () => {
    const g = await gateway();
    expect((await g.post({ query: '{__schema{queryType{name}}}' })).body).toEqual({
      data: { __schema: { queryType: { name: 'Query' } } },
    });
  });

  it('can be switched off', async () => {
    const g = await gateway({ GRAPHQL_INTROSPECTION: 'false' });
    const response = await g.post({ query: '{__schema{queryType{name}}}' });
    expect(response.body.errors![0]!.message).toBe(
      'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
    );
  });
});

describe('operation limits', () => {
  const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: metricNames(limit: 1)`).join(' ')} }`;

  it('accepts the hundreds of aliases dashboards send, and rejects one more than the limit', async () => {
    const g = await gateway({ GRAPHQL_MAX_ALIASES: '300' });
    expect((await g.graphql(aliases(300))).status).toBe(200);
    const over = await g.graphql(aliases(301));
    expect(over.status).toBe(400);
    expect(over.body.errors).toEqual([
      {
        message: 'Syntax Error: Aliases limit of 300 exceeded, found 301. (GRAPHQL_MAX_ALIASES)',
        extensions: { code: 'QUERY_TOO_COMPLEX' },
      },
    ]);
  });

  it.each([
    [
      'GRAPHQL_MAX_DEPTH',
      '2',
      '{ series(metric: "m", from: 0) { points { value } } }',
      'Syntax Error: Query depth limit of 2 exceeded, found 3. (GRAPHQL_MAX_DEPTH)',
    ],
    [
      'GRAPHQL_MAX_COST',
      '10',
      '{ series(metric: "m", from: 0) { name metric tags { name values } points { time value } } }',
      'Syntax Error: Query Cost limit of 10 exceeded, found 20. (GRAPHQL_MAX_COST)',
    ],
  ])('rejects an operation over %s', async (setting, value, query, message) => {
    const g = await gateway({ [setting]: value });
    const response = await g.graphql(query);
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ message, extensions: { code: 'QUERY_TOO_COMPLEX' } }]);
  });

  it('rejects an operation over GRAPHQL_MAX_TOKENS while parsing, with 400 for every client', async () => {
    const g = await gateway({ GRAPHQL_MAX_TOKENS: '10' });
    const query = '{ series(metric: "m", from: 0) { name metric } }';
    const error = [
      {
        message: 'Syntax Error: Token limit of 10 exceeded. (GRAPHQL_MAX_TOKENS)',
        extensions: { code: 'QUERY_TOO_COMPLEX' },
      },
    ];
    // GraphQL-over-HTTP would let legacy application/json clients get 200 for a document that fails to parse; the
    // docs/graphql.md promises QUERY_TOO_COMPLEX with 400, as every other limit answers, so the Accept header does not matter.
    const modern = await g.graphql(query, undefined, { accept: 'application/graphql-response+json' });
    expect([modern.status, modern.body.errors]).toEqual([400, error]);
    const legacy = await g.graphql(query);
    expect([legacy.status, legacy.body.errors]).toEqual([400, error]);
  });
});

describe('requests', () => {
  it('refuses simple cross-site requests and lets JSON and headed requests through', async () => {
    const g = await gateway();
    const text = await fetch(`${g.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ query: '{ metricNames }' }),
    });
    expect(text.status).toBe(403);
    const get = await fetch(`${g.url}/graphql?query=${encodeURIComponent('{ metricNames }')}`, {
      headers: { accept: 'application/json' },
    });
    expect(get.status).toBe(403);
    const headed = await fetch(`${g.url}/graphql?query=${encodeURIComponent('{ metricNames }')}`, {
      headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1' },
    });
    expect(headed.status).toBe(200);
    expect(await headed.json()).toMatchObject({ data: { metricNames: ['system.cpu.usage'] } });
  });

  it('masks unexpected failures and logs them in full', async () => {
    const lines: string[] = [];
    const g = await gateway({}, lines);
    faults.scanError = new Error('disk on fire at sector 7');
    const response = await g.graphql('{ points(metric: "system.cpu.usage", from: 0) { points { value } } }');
    expect(response.body.errors).toEqual([
      {
        message: 'Unexpected error.',
        locations: [{ line: 1, column: 3 }],
        path: ['points'],
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      },
    ]);
    expect(lines.some((line) => line.includes('disk on fire at sector 7'))).toBe(true);
  });

  it('stops a request at its time limit with QUERY_TIMEOUT', async () => {
    const g = await gateway({ QUERY_TIMEOUT_MS: '100' });
    faults.pageDelayMs = 60_000;
    const started = Date.now();
    const response = await g.graphql('{ points(metric: "system.cpu.usage", from: 0) { points { value } } }');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(response.status).toBe(504);
    expect(response.body.errors![0]).toMatchObject({
      message: 'query exceeded its time limit of 100 ms',
      extensions: { code: 'QUERY_TIMEOUT' },
    });
  });
});

describe('persisted operations', () => {
  it('runs an operation of operations/ by its sha256 hash, with variables', async () => {
    const g = await gateway();
    const response = await g.post({
      extensions: { persistedQuery: { version: 1, sha256Hash: hashOf(MetricCatalogDocument) } },
      variables: { prefix: 'system.' },
    });
    expect(response.body).toEqual({ data: { metricNames: ['system.cpu.usage'], hosts: [] } });
  });

  /** APQ's message, which clients match exactly; what to do is in the extensions. */
  const HINT =
    'no persisted operation has this hash: send the query text with it to register it, or run `npm run codegen` and deploy the manifest';

  it('answers an unknown hash with PERSISTED_QUERY_NOT_FOUND', async () => {
    const g = await gateway();
    const response = await g.post({ extensions: { persistedQuery: { version: 1, sha256Hash: 'ab'.repeat(32) } } });
    expect(response.status).toBe(404);
    expect(response.body.errors).toEqual([
      {
        message: 'PersistedQueryNotFound',
        extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', hash: 'ab'.repeat(32), hint: HINT },
      },
    ]);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'answers the hash %s like any unknown hash, not with a member of Object',
    async (hash) => {
      const g = await gateway();
      const response = await g.post({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
      expect({ status: response.status, errors: response.body.errors }).toEqual({
        status: 404,
        errors: [
          {
            message: 'PersistedQueryNotFound',
            extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', hash, hint: HINT },
          },
        ],
      });
    },
  );

  it('accepts only hashes with PERSISTED_ONLY, except from clients with a trusted token', async () => {
    const g = await gateway({ PERSISTED_ONLY: 'true', TRUSTED_CLIENT_TOKENS: 'grafana-prod,graphiql' });
    const text = await g.graphql('{ metricNames }');
    expect(text.status).toBe(403);
    expect(text.body.errors).toEqual([
      {
        message:
          'this gateway accepts only persisted operations (extensions.persistedQuery.sha256Hash); full query text needs credentials (Authorization: Bearer or Basic, or x-kairograph-token)',
        extensions: { code: 'PERSISTED_QUERY_ONLY' },
      },
    ]);
    // A token that is neither trusted nor configured is wrong credentials, whatever the operation.
    expect((await g.graphql('{ metricNames }', undefined, { 'x-kairograph-token': 'wrong' })).status).toBe(401);
    expect((await g.graphql('{ metricNames }', undefined, { 'x-kairograph-token': 'grafana-prod' })).body).toEqual({
      data: { metricNames: ['system.cpu.usage'] },
    });
    const byHash = await g.post({
      extensions: { persistedQuery: { version: 1, sha256Hash: hashOf(DashboardOverviewDocument) } },
      variables: { from: 1_000_000, to: 1_599_000 },
    });
    expect(byHash.status).toBe(200);
    expect(Object.keys(byHash.body.data!)).toEqual(['cpu', 'latencyP99', 'requestRate']);
  });
});

/**
 * Apollo Client's persisted-queries link, replayed as it sends them: a hash-only POST; on PERSISTED_QUERY_NOT_FOUND
 * the same with the query text (which registers the hash); then hash-only again. With `useGETForHashedQueries`, the
 * hash-only requests are GETs with `extensions` in the URL and Apollo's preflight header.
 */
describe('automatic persisted queries (Apollo APQ)', () => {
  const QUERY = 'query Names($prefix: String) {\n  metricNames(prefix: $prefix)\n}';
  const HASH = createHash('sha256').update(QUERY).digest('hex');
  const apollo = { accept: '*/*' };
  const hashOnly = {
    operationName: 'Names',
    variables: { prefix: 'system.' },
    extensions: { persistedQuery: { version: 1, sha256Hash: HASH } },
  };

  it('registers a hash with its text, after which hash-only requests (POST and GET) run it', async () => {
    const g = await gateway();
    const first = await g.post(hashOnly, apollo);
    expect(first.status).toBe(404);
    expect(first.body.errors?.[0]).toMatchObject({
      message: 'PersistedQueryNotFound',
      extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
    });
    const retry = await g.post({ ...hashOnly, query: QUERY }, apollo);
    expect({ status: retry.status, body: retry.body }).toEqual({
      status: 200,
      body: { data: { metricNames: ['system.cpu.usage'] } },
    });
    const again = await g.post(hashOnly, apollo);
    expect({ status: again.status, body: again.body }).toEqual({
      status: 200,
      body: { data: { metricNames: ['system.cpu.usage'] } },
    });
    const params = new URLSearchParams({
      operationName: 'Names',
      variables: JSON.stringify(hashOnly.variables),
      extensions: JSON.stringify(hashOnly.extensions),
    });
    const get = await fetch(`${g.url}/graphql?${params}`, {
      headers: { ...apollo, 'apollo-require-preflight': 'true' },
    });
    expect(get.status).toBe(200);
    expect(await get.json()).toMatchObject({ data: { metricNames: ['system.cpu.usage'] } });
  });

  it('refuses text whose hash is not its sha256, runs nothing and registers nothing', async () => {
    const g = await gateway();
    const wrong = 'ab'.repeat(32);
    const response = await g.post(
      { ...hashOnly, query: QUERY, extensions: { persistedQuery: { version: 1, sha256Hash: wrong } } },
      apollo,
    );
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      errors: [
        {
          message: `extensions.persistedQuery.sha256Hash ${wrong} is not the sha256 of the query text (${HASH}); nothing was run or registered`,
          extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH' },
        },
      ],
    });
    expect(
      (await g.post({ ...hashOnly, extensions: { persistedQuery: { version: 1, sha256Hash: wrong } } })).status,
    ).toBe(404);
    const notHex = await g.post({
      query: QUERY,
      extensions: { persistedQuery: { version: 1, sha256Hash: 'md5:abc' } },
    });
    expect(notHex.body.errors?.[0]?.extensions).toEqual({ code: 'PERSISTED_QUERY_HASH_MISMATCH' });
  });

  it('keeps PERSISTED_ONLY whole: untrusted clients neither register nor run registered hashes', async () => {
    const g = await gateway({ PERSISTED_ONLY: 'true', TRUSTED_CLIENT_TOKENS: 'graphiql' });
    const untrusted = await g.post({ ...hashOnly, query: QUERY });
    expect(untrusted.body.errors?.[0]?.extensions).toEqual({ code: 'PERSISTED_QUERY_ONLY' });
    expect((await g.post(hashOnly)).status).toBe(404);
    const trusted = { 'x-kairograph-token': 'graphiql' };
    expect((await g.post({ ...hashOnly, query: QUERY }, trusted)).status).toBe(200);
    expect((await g.post(hashOnly, trusted)).status).toBe(200);
    // Registered by a trusted client, still unknown to the others: only the manifest serves them.
    expect((await g.post(hashOnly)).status).toBe(404);
  });
});

describe('operations endpoints and logs', () => {
  it('reports liveness, and readiness from the store', async () => {
    const g = await gateway();
    expect((await fetch(`${g.url}/health`)).status).toBe(200);
    expect((await fetch(`${g.url}/ready`)).status).toBe(200);
    faults.pingError = new Error('the embedded store is unavailable: no such file');
    const notReady = await fetch(`${g.url}/ready`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toContain('the embedded store is unavailable: no such file');
  });

  it('serves Prometheus metrics about the requests it handled', async () => {
    const g = await gateway();
    await g.graphql('query Names { metricNames }');
    const metrics = await fetch(`${g.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = await metrics.text();
    expect(text).toContain(
      'kairograph_http_requests_total{api="graphql",route="/graphql",method="POST",status="200",source="kairosdb"} 1',
    );
    expect(text).toContain('graphql_envelop_phase_execute_count{operationType="query"} 1');
    // The process and Node's runtime, from prom-client's defaults.
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it("echoes the client's request id, makes one otherwise, and logs each request with its statistics", async () => {
    const lines: string[] = [];
    const g = await gateway({}, lines);
    const given = await g.graphql(
      'query Cpu { points(metric: "system.cpu.usage", from: 1000000, to: 1009999) { points { value } } }',
      undefined,
      { 'x-request-id': 'grafana-42' },
    );
    expect(given.headers.get('x-request-id')).toBe('grafana-42');
    const made = await g.graphql('{ metricNames }');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const logged = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry['msg'] === 'graphql request');
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({
      requestId: 'grafana-42',
      operation: 'Cpu',
      api: 'graphql',
      method: 'POST',
      route: '/graphql',
      status: 200,
      principal: 'anonymous',
      errors: [],
      statistics: {
        requestId: 'grafana-42',
        storeCalls: { rowTimes: 1, rowKeys: 1, legacyRowKeys: 1, tagIndexedRowKeys: 0, scans: 2, total: 5 },
        queries: [
          {
            path: 'points',
            metric: 'system.cpu.usage',
            rowTimes: 1,
            seriesMatched: 2,
            partitionsRead: 2,
            pointsRead: 20,
            pointsReturned: 20,
          },
        ],
      },
    });
    expect(given.extensions!['statistics']).toEqual(logged[0]!['statistics']);
  });
});
