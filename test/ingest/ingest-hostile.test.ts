/**
 * What a hostile or broken sender gets from the ingest endpoints: binary garbage, huge lines, bodies over the limit
 * as sent and as inflated, each answered in the protocol's own form with nothing written, and the process answering
 * /health at once throughout.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import snappy from 'snappyjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

let store: EmbeddedStore;
let small: TestGateway;
let gateway: TestGateway;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  small = await startGateway(store, { REST_MAX_BODY_BYTES: '4096' });
  gateway = await startGateway(store);
});

afterAll(async () => {
  await small?.close();
  await gateway?.close();
  await store?.close();
  removeTempDirs();
});

async function post(url: string, path: string, body: Uint8Array | string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers, body: Buffer.from(body) });
  return { status: response.status, body: await response.text() };
}

async function metricNames(): Promise<unknown> {
  return (await gateway.graphql('{ metricNames }')).body;
}

/** /health's time while `during` runs: the event loop must stay free. */
async function healthWhile(during: Promise<unknown>): Promise<number> {
  const started = performance.now();
  const health = await fetch(`${gateway.url}/health`);
  const ms = performance.now() - started;
  expect(health.status).toBe(200);
  await during;
  return ms;
}

it('answers binary garbage as a partial write naming at most ten lines, writing nothing', async () => {
  // Bytes of a fixed generator, not randomBytes: random ones began with a newline or `#` now and then, and line 1 was
  // then empty or a comment, not the first line rejected.
  let x = 0x2545f491;
  const bytes = (n: number) =>
    Buffer.from(
      Array.from({ length: n }, (_, k) => {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        return k === 0 ? 0xff : x & 0xff;
      }),
    );
  const garbage = Buffer.concat(
    Array.from({ length: 40 }, (_, i) => Buffer.concat([bytes(200), Buffer.from(`\n${i}\u0000 v=1\n`)])),
  );
  const before = await metricNames();
  const got = await post(gateway.url, '/api/v2/write', garbage);
  expect(got.status).toBe(400);
  const { code, message } = JSON.parse(got.body) as { code: string; message: string };
  expect(code).toBe('invalid');
  expect(message).toMatch(/^partial write: \d+ lines rejected, 0 lines written: line 1: /);
  expect(message).toMatch(/; and \d+ lines more$/);
  expect((message.match(/; line \d+:/g) ?? []).length).toBe(9);
  expect(await metricNames()).toEqual(before);
});

it('answers a line of 200,000 tags, and one 4 MB line of garbage, at once and without writing', async () => {
  const tags = Array.from({ length: 200_000 }, (_, i) => `t${i}=v`).join(',');
  const many = post(gateway.url, '/write', `wide,${tags} v=1 0`);
  expect(await healthWhile(many)).toBeLessThan(1000);
  const wide = await many;
  expect(wide.status).toBe(400);
  expect(JSON.parse(wide.body)).toEqual({
    error: `partial write: 1 line rejected, 0 lines written: line 1: unable to parse '${`wide,${tags}`.slice(0, 64)}…': the measurement and tags are longer than 65535 characters`,
  });
  const long = await post(gateway.url, '/write', 'x'.repeat(4_000_000));
  expect(JSON.parse(long.body)).toEqual({
    error: `partial write: 1 line rejected, 0 lines written: line 1: unable to parse '${'x'.repeat(64)}…': missing fields`,
  });
});

it("refuses bodies over REST_MAX_BODY_BYTES, as sent and as inflated, in each protocol's form", async () => {
  expect(await post(small.url, '/api/v2/write', 'm v=1\n'.repeat(1000))).toEqual({
    status: 413,
    body: '{"code":"request too large","message":"request body exceeds 4096 bytes (REST_MAX_BODY_BYTES)"}',
  });
  expect(
    await post(small.url, '/write', gzipSync(Buffer.from('m v=1\n'.repeat(100_000))), { 'content-encoding': 'gzip' }),
  ).toEqual({
    status: 413,
    body: '{"error":"inflated request body exceeds 4096 bytes (REST_MAX_BODY_BYTES)"}',
  });
  const headers = { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf' };
  expect(await post(small.url, '/prometheus/kairosdb/api/v1/write', randomBytes(5000), headers)).toEqual({
    status: 413,
    body: 'request body exceeds 4096 bytes (REST_MAX_BODY_BYTES)\n',
  });
  // Zeros compress well: a body within the limit that would inflate to 64 KiB.
  expect(
    await post(small.url, '/prometheus/kairosdb/api/v1/write', snappy.compress(new Uint8Array(1 << 16)), headers),
  ).toEqual({
    status: 413,
    body: 'snappy: the body declares 65536 bytes uncompressed, over the limit of 4096 (REST_MAX_BODY_BYTES)\n',
  });
});

it('answers remote write garbage 400 and keeps serving', async () => {
  const headers = { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf' };
  for (let i = 0; i < 20; i++) {
    // A preamble declaring 100 bytes, then noise: snappy's or protobuf's error, never a 413.
    const noise = Buffer.concat([Buffer.from([100]), randomBytes(100 + i * 50)]);
    const got = await post(gateway.url, '/prometheus/kairosdb/api/v1/write', noise, headers);
    expect(got.status).toBe(400);
    expect(got.body).toMatch(/^(snappy|protobuf): /);
  }
  expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
});

it("holds a sender over the gateway's turns back: its body waits in the socket, or it is told to retry later", async () => {
  const one = await startGateway(store, { MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUED_REQUESTS: '0' });
  try {
    // A write that has its turn but has not sent its whole body yet.
    const slow = request(`${one.url}/write?precision=ms`, { method: 'POST' });
    const answered = new Promise<number>((resolve) => slow.on('response', (res) => resolve(res.statusCode ?? 0)));
    slow.write('turns,h=a v=1 1\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await fetch(`${one.url}/api/v2/write`, { method: 'POST', body: 'turns,h=b v=1 1' });
    expect([refused.status, refused.headers.get('retry-after'), await refused.json()]).toEqual([
      503,
      '1',
      {
        code: 'unavailable',
        message:
          'the server is overloaded: 1 of 1 requests running and 0 of 0 waiting (MAX_CONCURRENT_REQUESTS, MAX_QUEUED_REQUESTS); retry in 1 s',
      },
    ]);
    slow.end('turns,h=a v=2 2\n');
    expect(await answered).toBe(204);
    expect(await (await fetch(`${one.url}/api/v2/write`, { method: 'POST', body: 'turns,h=b v=1 1' })).status).toBe(
      204,
    );
  } finally {
    await one.close();
  }
});
