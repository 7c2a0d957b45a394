/**
 * Admission control over real HTTP, on both front ends: a full queue refuses at once with OVERLOADED (503,
 * Retry-After, each API's error form) while /health, /ready and /metrics are never queued; a queued request leaves
 * the queue when its client leaves or its time limit passes.
 */
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { text as readText } from 'node:stream/consumers';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { callRest, jsonHeaders } from '../rest/rest-client.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { faultyStore, type Faults } from '../support/store-wrappers.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const T0 = 1_700_000_000_000;
const STEP = 10_000;
const HOSTS = 6;
const POINTS_PER_HOST = 20_000;

let inner: EmbeddedStore;
let faults: Faults;
let gw: TestGateway | undefined;

beforeAll(async () => {
  inner = await EmbeddedStore.open({ path: tempDir('kairograph-admission-') });
  const timestamps = Array.from({ length: POINTS_PER_HOST }, (_, i) => T0 + i * STEP);
  await inner.write({
    series: Array.from({ length: HOSTS }, (_, h) => ({
      metric: 'system.cpu.usage',
      tags: { host: `web-0${h + 1}` },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps,
      values: timestamps.map((_, i) => (h * 7 + i) % 100),
    })),
  });
});
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});
afterAll(async () => {
  await inner.close();
  removeTempDirs();
});

async function gateway(env: Record<string, string>): Promise<TestGateway> {
  faults = {};
  gw = await startGateway(
    faultyStore(inner, new Proxy({}, { get: (_, key: keyof Faults) => faults[key] }) as Faults),
    env,
  );
  return gw;
}

/** One point a minute for the whole range: one small answer. */
const SMALL_REST = {
  start_absolute: T0,
  metrics: [{ name: 'system.cpu.usage', aggregators: [{ name: 'max', sampling: { value: 1, unit: 'years' } }] }],
};
const SMALL_GRAPHQL = `{ top: series(metric: "system.cpu.usage", from: ${T0}, aggregators: [{ max: { sampling: { value: 1, unit: YEARS } } }]) { points { value } } }`;
/**
 * The metric 100 times over as averages over 60 to 159 s: 12 million points read, seconds of work on the thread.
 * Identical queries running together would be read once (src/sharing/shared-queries.ts).
 */
const HEAVY_REST = {
  start_absolute: T0,
  metrics: Array.from({ length: 100 }, (_, i) => ({
    name: 'system.cpu.usage',
    aggregators: [{ name: 'avg', sampling: { value: 60 + i, unit: 'seconds' } }],
  })),
};

const FULL =
  'the server is overloaded: 1 of 1 requests running and 1 of 1 waiting (MAX_CONCURRENT_REQUESTS, MAX_QUEUED_REQUESTS); retry in 1 s';

