/**
 * One client cannot hold everything: a client over one of its quotas (requests running or waiting, turns held,
 * subscriptions, points read) gets 429 with Retry-After and RateLimit headers on both front ends, while another
 * client's requests, /health and the live updates of others go on.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenHash } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { callRest } from '../rest/rest-client.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { subscribe, type SseEvent } from '../support/sse.js';
import { delegatingStore } from '../support/store-wrappers.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const TOKEN = (name: string) => `kg_${name}-0123456789-0123456789-0123456789`;
const as = (name: string) => ({ authorization: `Bearer ${TOKEN(name)}` });
const NOW = Date.now();

let store: EmbeddedStore;
let credentials: string;
/** Scans of metric `slow` wait for this gate; `started` counts them. */
let gate: { open: () => void; promise: Promise<void> };
let started = 0;

function newGate(): void {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  gate = { open, promise };
  started = 0;
}

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  const timestamps = Array.from({ length: 150 }, (_, i) => NOW - 150_000 + i * 1000);
  await store.write({
    series: ['slow', 'fast'].map((metric) => ({
      metric,
      tags: { host: 'a' },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps,
      values: timestamps.map((_, i) => i),
    })),
  });
  credentials = join(tempDir(), 'credentials.json');
  writeFileSync(
    credentials,
    JSON.stringify({
      tokens: [
        { name: 'alice', hash: tokenHash(TOKEN('alice')), scopes: ['read'] },
        { name: 'bob', hash: tokenHash(TOKEN('bob')), scopes: ['read', 'write'] },
        { name: 'ops', hash: tokenHash(TOKEN('ops')), scopes: ['admin'] },
      ],
    }),
  );
});

afterAll(async () => {
  await store?.close();
  removeTempDirs();
});

async function gateway(env: Record<string, string>): Promise<TestGateway> {
  newGate();
  const gated = delegatingStore(store, {
    scan: (key, start, end, options) => {
      if (key.metric !== 'slow') return store.scan(key, start, end, options);
      started++;
      const inner = store.scan(key, start, end, options);
      return (async function* () {
        await gate.promise;
        yield* inner;
      })();
    },
  });
  return startGateway(gated, { CREDENTIALS_FILE: credentials, ...env });
}

/** A query of `metric` whose sampling makes it distinct from the others (identical queries would run once). */
const query = (metric: string, seconds: number) =>
  `{ series(metric: "${metric}", from: "now-1h", aggregators: [{ sum: { sampling: { value: ${seconds}, unit: SECONDS } } }]) { points { value } } }`;

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
};

