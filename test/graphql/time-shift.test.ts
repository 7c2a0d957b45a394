/**
 * `shift` on `series`, `rows` and `liveSeries`, golden: a plain shift beside the unshifted series in one request; a
 * calendar day back across Europe/Berlin's spring DST change (wall-clock times kept, so the answered times differ
 * from a fixed `-24h`); aggregators with `fill` over two groups; the same answers with the results cache on (asked
 * twice, the second time from it) and off; `rows`; a live subscription's snapshot; refusals naming `shift`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { subscribe } from '../support/sse.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const HOUR = 3_600_000;
const BASE = Date.parse('2026-03-20T00:00:00Z');
/** Host a: a point every hour, its value the hours since BASE; host b: every second hour, 1000 + those hours. */
const value = (host: 'a' | 'b', ms: number) => (host === 'a' ? 0 : 1000) + (ms - BASE) / HOUR;
const HOURS = 24 * 20;

let store: EmbeddedStore;
const gateways: Record<string, TestGateway> = {};

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  const times = (every: number) => Array.from({ length: HOURS / every }, (_, i) => BASE + i * every * HOUR);
  await store.write({
    series: (['a', 'b'] as const).map((host) => {
      const timestamps = times(host === 'a' ? 1 : 2);
      return {
        metric: 'shift.load',
        tags: { host },
        type: 'double' as const,
        ttlSeconds: 0,
        timestamps,
        values: timestamps.map((t) => value(host, t)),
      };
    }),
  });
  gateways.cached = await startGateway(store, { CACHE_MAX_BYTES: String(64 << 20), CACHE_FRESHNESS_MS: '0' });
  gateways.uncached = await startGateway(store, { CACHE_MAX_BYTES: '0' });
});

afterAll(async () => {
  for (const g of Object.values(gateways)) await g.close();
  await store?.close();
  removeTempDirs();
});

const iso = (text: string) => Date.parse(text);
/** Host a's points read at `readAt`, answered at `answeredAt`. */
const moved = (pairs: readonly (readonly [string, string])[]) =>
  pairs.map(([answeredAt, readAt]) => ({ epochMs: iso(answeredAt), value: value('a', iso(readAt)) }));

const SERIES = `query ($from: Time!, $to: Time, $shift: String, $zone: String) {
  now: series(metric: "shift.load", from: $from, to: $to, where: [{ tag: "host", eq: "a" }], timeZone: $zone) {
    points { epochMs value }
  }
  before: series(metric: "shift.load", from: $from, to: $to, where: [{ tag: "host", eq: "a" }], timeZone: $zone,
                 shift: $shift, name: "before") {
    name points { epochMs value }
  }
}`;

