/**
 * The house's refusals in Prometheus's error body on a real gateway: credentials and scopes (401, 403, a source the
 * principal may not use), budgets (422 execution), the points quota (429 with Retry-After), and /metrics naming
 * Prometheus's routes by their templates, never by a client's path.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenHash } from '../../src/http/hashes.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { faultyStore } from '../support/store-wrappers.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { PROM_SERIES, promClient } from './prometheus-suite.js';

const TOKEN = (name: string) => `kg_${name}-0123456789-0123456789-0123456789`;
const bearer = (name: string) => ({ authorization: `Bearer ${TOKEN(name)}` });
const error = (errorType: string, message: string) => ({ status: 'error', errorType, error: message });
const CPU = `/query?query=${encodeURIComponent('{"prom.cpu"}')}&time=200`;

let primary: EmbeddedStore;
let second: EmbeddedStore;
let credentials: string;
const gateways: TestGateway[] = [];

async function gatewayWith(env: Record<string, string>): Promise<TestGateway> {
  const gateway = await startGateway(primary, { CREDENTIALS_FILE: credentials, ...env }, { sources: { second } });
  gateways.push(gateway);
  return gateway;
}

beforeAll(async () => {
  primary = await EmbeddedStore.open({ path: tempDir() });
  second = await EmbeddedStore.open({ path: tempDir() });
  for (const store of [primary, second])
    await new KairosdbSource('writer', store).write({
      series: PROM_SERIES.map((s) => ({
        metric: s.metric,
        tags: s.tags,
        type: s.type,
        ttlSeconds: 0,
        timestamps: s.points.map(([t]) => t),
        values: s.points.map(([, v]) => v),
      })),
    });
  credentials = join(tempDir(), 'credentials.json');
  writeFileSync(
    credentials,
    JSON.stringify({
      tokens: [
        { name: 'reader', hash: tokenHash(TOKEN('reader')), scopes: ['read'] },
        { name: 'writer', hash: tokenHash(TOKEN('writer')), scopes: ['write'] },
        { name: 'second-only', hash: tokenHash(TOKEN('second-only')), scopes: ['read'], sources: ['second'] },
      ],
    }),
  );
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await primary?.close();
  await second?.close();
  removeTempDirs();
});

describe('credentials and scopes', () => {
  it('answers a request without credentials 401, offering Basic, in Prometheus’s body', async () => {
    const gateway = await gatewayWith({});
    const got = await promClient(gateway.url, 'kairosdb').get(CPU);
    expect([got.status, got.headers.get('www-authenticate'), got.body]).toEqual([
      401,
      'Basic realm="kairograph", charset="UTF-8"',
      error(
        'bad_data',
        "GET /prometheus/{source}/api/v1/query needs the read scope, which requests without credentials do not have: send a token (Authorization: Bearer or x-kairograph-token) or a user's password (HTTP Basic)",
      ),
    ]);
  });

  it('takes only requests with credentials under PERSISTED_ONLY, as every query here is free-form', async () => {
    const gateway = await gatewayWith({ PERSISTED_ONLY: 'true', ANONYMOUS_SCOPES: 'read' });
    const client = promClient(gateway.url, 'kairosdb');
    const anonymous = await client.get(CPU);
    expect([anonymous.status, anonymous.body]).toEqual([
      401,
      error(
        'bad_data',
        'GET /prometheus/{source}/api/v1/query needs credentials (HTTP Basic or a token): PERSISTED_ONLY is on, and the Prometheus API takes only free-form requests',
      ),
    ]);
    expect((await client.get(CPU, undefined, bearer('reader'))).status).toBe(200);
  });

  it('answers a token without the read scope 403, and does not tell it which sources exist', async () => {
    const gateway = await gatewayWith({});
    for (const source of ['kairosdb', 'nowhere']) {
      const got = await promClient(gateway.url, source).get(CPU, undefined, bearer('writer'));
      expect([got.status, got.body]).toEqual([
        403,
        error(
          'bad_data',
          'GET /prometheus/{source}/api/v1/query needs the read scope, which "writer" does not have (it has: write)',
        ),
      ]);
    }
  });

  it('answers a principal limited to other sources 403, and lists only its own as the sources there are', async () => {
    const gateway = await gatewayWith({});
    const client = promClient(gateway.url, 'kairosdb');
    const refused = await client.get(CPU, 'kairosdb', bearer('second-only'));
    expect([refused.status, refused.body]).toEqual([
      403,
      error('bad_data', '"second-only" may not use source "kairosdb" (it may use: second)'),
    ]);
    const unknown = await client.get(CPU, 'nowhere', bearer('second-only'));
    expect([unknown.status, unknown.body]).toEqual([
      404,
      error('not_found', 'no source is named "nowhere": the data source URL is /prometheus/<source>, one of second'),
    ]);
    const allowed = await client.get('/query?query=1&time=4', 'second', bearer('second-only'));
    expect([allowed.status, allowed.body]).toEqual([
      200,
      { status: 'success', data: { resultType: 'scalar', result: [4, '1'] } },
    ]);
  });
});

describe('budgets and quotas', () => {
  it('answers a query over its points-read budget 422 execution, naming the setting', async () => {
    const gateway = await gatewayWith({ MAX_POINTS_READ: '2' });
    const got = await promClient(gateway.url, 'kairosdb').get(CPU, undefined, bearer('reader'));
    expect([got.status, got.body]).toEqual([
      422,
      error('execution', 'query exceeded its points read budget of 2 (MAX_POINTS_READ)'),
    ]);
  });

  it("answers a query over PROMQL_MAX_SAMPLES 422 execution in Prometheus's words, a subquery's inner points counted", async () => {
    const gateway = await gatewayWith({ PROMQL_MAX_SAMPLES: '20' });
    const client = promClient(gateway.url, 'kairosdb');
    const refused = error(
      'execution',
      'query processing would load too many samples into memory in query execution: more than PROMQL_MAX_SAMPLES (20)',
    );
    const range = `/query_range?query=${encodeURIComponent('{"prom.cpu"}')}&start=0&end=10&step=1`;
    // Two series × 11 steps: the second series goes over.
    const got = await client.get(range, undefined, bearer('reader'));
    expect([got.status, got.body]).toEqual([422, refused]);
    const instant = (expression: string) =>
      client.get(`/query?query=${encodeURIComponent(expression)}&time=200`, undefined, bearer('reader'));
    // At 200s, [30s:10s] evaluates at 180s, 190s and 200s: two series × 3 steps, then their 6 points kept: 12.
    const fits = await instant('max_over_time({"prom.cpu"}[30s:10s])');
    expect([fits.status, fits.body]).toEqual([
      200,
      {
        status: 'success',
        data: {
          resultType: 'vector',
          result: [
            { metric: { host: 'a', 'host.name': 'alpha' }, value: [200, '4'] },
            { metric: { host: 'b', 'host.name': 'beta' }, value: [200, '30'] },
          ],
        },
      },
    ]);
    // [1m:10s] evaluates at 150s..200s: 2 × 6 held by the inner selector, 12 points kept, 24 in all.
    const over = await instant('max_over_time({"prom.cpu"}[1m:10s])');
    expect([over.status, over.body]).toEqual([422, refused]);
  });

  it('answers a matrix over the points-returned budget 422 execution', async () => {
    const gateway = await gatewayWith({ MAX_REQUEST_POINTS: '5' });
    const range = `/query_range?query=${encodeURIComponent('{"prom.cpu"}')}&start=60&end=180&step=30`;
    const got = await promClient(gateway.url, 'kairosdb').get(range, undefined, bearer('reader'));
    expect([got.status, got.body]).toEqual([
      422,
      error('execution', 'request exceeded its points returned budget of 5 (MAX_REQUEST_POINTS)'),
    ]);
  });

  it('answers a client over its points quota 429 with Retry-After', async () => {
    const gateway = await gatewayWith({ QUOTA_POINTS_READ: '1', QUOTA_PERIOD_MS: '60000' });
    const client = promClient(gateway.url, 'kairosdb');
    expect((await client.get(CPU, undefined, bearer('reader'))).status).toBe(200);
    const got = await client.get(CPU, undefined, bearer('reader'));
    expect([got.status, got.headers.get('retry-after'), (got.body as { errorType: string }).errorType]).toEqual([
      429,
      '60',
      'unavailable',
    ]);
  });
});

describe('time limits and failures', () => {
  it('answers a query past QUERY_TIMEOUT_MS 503 timeout, as Prometheus does', async () => {
    const slow = faultyStore(primary, { pageDelayMs: 2_000 });
    const gateway = await startGateway(slow, { QUERY_TIMEOUT_MS: '300' });
    gateways.push(gateway);
    const got = await promClient(gateway.url, 'kairosdb').get(CPU);
    expect([got.status, got.body]).toEqual([503, error('timeout', 'query exceeded its time limit of 300 ms')]);
  });

  it('cuts an evaluation that runs past QUERY_TIMEOUT_MS, serving other requests meanwhile', async () => {
    const gateway = await startGateway(primary, { QUERY_TIMEOUT_MS: '300' });
    gateways.push(gateway);
    const client = promClient(gateway.url, 'kairosdb');
    // No data to read: all its time is evaluation, far past the limit (each of 361 steps sums 86,400 points).
    const heavy = `/query_range?query=${encodeURIComponent('sum_over_time(vector(1)[1d:1s])')}&start=0&end=3600&step=10`;
    const started = performance.now();
    const answered = client.get(heavy).then((got) => ({ got, ms: performance.now() - started }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lightStarted = performance.now();
    const light = await client.get('/query?query=1%2B1&time=4');
    const lightEnded = performance.now();
    const lightMs = lightEnded - lightStarted;
    const { got, ms } = await answered;
    expect([light.status, light.body]).toEqual([
      200,
      { status: 'success', data: { resultType: 'scalar', result: [4, '2'] } },
    ]);
    expect([got.status, got.body]).toEqual([503, error('timeout', 'query exceeded its time limit of 300 ms')]);
    // The evaluation gives the thread back every slice: the small query is answered while it runs, and the limit's
    // timer fires on time. Bounds leave room for a loaded machine; the evaluation alone would take seconds.
    expect(lightEnded).toBeLessThan(started + ms);
    expect(lightMs).toBeLessThan(250);
    expect(ms).toBeLessThan(1_000);
  });

  it("shortens the time limit to the request's timeout, and never lengthens it", async () => {
    const slow = faultyStore(primary, { pageDelayMs: 2_000 });
    const gateway = await startGateway(slow, { QUERY_TIMEOUT_MS: '400' });
    gateways.push(gateway);
    const client = promClient(gateway.url, 'kairosdb');
    const shorter = await client.post('/query', `query=${encodeURIComponent('{"prom.cpu"}')}&time=200&timeout=0.1`);
    expect([shorter.status, shorter.body]).toEqual([503, error('timeout', 'query exceeded its time limit of 100 ms')]);
    const longer = await client.get(`${CPU}&timeout=1h`);
    expect([longer.status, longer.body]).toEqual([503, error('timeout', 'query exceeded its time limit of 400 ms')]);
  });

  it('records a query its client left as canceled, without logging an error', async () => {
    const lines: string[] = [];
    const slow = faultyStore(primary, { pageDelayMs: 1_000 });
    const gateway = await startGateway(slow, {}, { logLines: lines });
    gateways.push(gateway);
    const leaving = new AbortController();
    const asked = fetch(`${gateway.url}/prometheus/kairosdb/api/v1${CPU}`, { signal: leaving.signal });
    setTimeout(() => leaving.abort(), 200);
    await expect(asked).rejects.toThrow();
    let records: { msg: string; status?: number }[] = [];
    for (let waited = 0; waited < 3000; waited += 20) {
      records = lines.map((line) => JSON.parse(line));
      if (records.some((r) => r.msg === 'prometheus request')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The request's line is written as its response closes (499: the client left), before the handler sees the abort.
    expect(records.find((r) => r.msg === 'prometheus request')?.status).toBe(499);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // pino's error level is 50.
    expect(lines.map((line) => JSON.parse(line) as { level: number }).filter((r) => r.level >= 50)).toEqual([]);
  });

  it('masks an unexpected failure as 500 internal', async () => {
    const broken = faultyStore(primary, { scanError: new Error('disk on fire') });
    const gateway = await startGateway(broken, {});
    gateways.push(gateway);
    const got = await promClient(gateway.url, 'kairosdb').get(CPU);
    expect([got.status, got.body]).toEqual([500, error('internal', 'unexpected error')]);
  });
});

it('compresses answers for clients that take gzip, as Grafana does, counted against the answer budget', async () => {
  const gateway = await gatewayWith({ COMPRESSION_MIN_BYTES: '0' });
  const response = await fetch(`${gateway.url}/prometheus/kairosdb/api/v1/query?query=1`, {
    headers: { ...bearer('reader'), 'accept-encoding': 'gzip' },
  });
  expect([response.status, response.headers.get('content-encoding'), await response.json()]).toEqual([
    200,
    'gzip',
    { status: 'success', data: { resultType: 'scalar', result: [expect.any(Number), '1'] } },
  ]);
  const small = await gatewayWith({ MAX_RESPONSE_BYTES: '1024' });
  const range = `/query_range?query=${encodeURIComponent('{"prom.cpu"}')}&start=0&end=300&step=1`;
  const refused = await promClient(small.url, 'kairosdb').get(range, undefined, bearer('reader'));
  expect([refused.status, refused.body]).toEqual([
    422,
    error('execution', 'request exceeded its answer bytes budget of 1024 (MAX_RESPONSE_BYTES)'),
  ]);
});

it('names its routes in /metrics by template, never by the source or path a client sent', async () => {
  const gateway = await gatewayWith({ ANONYMOUS_SCOPES: 'read,admin' });
  const client = promClient(gateway.url, 'kairosdb');
  await client.get(CPU);
  await client.get(CPU, 'no-such-source');
  await client.get('/no/such/path', 'kairosdb');
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  const lines = text.split('\n').filter((line) => line.startsWith('kairograph_http_requests_total{api="prometheus"'));
  expect(lines.sort()).toEqual([
    'kairograph_http_requests_total{api="prometheus",route="/prometheus/{source}/api/v1/query",method="GET",status="200",source="kairosdb"} 1',
    'kairograph_http_requests_total{api="prometheus",route="/prometheus/{source}/api/v1/query",method="GET",status="404",source=""} 1',
    'kairograph_http_requests_total{api="prometheus",route="/prometheus/{source}/{unknown}",method="GET",status="404",source=""} 1',
  ]);
});
