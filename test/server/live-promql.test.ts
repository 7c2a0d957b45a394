/**
 * livePromql over real HTTP (Server-Sent Events): the SNAPSHOT of a PromQL range query with exact values, a point
 * written through the REST API to a metric its selector names arriving as an UPDATE of the series it changed from the
 * first step it changed, identical subscriptions sharing one computation, and an expression Prometheus refuses failing
 * the subscription at once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { type SseEvent, subscribe } from '../support/sse.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const T0 = 1_700_000_000_000;
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
let store: EmbeddedStore;
let gw: TestGateway;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  // Two hosts, a point every 10s from T0 to T0+60s: host a 1, 2, ..., host b 10, 20, ...
  await store.write({
    series: ['a', 'b'].map((host, h) => ({
      metric: 'live.cpu',
      tags: { host },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps: Array.from({ length: 7 }, (_, i) => T0 + i * 10_000),
      values: Array.from({ length: 7 }, (_, i) => (i + 1) * (h === 0 ? 1 : 10)),
    })),
  });
  // Polls far apart: an update that arrives was pushed by the write.
  gw = await startGateway(store, { LIVE_POLL_MS: '600000' });
});

afterAll(async () => {
  await gw?.close();
  await store?.close();
  removeTempDirs();
});

interface Change {
  key: string;
  from: string | null;
  series: { name: string; host: string | null; points: { epochMs: number; value: number }[] };
}
const updateOf = (event: SseEvent) =>
  (event.data as { livePromql: { kind: string; source: string; from: string; to: string; changes: Change[] } })
    .livePromql;

const LIVE = `subscription ($expression: String!, $from: Time!, $to: Time, $step: String!) {
  livePromql(expression: $expression, from: $from, to: $to, step: $step) {
    kind source from to
    changes { key from series { name host: tag(name: "host") points { epochMs value } } }
  }
}`;

const points = (values: [number, number][]) => values.map(([s, value]) => ({ epochMs: T0 + s * 1000, value }));

it('sends the range answer, then a write to a metric it names as an update from the first step that changed', async () => {
  const variables = { expression: '{"live.cpu"} * 2', from: T0 + 20_000, to: T0 + 60_000, step: '20s' };
  const sub = await subscribe(gw.url, LIVE, variables);
  const twin = await subscribe(gw.url, LIVE, variables);
  try {
    expect(sub.status).toBe(200);
    const snapshot = updateOf(await sub.next(5000));
    expect(snapshot).toEqual({
      kind: 'SNAPSHOT',
      source: 'kairosdb',
      from: at(20),
      to: at(60),
      changes: [
        {
          key: '["",{"host":["a"]}]',
          from: null,
          series: {
            name: '{"live.cpu"} * 2',
            host: 'a',
            points: points([
              [20, 6],
              [40, 10],
              [60, 14],
            ]),
          },
        },
        {
          key: '["",{"host":["b"]}]',
          from: null,
          series: {
            name: '{"live.cpu"} * 2',
            host: 'b',
            points: points([
              [20, 60],
              [40, 100],
              [60, 140],
            ]),
          },
        },
      ],
    });
    expect(updateOf(await twin.next(5000))).toEqual(snapshot);
    // Identical subscriptions: one computation.
    expect([gw.gateway.live.subscriptions, gw.gateway.live.queries]).toEqual([2, 1]);

    const response = await fetch(`${gw.url}/api/v1/datapoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ name: 'live.cpu', tags: { host: 'a' }, datapoints: [[T0 + 60_000, 50.5]] }]),
    });
    expect(response.status).toBe(204);
    // Host a's double at 60s replaced (a double, so the same partition): its series from the step at 60s on; host b
    // unchanged, so not sent.
    expect(updateOf(await sub.next(2000))).toEqual({
      kind: 'UPDATE',
      source: 'kairosdb',
      from: at(20),
      to: at(60),
      changes: [
        {
          key: '["",{"host":["a"]}]',
          from: at(60),
          series: { name: '{"live.cpu"} * 2', host: 'a', points: points([[60, 101]]) },
        },
      ],
    });
  } finally {
    sub.close();
    twin.close();
  }
  await expect.poll(() => gw.gateway.live.subscriptions, { timeout: 5000 }).toBe(0);
});

it('refuses at once an expression Prometheus refuses, as promql does', async () => {
  const sub = await subscribe(gw.url, LIVE, { expression: 'rate(', from: 'now-1m', step: '10s' });
  try {
    expect(sub.status).toBe(400);
    expect((await sub.next(5000)).errors).toEqual([
      expect.objectContaining({
        message: 'expression is refused: 1:6: parse error: unclosed left parenthesis (got "rate(")',
        extensions: { code: 'BAD_USER_INPUT', field: 'expression' },
      }),
    ]);
  } finally {
    sub.close();
  }
});
