/**
 * liveSeries over real HTTP (Server-Sent Events, as GraphiQL and graphql-sse clients subscribe): the initial answer,
 * then a point written through the REST API arriving within a second as an update of its bucket; identical
 * subscriptions sharing one computation per poll (counted); a client that stops reading costing the server no more
 * than its socket's buffers (measured); MAX_SUBSCRIPTIONS refusing with its code.
 */
import { writeFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashSecret } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway } from '../support/gateway.js';
import { subscribe, type SseEvent, type Subscription } from '../support/sse.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const MINUTE = 60_000;
let store: EmbeddedStore;
const startedMs = Date.now();
/** Ten minutes of 1-second points of two hosts, ending now. */
const SERIES = ['a', 'b'].map((host, h) => ({
  metric: 'live.load',
  tags: { host },
  type: 'double' as const,
  ttlSeconds: 0,
  timestamps: Array.from({ length: 600 }, (_, i) => Math.floor(startedMs / 1000) * 1000 - (599 - i) * 1000),
  values: Array.from({ length: 600 }, (_, i) => h + i / 100),
}));

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  await store.write({ series: SERIES });
});
afterAll(async () => {
  await store?.close();
  removeTempDirs();
});

interface Change {
  key: string;
  from: string | null;
  series: { tag: string | null; points: { epochMs: number; value: number }[] };
}
const changesOf = (event: SseEvent) =>
  (event.data as { liveSeries: { kind: string; changes: Change[]; removed: string[] } }).liveSeries;

const SUMS = `subscription ($from: Time!) {
  liveSeries(metric: "live.load", from: $from, groupBy: { tags: ["host"] },
             aggregators: [{ sum: { sampling: { value: 1, unit: MINUTES }, alignStartTime: true } }]) {
    kind from to removed
    changes { key from series { tag(name: "host") points { epochMs value } } }
  }
}`;