describe.each(['cached', 'uncached'])('shift, results cache %s', (which) => {
  const g = () => gateways[which]!;

  it('answers the window a week earlier on the asked times, beside the unshifted series', async () => {
    const variables = { from: '2026-04-02T10:00:00Z', to: '2026-04-02T12:00:00Z', shift: '-7d' };
    const got = await g().graphql(SERIES, variables);
    expect(got.body).toEqual({
      data: {
        now: [{ points: moved([10, 11, 12].map((h) => [`2026-04-02T${h}:00:00Z`, `2026-04-02T${h}:00:00Z`])) }],
        before: [
          {
            name: 'before',
            points: moved([10, 11, 12].map((h) => [`2026-04-02T${h}:00:00Z`, `2026-03-26T${h}:00:00Z`])),
          },
        ],
      },
    });
  });

  it('counts a calendar day in the query zone: across the DST change the wall-clock times are kept', async () => {
    // 30 March 00:00 to 06:00 in Berlin (summer time, UTC+2); a day earlier spans the change at 02:00 local.
    const variables = { from: '2026-03-30T00:00:00+02:00', to: '2026-03-30T06:00:00+02:00', zone: 'Europe/Berlin' };
    const day = await g().graphql(SERIES, { ...variables, shift: '-1d' });
    expect((day.body.data!.before as { points: unknown }[])[0]!.points).toEqual(
      moved([
        ['2026-03-29T22:00:00Z', '2026-03-28T23:00:00Z'], // 00:00 local, both days
        ['2026-03-29T23:00:00Z', '2026-03-29T00:00:00Z'], // 01:00 local
        // 02:00 local did not exist on the 29th: nothing answers at 2026-03-30T00:00Z
        ['2026-03-30T01:00:00Z', '2026-03-29T01:00:00Z'], // 03:00 local
        ['2026-03-30T02:00:00Z', '2026-03-29T02:00:00Z'],
        ['2026-03-30T03:00:00Z', '2026-03-29T03:00:00Z'],
        ['2026-03-30T04:00:00Z', '2026-03-29T04:00:00Z'], // 06:00 local
      ]),
    );
    // 24 hours is not a calendar day there: every point moves by the same 24 h.
    const hours = await g().graphql(SERIES, { ...variables, shift: '-24h' });
    expect((hours.body.data!.before as { points: unknown }[])[0]!.points).toEqual(
      moved([22, 23, 24, 25, 26, 27, 28].map((h) => [hourIso(BASE, h + 9 * 24), hourIso(BASE, h + 8 * 24)])),
    );
  });

  it('runs aggregators and fill on the moved window, and gives the same answer when asked again', async () => {
    const query = `{
      series(metric: "shift.load", from: "2026-04-22T00:00:00Z", to: "2026-04-22T03:59:59.999Z", shift: "-1M",
             groupBy: { tags: ["host"] }, fill: ZERO,
             aggregators: [{ sum: { sampling: { value: 1, unit: HOURS }, alignSampling: true } }]) {
        tag(name: "host") points { epochMs value }
      }
    }`;
    const bucket = (host: 'a' | 'b', h: number) => ({
      epochMs: iso(`2026-04-22T0${h}:00:00Z`),
      // b has points on even hours only: fill ZERO gives the odd ones.
      value: host === 'b' && h % 2 ? 0 : value(host, iso(`2026-03-22T0${h}:00:00Z`)),
    });
    const expected = {
      data: {
        series: (['a', 'b'] as const).map((tag) => ({ tag, points: [0, 1, 2, 3].map((h) => bucket(tag, h)) })),
      },
    };
    expect((await g().graphql(query)).body).toEqual(expected);
    const again = await g().graphql(query);
    expect(again.body).toEqual(expected);
    // The moved window's buckets are what the cache keeps: the second answer is read from it, or from the store.
    const statistics = again.extensions?.statistics as { queries: { cache: { hits: number } }[] };
    expect(statistics.queries.map((q) => q.cache.hits > 0)).toEqual([which === 'cached']);
  });

  it('shifts rows as it shifts series', async () => {
    const got = await g().graphql(`{
      rows(metric: "shift.load", from: "2026-03-25T06:00:00Z", to: "2026-03-25T07:00:00Z", shift: "-2h",
           where: [{ tag: "host", eq: "b" }]) { epochMs value }
    }`);
    expect(got.body).toEqual({
      data: { rows: [{ epochMs: iso('2026-03-25T06:00:00Z'), value: value('b', iso('2026-03-25T04:00:00Z')) }] },
    });
  });
});

it('moves a live subscription onto the asked window; its update names that window', async () => {
  const sub = await subscribe(
    gateways.uncached!.url,
    `subscription {
      liveSeries(metric: "shift.load", from: "2026-03-30T10:00:00Z", to: "2026-03-30T11:00:00Z", shift: "-1w",
                 where: [{ tag: "host", eq: "a" }]) {
        kind from to changes { series { points { epochMs value } } }
      }
    }`,
  );
  try {
    expect(sub.status).toBe(200);
    expect((await sub.next(10_000)).data).toEqual({
      liveSeries: {
        kind: 'SNAPSHOT',
        from: '2026-03-30T10:00:00.000Z',
        to: '2026-03-30T11:00:00.000Z',
        changes: [
          {
            series: {
              points: moved([
                ['2026-03-30T10:00:00Z', '2026-03-23T10:00:00Z'],
                ['2026-03-30T11:00:00Z', '2026-03-23T11:00:00Z'],
              ]),
            },
          },
        ],
      },
    });
  } finally {
    sub.close();
  }
});

describe('refused shifts', () => {
  const ask = (shift: string, from = 0) =>
    gateways.uncached!.graphql(
      `query ($shift: String, $from: Time!) { series(metric: "shift.load", from: $from, shift: $shift) { name } }`,
      { shift, from },
    );

  it.each([
    [
      '7d',
      'shift is not a time shift: a sign, then amounts with units ms s m h d w M Q y, such as -7d, -1M or +1h; "-7d" reads the window that much earlier (got "7d")',
    ],
    [
      '-7x',
      'shift is not a time shift: a sign, then amounts with units ms s m h d w M Q y, such as -7d, -1M or +1h (got "-7x")',
    ],
    ['-1d', 'shift moves the window beyond the times a point can have (got "-1d")'],
  ])('refuses %s naming the argument', async (shift, message) => {
    const got = await ask(shift, shift === '-1d' ? -8.64e15 : 0);
    expect(got.body.errors?.map((e) => [e.message, e.extensions?.code])).toEqual([[message, 'BAD_USER_INPUT']]);
  });
});

function hourIso(base: number, hours: number): string {
  return new Date(base + hours * HOUR).toISOString();
}
