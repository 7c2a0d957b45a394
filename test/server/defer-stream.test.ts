/**
 * @defer on a dashboard request: the fast panel's part arrives while the slow panel's read is still held (its store
 * scans wait for a gate the test opens after the first part), over multipart (as Apollo Client's HttpLink reads it,
 * and as a raw stream) and over SSE; a client that asks for plain JSON gets 406 rather than a half answer.
 */
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import type { Store } from '../../src/store/store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { delegatingStore } from '../support/store-wrappers.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const NOW = Math.floor(Date.now() / 1000) * 1000;
const DASHBOARD = `query Dashboard {
  fast: series(metric: "fast", from: "now-1h") { points { value } }
  ... @defer(label: "slowPanel") { slow: series(metric: "slow", from: "now-1h") { points { value } } }
}`;

let store: EmbeddedStore;
let gw: TestGateway;
/** Scans of metric `slow` wait for this gate. */
let gate: { open: () => void; promise: Promise<void> };
let slowScans = 0;
let gated: Store;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  await store.write({
    series: ['fast', 'slow'].map((metric, i) => ({
      metric,
      tags: { host: 'a' },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps: [NOW - 60_000],
      values: [i + 1],
    })),
  });
  gated = delegatingStore(store, {
    scan: (key, start, end, options) => {
      if (key.metric !== 'slow') return store.scan(key, start, end, options);
      slowScans++;
      const inner = store.scan(key, start, end, options);
      return (async function* () {
        await gate.promise;
        yield* inner;
      })();
    },
  });
  // The results cache off: each test's slow panel must read the store again.
  gw = await startGateway(gated, { CACHE_MAX_BYTES: '0' });
});

beforeEach(() => {
  let open!: () => void;
  gate = { open: () => undefined, promise: new Promise<void>((resolve) => (open = resolve)) };
  gate.open = open;
  slowScans = 0;
});

afterAll(async () => {
  gate.open();
  await gw?.close();
  await store?.close();
  removeTempDirs();
});

/** The stream's text as it arrives, read until `until` is in it. */
async function readUntil(reader: ReadableStreamDefaultReader<string>, seen: { text: string }, until: string) {
  while (!seen.text.includes(until)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before ${JSON.stringify(until)}: ${seen.text}`);
    seen.text += value;
  }
}

async function post(accept: string) {
  const response = await fetch(`${gw.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify({ query: DASHBOARD }),
  });
  return { response, reader: response.body!.pipeThrough(new TextDecoderStream()).getReader(), seen: { text: '' } };
}

it('sends the fast panel over multipart while the slow one is still reading, then the slow one', async () => {
  const { response, reader, seen } = await post('multipart/mixed');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('multipart/mixed; boundary="-"');
  await readUntil(reader, seen, '"hasNext":true');
  expect(seen.text).toContain('{"data":{"fast":[{"points":[{"value":1}]}]},"hasNext":true}');
  // The first part is out, and the slow panel's scan, once begun, is held.
  await expect.poll(() => slowScans).toBeGreaterThan(0);
  expect(seen.text).not.toContain('slowPanel');
  gate.open();
  await readUntil(reader, seen, '-----');
  const last =
    '{"incremental":[{"data":{"slow":[{"points":[{"value":2}]}]},"path":[],"label":"slowPanel"}],"hasNext":false,';
  expect(seen.text).toContain(last);
  // The request's statistics ride on its last part, with both panels' queries.
  const part = JSON.parse(seen.text.slice(seen.text.indexOf(last)).split('\r\n')[0]!) as {
    extensions: { statistics: { queries: { path: string; pointsRead: number }[] } };
  };
  expect(part.extensions.statistics.queries.map(({ path, pointsRead }) => ({ path, pointsRead }))).toEqual([
    { path: 'fast', pointsRead: 1 },
    { path: 'slow', pointsRead: 1 },
  ]);
});

it('sends the same parts over SSE', async () => {
  const { response, reader, seen } = await post('text/event-stream');
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  await readUntil(reader, seen, '"hasNext":true');
  expect(seen.text).toContain('event: next\ndata: {"data":{"fast":[{"points":[{"value":1}]}]},"hasNext":true}');
  await expect.poll(() => slowScans).toBeGreaterThan(0);
  expect(seen.text).not.toContain('slowPanel');
  gate.open();
  await readUntil(reader, seen, 'event: complete');
  expect(seen.text).toContain(
    'event: next\ndata: {"incremental":[{"data":{"slow":[{"points":[{"value":2}]}]},"path":[],"label":"slowPanel"}],"hasNext":false,"extensions":{"statistics":{',
  );
});

it('refuses a deferred query to a client that reads only JSON with 406', async () => {
  const { response } = await post('application/json');
  expect(response.status).toBe(406);
});

it("gives Apollo Client's watchQuery the fast panel first, then the whole dashboard", async () => {
  const client = new ApolloClient({
    link: new HttpLink({ uri: `${gw.url}/graphql` }),
    cache: new InMemoryCache(),
    incrementalHandler: new Defer20220824Handler(),
  });
  const seen: unknown[] = [];
  const watching = client
    .watchQuery({ query: gql(DASHBOARD), fetchPolicy: 'no-cache' })
    .subscribe({ next: (result) => seen.push(result.data) });
  try {
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    await expect
      .poll(() => seen.at(-1))
      .toEqual({
        fast: [{ __typename: 'Series', points: [{ __typename: 'Point', value: 1 }] }],
      });
    gate.open();
    await expect
      .poll(() => seen.at(-1))
      .toEqual({
        __typename: 'Query',
        fast: [{ __typename: 'Series', points: [{ __typename: 'Point', value: 1 }] }],
        slow: [{ __typename: 'Series', points: [{ __typename: 'Point', value: 2 }] }],
      });
  } finally {
    watching.unsubscribe();
  }
});

it("stops a deferred part that goes over the request's budget: its parts together are one request", async () => {
  // The fast panel reads one point, the deferred one (held until the first part is out) a second: over the request's
  // MAX_REQUEST_POINTS_READ of 1.
  const tight = await startGateway(gated, { CACHE_MAX_BYTES: '0', MAX_REQUEST_POINTS_READ: '1' });
  try {
    const response = await fetch(`${tight.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: DASHBOARD }),
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const seen = { text: '' };
    await readUntil(reader, seen, '"hasNext":true');
    expect(seen.text).toContain('data: {"data":{"fast":[{"points":[{"value":1}]}]},"hasNext":true}');
    gate.open();
    await readUntil(reader, seen, 'event: complete');
    const parts = seen.text
      .split('\n')
      .filter((line) => line.startsWith('data: {"incremental"'))
      .map((line) => JSON.parse(line.slice(6)) as { extensions?: unknown });
    // The statistics on the last part list the fast panel's query only: the slow one failed.
    expect(parts.map(({ extensions }) => extensions)).toEqual([
      { statistics: expect.objectContaining({ queries: [expect.objectContaining({ path: 'fast', pointsRead: 1 })] }) },
    ]);
    expect(parts.map(({ extensions, ...part }) => part)).toEqual([
      {
        incremental: [
          {
            data: null,
            path: [],
            label: 'slowPanel',
            errors: [
              {
                message: 'request exceeded its points read budget of 1 (MAX_REQUEST_POINTS_READ)',
                locations: [{ line: 3, column: 36 }],
                path: ['slow'],
                extensions: { code: 'BUDGET_EXCEEDED' },
              },
            ],
          },
        ],
        hasNext: false,
      },
    ]);
  } finally {
    await tight.close();
  }
});