describe('a client over its quota', () => {
  it('gets 429 for requests past QUOTA_REQUESTS, while another client, /health and live updates of others go on', async () => {
    const gw = await gateway({ QUOTA_REQUESTS: '3', LIVE_POLL_MS: '600000' });
    const live = await subscribe(
      gw.url,
      `subscription { liveSeries(metric: "fast", from: "now-1h", aggregators: [{ count: { sampling: { value: 1, unit: HOURS } } }]) { kind } }`,
      undefined,
      as('bob'),
    );
    try {
      expect((await live.next()).data).toEqual({ liveSeries: { kind: 'SNAPSHOT' } });
      // Alice's three slow queries hold three of the four turns (QUOTA_RUNNING: one fewer than MAX_CONCURRENT_REQUESTS).
      const held = [1, 2, 3].map((i) => gw.graphql(query('slow', i), undefined, as('alice')));
      await waitFor(() => started === 3);

      const fourth = await gw.graphql(query('slow', 4), undefined, as('alice'));
      expect([
        fourth.status,
        fourth.headers.get('retry-after'),
        fourth.headers.get('ratelimit'),
        fourth.headers.get('ratelimit-policy'),
        fourth.body.errors?.[0],
      ]).toEqual([
        429,
        '1',
        '"requests";r=0;t=1',
        '"requests";q=3',
        {
          message: 'this client already has 3 requests running or waiting for a turn, its QUOTA_REQUESTS; retry in 1 s',
          path: ['series'],
          locations: [{ line: 1, column: 3 }],
          extensions: { code: 'RATE_LIMITED', quota: 'requests' },
        },
      ]);
      const rest = await callRest(gw.url, 'POST', '/api/v1/datapoints/query', {
        body: { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: 'slow' }] },
        headers: as('alice'),
      });
      expect([rest.status, rest.json, rest.headers['retry-after']]).toEqual([
        429,
        {
          errors: [
            'this client already has 3 requests running or waiting for a turn, its QUOTA_REQUESTS; retry in 1 s',
          ],
        },
        '1',
      ]);

      // Bob takes the turn alice may not; /health never waits for one.
      const bob = await gw.graphql(query('fast', 1), undefined, as('bob'));
      expect([bob.status, (bob.body.data!['series'] as unknown[]).length]).toEqual([200, 1]);
      expect((await fetch(`${gw.url}/health`)).status).toBe(200);
      // Bob's subscription sees his write at once.
      const write = await callRest(gw.url, 'POST', '/api/v1/datapoints', {
        body: [{ name: 'fast', tags: { host: 'a' }, datapoints: [[Date.now(), 1]] }],
        headers: as('bob'),
      });
      expect(write.status).toBe(204);
      expect((await live.next(5000)).data).toEqual({ liveSeries: { kind: 'UPDATE' } });

      gate.open();
      expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([200, 200, 200]);
      expect((await gw.graphql(query('slow', 5), undefined, as('alice'))).status).toBe(200);
    } finally {
      gate.open();
      live.close();
      await gw.close();
    }
  });

  it('holds at most QUOTA_RUNNING turns, so another client is served while its further requests wait', async () => {
    const gw = await gateway({ QUOTA_REQUESTS: '0' });
    try {
      const waiting = [1, 2, 3, 4, 5].map((i) => gw.graphql(query('slow', i), undefined, as('alice')));
      await waitFor(() => started === 3);
      const bob = await gw.graphql(query('fast', 1), undefined, as('bob'));
      expect(bob.status).toBe(200);
      // Bob's turn came back and went to none of alice's waiting requests: she holds three, her bound.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(started).toBe(3);
      gate.open();
      expect((await Promise.all(waiting)).map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      expect(started).toBe(5);
    } finally {
      gate.open();
      await gw.close();
    }
  });

  it('gets 429 for subscriptions past QUOTA_SUBSCRIPTIONS, and another client subscribes', async () => {
    const gw = await gateway({ QUOTA_SUBSCRIPTIONS: '2', LIVE_POLL_MS: '600000' });
    const sub = (who: string, seconds: number) =>
      subscribe(
        gw.url,
        `subscription { liveSeries(metric: "fast", from: "now-1h", aggregators: [{ count: { sampling: { value: ${seconds}, unit: SECONDS } } }]) { kind } }`,
        undefined,
        as(who),
      );
    const open = [await sub('alice', 1), await sub('alice', 2)];
    try {
      const refused = await sub('alice', 3);
      const event: SseEvent = await refused.next();
      expect([refused.status, event.errors?.[0]?.message, event.errors?.[0]?.extensions?.['code']]).toEqual([
        429,
        'this client already holds 2 live subscriptions, its QUOTA_SUBSCRIPTIONS; retry in 1 s',
        'RATE_LIMITED',
      ]);
      const bob = await sub('bob', 3);
      open.push(bob);
      expect([bob.status, (await bob.next()).data]).toEqual([200, { liveSeries: { kind: 'SNAPSHOT' } }]);
      // A subscription closed gives its place back.
      open.shift()!.close();
      await waitFor(() => gw.gateway.live.subscriptions === 2);
      const again = await sub('alice', 4);
      open.push(again);
      expect(again.status).toBe(200);
    } finally {
      for (const s of open) s.close();
      await gw.close();
    }
  });

  it('gets 429 once it has read QUOTA_POINTS_READ in its period, until the period ends; others read on', async () => {
    const gw = await gateway({ QUOTA_POINTS_READ: '100', QUOTA_PERIOD_MS: '60000' });
    try {
      // Checked before a request runs, charged when it ends: the first read goes over, the next is refused.
      expect((await gw.graphql(query('fast', 10), undefined, as('alice'))).status).toBe(200);
      const refused = await gw.graphql(query('fast', 20), undefined, as('alice'));
      expect([refused.status, refused.body.errors?.[0]?.extensions, refused.headers.get('ratelimit-policy')]).toEqual([
        429,
        { code: 'RATE_LIMITED', quota: 'points' },
        '"points";q=100;w=60',
      ]);
      expect(refused.body.errors?.[0]?.message).toMatch(
        /^this client read 15\d points in its current period of 60 s, past its QUOTA_POINTS_READ of 100; retry in \d+ s$/,
      );
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(50);
      const rest = await callRest(gw.url, 'GET', '/api/v1/metricnames', { headers: as('alice') });
      expect(rest.status).toBe(429);
      expect((await gw.graphql(query('fast', 10), undefined, as('bob'))).status).toBe(200);
      const metrics = await (await fetch(`${gw.url}/metrics`, { headers: as('ops') })).text();
      expect(metrics).toContain('kairograph_refusals_total{reason="quota_points"} 2');
    } finally {
      await gw.close();
    }
  });
});