it('sends the initial answer, then a point written through the REST API within a second, as an update of its bucket', async () => {
  // Polls far apart: what arrives within a second was pushed by the write.
  const gw = await startGateway(store, { LIVE_POLL_MS: '600000' });
  const sub = await subscribe(gw.url, SUMS, { from: 'now-5m' });
  try {
    expect(sub.status).toBe(200);
    const initial = await sub.next();
    const snapshot = changesOf(initial);
    expect(snapshot.kind).toBe('SNAPSHOT');
    expect(snapshot.changes.map((c) => [c.series.tag, c.from])).toEqual([
      ['a', null],
      ['b', null],
    ]);
    const b = snapshot.changes[1]!.series.points;
    const last = b.at(-1)!;
    expect(initial.extensions?.['statistics']).toMatchObject({
      queries: [{ path: 'liveSeries', metric: 'live.load', seriesMatched: 2 }],
    });

    const t = Math.max(Date.now(), last.epochMs + 1);
    const bucket = Math.floor(t / MINUTE) * MINUTE;
    const written = performance.now();
    const response = await fetch(`${gw.url}/api/v1/datapoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ name: 'live.load', tags: { host: 'b' }, datapoints: [[t, 1000]] }]),
    });
    expect(response.status).toBe(204);
    const update = changesOf(await sub.next(1000));
    expect(performance.now() - written).toBeLessThan(1000);
    expect(update.kind).toBe('UPDATE');
    // Only host b changed, from its bucket on: the open bucket replaced, or a new one appended.
    expect(update.changes.map((c) => [c.series.tag, c.from])).toEqual([['b', new Date(bucket).toISOString()]]);
    const before = bucket === last.epochMs ? last.value : 0;
    // Sums are compensated: 388.89 + 1000 is 1388.89 there, where plain addition gives 1388.8899999999999.
    expect(update.changes[0]!.series.points).toEqual([{ epochMs: bucket, value: expect.closeTo(before + 1000, 9) }]);
  } finally {
    sub.close();
    await gw.close();
  }
});

it('serves 200 subscriptions of 10 distinct queries with 10 computations per poll, and refuses one past MAX_SUBSCRIPTIONS', async () => {
  const gw = await startGateway(store, { LIVE_POLL_MS: '300', MAX_SUBSCRIPTIONS: '200', QUOTA_SUBSCRIPTIONS: '0' });
  const subs: Subscription[] = [];
  try {
    for (let i = 0; i < 200; i++)
      subs.push(
        await subscribe(gw.url, SUMS.replace('value: 1, unit: MINUTES', `value: ${(i % 10) + 1}, unit: MINUTES`), {
          from: 'now-5m',
        }),
      );
    const initial = await Promise.all(subs.map((s) => s.next(20_000)));
    expect(initial.every((e) => changesOf(e).kind === 'SNAPSHOT')).toBe(true);
    const live = gw.gateway.live;
    expect([live.subscriptions, live.queries]).toEqual([200, 10]);

    const refused = await subscribe(gw.url, SUMS, { from: 'now-5m' });
    expect(refused.status).toBe(503);
    expect((await refused.next()).errors).toEqual([
      expect.objectContaining({
        message:
          'the gateway already serves 200 live subscriptions, its MAX_SUBSCRIPTIONS; close one or raise MAX_SUBSCRIPTIONS',
        extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
      }),
    ]);

    const [polls, runs] = [live.polls, live.runs];
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const [dPolls, dRuns] = [live.polls - polls, live.runs - runs];
    expect(dPolls).toBeGreaterThanOrEqual(3);
    // A run under way at either end of the measurement is counted at most once too few or too many per computation.
    expect(dRuns).toBeGreaterThanOrEqual(10 * (dPolls - 1));
    expect(dRuns).toBeLessThanOrEqual(10 * (dPolls + 1));
  } finally {
    for (const s of subs) s.close();
    await gw.close();
  }
  await expect.poll(() => gw.gateway.live.subscriptions, { timeout: 5000 }).toBe(0);
  expect(gw.gateway.live.queries).toBe(0);
});

it('holds no more than the socket buffers for a client that stops reading, then sends it the latest answer', {
  timeout: 90_000,
}, async () => {
  // Two hours of 1-second points: every write below changes the series from its first point on, so each update
  // carries the whole series (about 300 KB of JSON) and 300 of them queued would take 90 MB.
  const POINTS = 7200;
  const timestamps = Array.from(
    { length: POINTS },
    (_, i) => Math.floor(startedMs / 1000) * 1000 - (POINTS - 1 - i) * 1000,
  );
  const raw = {
    metric: 'live.raw',
    tags: { host: 'a' },
    type: 'double' as const,
    ttlSeconds: 0,
    timestamps,
    values: timestamps.map((_, i) => i / 7),
  };
  await store.write({ series: [raw] });
  const gw = await startGateway(store, { LIVE_POLL_MS: '600000' });
  const sockets: Socket[] = [];
  gw.server.on('connection', (socket: Socket) => sockets.push(socket));
  const query =
    'subscription { liveSeries(metric: "live.raw", from: "now-3h") { kind changes { from series { points { epochMs value } } } } }';
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(
      `${gw.url}/graphql`,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' } },
      resolve,
    );
    req.on('error', reject);
    req.end(JSON.stringify({ query }));
  });
  expect(res.statusCode).toBe(200);
  // The response is never read from here on: it stays paused, and its bytes wait in the kernel's buffers.
  const primary = gw.gateway.shared.sources.primary;
  const gc = exposeGc();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const WRITES = 300;
  for (let i = 0; i < WRITES; i++) {
    await primary.write({ series: [{ ...raw, timestamps: [raw.timestamps[0]!], values: [1e6 + i] }] });
    // Let the run it pushes finish before the next write.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  gc();
  const heapAfter = process.memoryUsage().heapUsed;
  const serverSocket = sockets.find((s) => s.remotePort === res.socket.localPort)!;
  const sent = serverSocket.bytesWritten + serverSocket.writableLength;
  const wouldBe = WRITES * 300_000;
  console.log(
    `stalled client: ${WRITES} writes, ${gw.gateway.live.runs} runs; ${(sent / 1e6).toFixed(1)} MB handed to its socket (the kernel's buffers) ` +
      `of ${(wouldBe / 1e6).toFixed(0)} MB of updates; heap after GC ${((heapAfter - heapBefore) / 1e6).toFixed(1)} MB more`,
  );
  expect(gw.gateway.live.runs).toBeGreaterThan(WRITES / 2);
  expect(serverSocket.writableLength).toBeLessThan(1024 * 1024);
  expect(sent).toBeLessThan(wouldBe / 5);
  expect(heapAfter - heapBefore).toBeLessThan(10e6);

  // Reading again: the buffered updates, then what it missed as one, ending with the last write's value.
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (text += chunk));
  await expect.poll(() => text.includes(`"value":${1e6 + WRITES - 1}}`), { timeout: 60_000 }).toBe(true);
  res.destroy();
  await gw.close();
});

/** V8's collector, to measure the heap that is live rather than garbage not yet collected. */
function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

it('needs the read scope to start, and takes no saveAs', async () => {
  const credentials = join(tempDir(), 'credentials.json');
  writeFileSync(
    credentials,
    JSON.stringify({ tokens: [{ name: 'viewer', hash: await hashSecret('viewer-token', 10), scopes: ['read'] }] }),
  );
  const gw = await startGateway(store, { CREDENTIALS_FILE: credentials });
  try {
    const anonymous = await subscribe(gw.url, SUMS, { from: 'now-5m' });
    expect(anonymous.status).toBe(401);
    expect((await anonymous.next()).errors).toEqual([
      expect.objectContaining({
        message:
          "liveSeries needs the read scope, which requests without credentials do not have: send a token (Authorization: Bearer or x-kairograph-token) or a user's password (HTTP Basic)",
        extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }),
      }),
    ]);
    const viewer = await subscribe(gw.url, SUMS, { from: 'now-5m' }, { authorization: 'Bearer viewer-token' });
    try {
      expect(viewer.status).toBe(200);
      expect(changesOf(await viewer.next()).kind).toBe('SNAPSHOT');
    } finally {
      viewer.close();
    }
    const saving = await subscribe(
      gw.url,
      `subscription { liveSeries(metric: "live.load", from: "now-5m", aggregators: [{ saveAs: { metricName: "copied" } }]) { kind } }`,
      undefined,
      { authorization: 'Bearer viewer-token' },
    );
    expect((await saving.next()).errors).toEqual([
      expect.objectContaining({
        message:
          'aggregators[0].saveAs is not taken by liveSeries, which runs again on every write and poll: save with `series` (got {"metricName":"copied"})',
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
      }),
    ]);
    expect(await store.metricNames('copied')).toEqual([]);
  } finally {
    await gw.close();
  }
});
