/**
 * @stream on `series`: a panel's first series is sent before the rest, over multipart and over SSE, in the 2022-08-24
 * incremental format (`items` at `["series", i]`); the parts together are one request's answer, so MAX_RESPONSE_BYTES
 * stops a streamed answer that grows past it (the part over it becomes BUDGET_EXCEEDED and ends the stream), and the
 * points budgets stop one that reads too much before anything is sent. A subscription's events over SSE are bounded
 * one at a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const NOW = Math.floor(Date.now() / 1000) * 1000;
const HOSTS = Array.from({ length: 10 }, (_, i) => `h${i}`);
const POINTS = 30;
const PANEL = `query Panel {
  series(metric: "stream.load", from: "now-1h", groupBy: { tags: ["host"] }) @stream(initialCount: 1) {
    host: tag(name: "host")
    points { value }
  }
}`;

let store: EmbeddedStore;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  // Host i's values are i*100 + 0..29, the oldest point last written: 29 comes first.
  await store.write({
    series: HOSTS.map((host, i) => ({
      metric: 'stream.load',
      tags: { host },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps: Array.from({ length: POINTS }, (_, j) => NOW - 60_000 * (j + 1)),
      values: Array.from({ length: POINTS }, (_, j) => i * 100 + j),
    })),
  });
});

afterAll(async () => {
  await store?.close();
  removeTempDirs();
});

const seriesOf = (i: number) => ({
  host: `h${i}`,
  points: Array.from({ length: POINTS }, (_, j) => ({ value: i * 100 + POINTS - 1 - j })),
});

/** The parts of a multipart or SSE answer, as JSON, in order. */
async function parts(url: string, accept: 'multipart/mixed' | 'text/event-stream') {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify({ query: PANEL }),
  });
  const text = await response.text();
  const json =
    accept === 'text/event-stream'
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
      : text
          .split('\r\n---')
          .map((part) => part.split('\r\n\r\n')[1])
          .filter((body): body is string => body !== undefined);
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    parts: json.map((body) => JSON.parse(body) as Record<string, unknown>),
  };
}

describe.each(['multipart/mixed', 'text/event-stream'] as const)('@stream over %s', (accept) => {
  it('sends the first series, then the others as items of the list', async () => {
    const gw = await startGateway(store, { CACHE_MAX_BYTES: '0' });
    try {
      const answer = await parts(gw.url, accept);
      expect(answer.status).toBe(200);
      expect(answer.contentType).toBe(accept === 'multipart/mixed' ? 'multipart/mixed; boundary="-"' : accept);
      // The rest were read together with the first, so they come as one part, each at its own index.
      expect(answer.parts).toEqual([
        { data: { series: [seriesOf(0)] }, hasNext: true },
        {
          incremental: HOSTS.slice(1).map((_, k) => ({ items: [seriesOf(k + 1)], path: ['series', k + 1] })),
          hasNext: false,
          // The request's statistics ride on its last part.
          extensions: {
            statistics: expect.objectContaining({
              queries: [expect.objectContaining({ path: 'series', pointsRead: 300 })],
            }),
          },
        },
      ]);
    } finally {
      await gw.close();
    }
  });

  it('ends a streamed answer that grows past MAX_RESPONSE_BYTES with BUDGET_EXCEEDED in place of the items', async () => {
    // The first part (441 bytes) fits in 1,024; the other nine series do not.
    const gw = await startGateway(store, { CACHE_MAX_BYTES: '0', MAX_RESPONSE_BYTES: '1024' });
    try {
      const answer = await parts(gw.url, accept);
      expect(answer.status).toBe(200);
      expect(answer.parts).toEqual([
        { data: { series: [seriesOf(0)] }, hasNext: true },
        {
          incremental: [
            {
              path: ['series', 1],
              items: null,
              errors: [
                {
                  message: 'request exceeded its answer bytes budget of 1024 (MAX_RESPONSE_BYTES)',
                  extensions: { code: 'BUDGET_EXCEEDED' },
                },
              ],
            },
          ],
          hasNext: false,
        },
      ]);
    } finally {
      await gw.close();
    }
  });

  it('stops a streamed request over its points read budget before any part, with 422', async () => {
    const gw = await startGateway(store, { CACHE_MAX_BYTES: '0', MAX_REQUEST_POINTS_READ: '100' });
    try {
      const answer = await parts(gw.url, accept);
      expect(answer.status).toBe(422);
      expect(answer.parts).toEqual([
        {
          data: null,
          errors: [
            {
              message: 'request exceeded its points read budget of 100 (MAX_REQUEST_POINTS_READ)',
              locations: [{ line: 2, column: 3 }],
              path: ['series'],
              extensions: { code: 'BUDGET_EXCEEDED' },
            },
          ],
          extensions: { statistics: expect.objectContaining({ queries: [] }) },
        },
      ]);
    } finally {
      await gw.close();
    }
  });
});

it('bounds each event of a subscription over SSE by MAX_RESPONSE_BYTES, and ends one whose snapshot is over it', async () => {
  const gw = await startGateway(store, { CACHE_MAX_BYTES: '0', MAX_RESPONSE_BYTES: '1024', LIVE_POLL_MS: '600000' });
  try {
    const response = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        query:
          'subscription { liveSeries(metric: "stream.load", from: "now-1h") { changes { series { points { value } } } } }',
      }),
    });
    const text = await response.text();
    expect(text.split('\n').filter((line) => line.startsWith('event: ') || line.startsWith('data: {'))).toEqual([
      'event: next',
      `data: ${JSON.stringify({
        data: null,
        errors: [
          {
            message: 'request exceeded its bytes budget of 1024 (MAX_RESPONSE_BYTES)',
            extensions: { code: 'BUDGET_EXCEEDED' },
          },
        ],
      })}`,
      'event: complete',
    ]);
    await expect.poll(() => gw.gateway.live.subscriptions).toBe(0);
  } finally {
    await gw.close();
  }
});