function post(g: TestGateway, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${g.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** The admission gauges and counters of /metrics. */
async function admission(g: TestGateway): Promise<Record<string, number>> {
  const text = await (await fetch(`${g.url}/metrics`)).text();
  const values: Record<string, number> = {};
  for (const [, name, value] of text.matchAll(
    /^kairograph_admission_(running|queued|abandoned_total|rejected_total\{reason="\w+"\}) (\S+)$/gm,
  ))
    values[name!] = Number(value);
  return values;
}

/** Polls until `check` holds (each poll is a request the server answers between other work). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > 10_000) throw new Error(`${what} did not happen within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Times `count` requests to /health, one after another, from a worker thread: a probe timed on this thread would
 * count the turns the server's heavy request takes here too (the gateway runs in the test's process).
 */
async function probeHealth(url: string, count: number): Promise<{ statuses: number[]; ms: number[] }> {
  const worker = new Worker(
    `const { parentPort, workerData: { url, count } } = require('node:worker_threads');
    (async () => {
      const statuses = [], ms = [];
      // The first fetch of a thread loads and sets up its HTTP client, tens of milliseconds that are not the server's.
      await (await fetch(url + '/health')).arrayBuffer();
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        const response = await fetch(url + '/health');
        await response.arrayBuffer();
        ms.push(performance.now() - started);
        statuses.push(response.status);
      }
      parentPort.postMessage({ statuses, ms });
    })();`,
    { eval: true, workerData: { url, count } },
  );
  try {
    const [result] = (await once(worker, 'message')) as [{ statuses: number[]; ms: number[] }];
    return result;
  } finally {
    await worker.terminate();
  }
}

async function timed<T>(send: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await send();
  return { value, ms: performance.now() - started };
}

describe('admission control', () => {
  it('refuses at once with OVERLOADED when the queue is full, while /health answers in under 50 ms', async () => {
    const g = await gateway({ MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUED_REQUESTS: '1' });
    // A heavy REST request runs (on the thread, no store wait), a GraphQL one waits for its turn.
    const clients = new AbortController();
    let settled = false;
    const running = post(g, '/api/v1/datapoints/query', HEAVY_REST, clients.signal).finally(() => (settled = true));
    const queued = post(g, '/graphql', { query: SMALL_GRAPHQL }, clients.signal).finally(() => (settled = true));
    running.catch(() => undefined);
    queued.catch(() => undefined);
    try {
      await until('one request running and one queued', async () => {
        const state = await admission(g);
        return state['running'] === 1 && state['queued'] === 1;
      });

      const rest = await timed(() => callRest(g.url, 'POST', '/api/v1/datapoints/query', { body: SMALL_REST }));
      expect(rest.value.status).toBe(503);
      expect(rest.value.json).toEqual({ errors: [FULL] });
      expect(rest.value.headers).toEqual(jsonHeaders(rest.value.text, { 'retry-after': '1' }));
      const graphql = await timed(() => g.graphql(SMALL_GRAPHQL));
      expect(graphql.value.status).toBe(503);
      expect(graphql.value.headers.get('retry-after')).toBe('1');
      expect(graphql.value.body).toEqual({
        data: null,
        errors: [
          { message: FULL, locations: [{ line: 1, column: 3 }], path: ['top'], extensions: { code: 'OVERLOADED' } },
        ],
      });
      // At once: in the time the heavy request takes a few slices of the thread, never after its seconds of work.
      expect(rest.ms).toBeLessThan(500);
      expect(graphql.ms).toBeLessThan(500);

      const health = await probeHealth(g.url, 5);
      expect(health.statuses).toEqual([200, 200, 200, 200, 200]);
      for (const ms of health.ms) expect(ms).toBeLessThan(50);
      expect((await fetch(`${g.url}/ready`)).status).toBe(200);
      expect(await admission(g)).toEqual({
        running: 1,
        queued: 1,
        'rejected_total{reason="queue_full"}': 2,
        'rejected_total{reason="wait"}': 0,
        'rejected_total{reason="timeout"}': 0,
        abandoned_total: 0,
      });
      // All of that happened while both requests were still under way.
      expect(settled).toBe(false);
    } finally {
      clients.abort();
    }
    await until('both requests gone', async () => {
      const state = await admission(g);
      return state['running'] === 0 && state['queued'] === 0;
    });
    expect((await admission(g))['abandoned_total']).toBe(1);
  });

  it('takes a queued request out of the queue when its client leaves, and the next one takes its place', async () => {
    const g = await gateway({ MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUED_REQUESTS: '1' });
    let open!: () => void;
    faults.scanGate = new Promise<void>((resolve) => (open = resolve));
    const scanning = new Promise<void>((resolve) => (faults.onScan = resolve));
    const running = g.graphql(SMALL_GRAPHQL);
    await scanning;
    const leaving = new AbortController();
    const left = post(g, '/api/v1/datapoints/query', SMALL_REST, leaving.signal);
    await until('the REST request queued', async () => (await admission(g))['queued'] === 1);
    leaving.abort();
    await expect(left).rejects.toThrow('This operation was aborted');
    await until('the REST request out of the queue', async () => (await admission(g))['queued'] === 0);

    // Its place is free again: the next request waits instead of being refused.
    const next = callRest(g.url, 'POST', '/api/v1/datapoints/query', { body: SMALL_REST });
    await until('the next request queued', async () => (await admission(g))['queued'] === 1);
    open();
    expect((await running).body).toEqual({ data: { top: [{ points: [{ value: 99 }] }] } });
    const answer = await next;
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      queries: [
        {
          sample_size: HOSTS * POINTS_PER_HOST,
          results: [
            {
              name: 'system.cpu.usage',
              group_by: [{ name: 'type', type: 'number' }],
              tags: { host: ['web-01', 'web-02', 'web-03', 'web-04', 'web-05', 'web-06'] },
              values: [[T0, 99]],
            },
          ],
        },
      ],
    });
    expect(await admission(g)).toEqual({
      running: 0,
      queued: 0,
      'rejected_total{reason="queue_full"}': 0,
      'rejected_total{reason="wait"}': 0,
      'rejected_total{reason="timeout"}': 0,
      abandoned_total: 1,
    });
  });

  it('refuses a queued request with OVERLOADED when its time limit passes in the queue', async () => {
    const g = await gateway({ MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUED_REQUESTS: '1', QUERY_TIMEOUT_MS: '1000' });
    let open!: () => void;
    faults.scanGate = new Promise<void>((resolve) => (open = resolve));
    const scanning = new Promise<void>((resolve) => (faults.onScan = resolve));
    // The queued request's time limit must pass while the running one still holds its turn, so its clock starts first:
    // a REST request's limit counts from its headers, and its body (the query) comes once the other runs.
    const sent = performance.now();
    const early = request(`${g.url}/api/v1/datapoints/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-encoding': 'identity' },
    });
    early.flushHeaders();
    const waiting = once(early, 'response') as Promise<[IncomingMessage]>;
    // 300 ms apart: the running request's limit passes that long after the queued one's, however loaded the machine.
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The store hangs until the test opens it.
    const running = g.graphql(SMALL_GRAPHQL);
    await scanning;
    // Another query than the running one: an identical one would wait for it without a turn (shared-queries.ts).
    early.end(
      JSON.stringify({
        ...SMALL_REST,
        metrics: [{ ...SMALL_REST.metrics[0]!, aggregators: [{ name: 'min', sampling: { value: 1, unit: 'years' } }] }],
      }),
    );
    const [waited] = await waiting;
    const waitedMs = performance.now() - sent;
    const text = await readText(waited);
    const message =
      'the server is overloaded: the request waited its whole time limit of 1000 ms for a turn (QUERY_TIMEOUT_MS); retry in 1 s';
    expect(waited.statusCode).toBe(503);
    expect(JSON.parse(text)).toEqual({ errors: [message] });
    expect(waited.headers['retry-after']).toBe('1');
    expect(waitedMs).toBeGreaterThanOrEqual(990);
    expect(await admission(g)).toMatchObject({ running: 1, queued: 0, 'rejected_total{reason="timeout"}': 1 });
    open();
    // The running request still had time: its answer is whole.
    expect((await running).body).toEqual({ data: { top: [{ points: [{ value: 99 }] }] } });
    await until('the turn given back', async () => (await admission(g))['running'] === 0);
    expect(await admission(g)).toMatchObject({ running: 0, queued: 0, 'rejected_total{reason="timeout"}': 1 });
  });

  it('queues nothing but queries: metadata, writes and the operations endpoints pass a full queue', async () => {
    const g = await gateway({ MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUED_REQUESTS: '0' });
    let open!: () => void;
    faults.scanGate = new Promise<void>((resolve) => (open = resolve));
    const scanning = new Promise<void>((resolve) => (faults.onScan = resolve));
    const running = g.graphql(SMALL_GRAPHQL);
    await scanning;
    expect(
      (await g.graphql(`{ metricNames tagValues(metric: "system.cpu.usage", tag: "host", from: ${T0}) }`)).body,
    ).toEqual({
      data: {
        metricNames: ['system.cpu.usage'],
        tagValues: ['web-01', 'web-02', 'web-03', 'web-04', 'web-05', 'web-06'],
      },
    });
    expect(
      (
        await callRest(g.url, 'POST', '/api/v1/datapoints', {
          body: [{ name: 'other', tags: { host: 'a' }, datapoints: [[T0, 1]] }],
        })
      ).status,
    ).toBe(204);
    expect((await callRest(g.url, 'GET', '/api/v1/metricnames')).json).toEqual({
      results: ['other', 'system.cpu.usage'],
    });
    for (const path of ['/health', '/ready', '/metrics', '/api/v1/health/check'])
      expect((await fetch(`${g.url}${path}`)).status, path).toBeLessThan(300);
    expect((await callRest(g.url, 'POST', '/api/v1/datapoints/query', { body: SMALL_REST })).status).toBe(503);
    open();
    expect((await running).status).toBe(200);
  });
});
