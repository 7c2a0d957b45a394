/**
 * Compressed answers over real HTTP, read as raw bytes: GraphQL and REST answers in gzip and brotli decompress to
 * exactly the identity answer, with the headers each needs; small answers, clients without Accept-Encoding, bodiless
 * answers and COMPRESSION=false get identity.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const T0 = 1_700_000_000_000;
const POINTS = 5_000;

let store: EmbeddedStore;
let gw: TestGateway | undefined;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir('kairograph-compression-') });
  const timestamps = Array.from({ length: POINTS }, (_, i) => T0 + i * 10_000);
  await store.write({
    series: ['web-01', 'web-02'].map((host, h) => ({
      metric: 'cpu',
      tags: { host },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps,
      values: timestamps.map((_, i) => ((h + 1) * i) / 7),
    })),
  });
});
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});
afterAll(async () => {
  await store.close();
  removeTempDirs();
});

async function gateway(env: Record<string, string> = {}): Promise<TestGateway> {
  gw = await startGateway(store, env);
  return gw;
}

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The bytes as sent: compressed when the answer says so. */
  readonly body: Buffer;
}

/** One request with node:http, which sends no Accept-Encoding of its own and decodes nothing. */
function raw(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const DECOMPRESS = { gzip: gunzipSync, br: brotliDecompressSync } as const;

/** Every point of both series: about 250 KB of REST, 400 KB of GraphQL. */
const LARGE_REST = JSON.stringify({
  start_absolute: T0,
  metrics: [{ name: 'cpu', group_by: [{ name: 'tag', tags: ['host'] }] }],
});
const LARGE_GRAPHQL = JSON.stringify({
  query: `{ points(metric: "cpu", from: ${T0}) { host: tag(name: "host") points { epochMs value } } }`,
});
const SMALL_REST = JSON.stringify({
  start_absolute: T0,
  metrics: [{ name: 'cpu', aggregators: [{ name: 'max', sampling: { value: 1, unit: 'years' } }] }],
});
const SMALL_GRAPHQL = JSON.stringify({ query: '{ metricNames }' });
const GRAPHQL_HEADERS = { accept: 'application/json' };

/** A GraphQL answer's text up to its extensions (statistics: timings and a request id differ between requests). */
function withoutExtensions(text: string): string {
  const at = text.indexOf(',"extensions":');
  return at < 0 ? text : `${text.slice(0, at)}}`;
}

describe('compressed answers', () => {
  it.each(['gzip', 'br'] as const)(
    'REST: a large answer in %s decompresses to exactly the identity answer, KairosDB headers kept',
    async (coding) => {
      const g = await gateway();
      const identity = await raw(
        g.url,
        'POST',
        '/api/v1/datapoints/query',
        { 'accept-encoding': 'identity', 'x-request-id': 'same' },
        LARGE_REST,
      );
      expect(identity.status).toBe(200);
      expect(identity.body.length).toBeGreaterThan(200_000);
      expect(identity.headers['content-length']).toBe(String(identity.body.length));
      expect(identity.headers['vary']).toBe('Accept-Encoding');
      expect(identity.headers['content-encoding']).toBeUndefined();

      const compressed = await raw(
        g.url,
        'POST',
        '/api/v1/datapoints/query',
        { 'accept-encoding': `${coding}`, 'x-request-id': 'same' },
        LARGE_REST,
      );
      expect(compressed.status).toBe(200);
      const { date: _, ...headers } = compressed.headers;
      expect(headers).toEqual({
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'content-encoding': coding,
        'content-type': 'application/json; charset=UTF-8',
        expires: '0',
        'keep-alive': 'timeout=65',
        pragma: 'no-cache',
        // Compressed as it was written: its length is known when it goes.
        'content-length': String(compressed.body.length),
        vary: 'Accept-Encoding',
        'x-request-id': 'same',
      });
      expect(compressed.body.length).toBeLessThan(identity.body.length / 3);
      expect(DECOMPRESS[coding](compressed.body)).toEqual(identity.body);
    },
  );

  it.each(['gzip', 'br'] as const)(
    'GraphQL: a large answer in %s decompresses to exactly the identity answer',
    async (coding) => {
      const g = await gateway();
      const identity = await raw(
        g.url,
        'POST',
        '/graphql',
        { ...GRAPHQL_HEADERS, 'accept-encoding': 'identity' },
        LARGE_GRAPHQL,
      );
      expect(identity.status).toBe(200);
      expect(identity.body.length).toBeGreaterThan(300_000);
      expect(identity.headers['content-length']).toBe(String(identity.body.length));
      expect(identity.headers['vary']).toBe('Accept-Encoding');

      const compressed = await raw(
        g.url,
        'POST',
        '/graphql',
        {
          ...GRAPHQL_HEADERS,
          'accept-encoding': `gzip;q=${coding === 'gzip' ? 1 : 0.5}, br;q=${coding === 'br' ? 1 : 0.5}`,
        },
        LARGE_GRAPHQL,
      );
      expect(compressed.status).toBe(200);
      expect(compressed.headers['content-encoding']).toBe(coding);
      expect(compressed.headers['vary']).toBe('Accept-Encoding');
      expect(compressed.headers['content-length']).toBe(String(compressed.body.length));
      expect(compressed.headers['transfer-encoding']).toBeUndefined();
      expect(compressed.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(compressed.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(compressed.body.length).toBeLessThan(identity.body.length / 3);
      const text = DECOMPRESS[coding](compressed.body).toString('utf8');
      expect(withoutExtensions(text)).toBe(withoutExtensions(identity.body.toString('utf8')));
      expect(JSON.parse(text).extensions.statistics.queries[0].pointsReturned).toBe(2 * POINTS);
    },
  );

  it('adds no more listeners to a response than Node allows without a leak warning, on either front end', async () => {
    const g = await gateway();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      for (const coding of ['gzip', 'br']) {
        expect(
          (await raw(g.url, 'POST', '/api/v1/datapoints/query', { 'accept-encoding': coding }, LARGE_REST)).headers[
            'content-encoding'
          ],
        ).toBe(coding);
        expect(
          (await raw(g.url, 'POST', '/graphql', { ...GRAPHQL_HEADERS, 'accept-encoding': coding }, LARGE_GRAPHQL))
            .headers['content-encoding'],
        ).toBe(coding);
      }
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('sends small answers as they are, without Vary, whatever the client accepts', async () => {
    const g = await gateway();
    for (const coding of ['gzip', 'br']) {
      const rest = await raw(g.url, 'POST', '/api/v1/datapoints/query', { 'accept-encoding': coding }, SMALL_REST);
      expect(rest.status).toBe(200);
      expect([rest.headers['content-encoding'], rest.headers['vary'], rest.headers['content-length']]).toEqual([
        undefined,
        undefined,
        String(rest.body.length),
      ]);
      expect(JSON.parse(rest.body.toString('utf8'))).toMatchObject({ queries: [{ sample_size: 2 * POINTS }] });
      const graphql = await raw(
        g.url,
        'POST',
        '/graphql',
        { ...GRAPHQL_HEADERS, 'accept-encoding': coding },
        SMALL_GRAPHQL,
      );
      expect([graphql.headers['content-encoding'], graphql.headers['vary'], graphql.headers['content-length']]).toEqual(
        [undefined, undefined, String(graphql.body.length)],
      );
      expect(JSON.parse(graphql.body.toString('utf8')).data).toEqual({ metricNames: ['cpu'] });
    }
  });

  it('sends identity to a client without Accept-Encoding, or one that refuses both codings', async () => {
    const g = await gateway();
    for (const headers of [{}, { 'accept-encoding': 'deflate' }, { 'accept-encoding': 'gzip;q=0, br;q=0' }] as Record<
      string,
      string
    >[]) {
      const rest = await raw(g.url, 'POST', '/api/v1/datapoints/query', headers, LARGE_REST);
      expect([
        rest.status,
        rest.headers['content-encoding'],
        rest.headers['vary'],
        rest.headers['content-length'],
      ]).toEqual([200, undefined, 'Accept-Encoding', String(rest.body.length)]);
      const graphql = await raw(g.url, 'POST', '/graphql', { ...GRAPHQL_HEADERS, ...headers }, LARGE_GRAPHQL);
      expect([
        graphql.status,
        graphql.headers['content-encoding'],
        graphql.headers['vary'],
        graphql.headers['content-length'],
      ]).toEqual([200, undefined, 'Accept-Encoding', String(graphql.body.length)]);
    }
  });

  it('leaves bodiless answers alone (204, HEAD, preflights) and REST errors too', async () => {
    const g = await gateway({ COMPRESSION_MIN_BYTES: '0' });
    const write = await raw(
      g.url,
      'POST',
      '/api/v1/datapoints',
      { 'accept-encoding': 'gzip' },
      JSON.stringify([{ name: 'other', tags: { host: 'a' }, datapoints: [[T0, 1]] }]),
    );
    expect([write.status, write.headers['content-encoding'], write.body.length]).toEqual([204, undefined, 0]);
    const head = await raw(g.url, 'HEAD', '/graphql', { 'accept-encoding': 'gzip', accept: 'text/html' });
    expect([head.headers['content-encoding'], head.body.length]).toEqual([undefined, 0]);
    const preflight = await raw(g.url, 'OPTIONS', '/api/v1/datapoints/query', {
      'accept-encoding': 'gzip',
      origin: g.url,
      'access-control-request-method': 'POST',
    });
    expect([preflight.status, preflight.headers['content-encoding'], preflight.body.length]).toEqual([
      204,
      undefined,
      0,
    ]);
    // With no threshold every answer goes compressed; REST's error messages, always a line or two, never do.
    const version = await raw(g.url, 'GET', '/api/v1/version', { 'accept-encoding': 'gzip' });
    expect([version.status, version.headers['content-encoding']]).toEqual([200, 'gzip']);
    expect(JSON.parse(gunzipSync(version.body).toString('utf8')).version).toMatch(/^KairosDB 1\.3\.0-1 \(Kairograph /);
    const error = await raw(g.url, 'POST', '/api/v1/datapoints/query', { 'accept-encoding': 'gzip' }, '{');
    expect([error.status, error.headers['content-encoding'], error.headers['content-length']]).toEqual([
      400,
      undefined,
      String(error.body.length),
    ]);
    // Yoga's own pages go compressed too, with their length, and say once that they vary.
    const graphiql = await raw(g.url, 'GET', '/graphql', { 'accept-encoding': 'br', accept: 'text/html' });
    expect([
      graphiql.status,
      graphiql.headers['content-encoding'],
      graphiql.headers['content-length'],
      graphiql.headers['vary'],
    ]).toEqual([200, 'br', String(graphiql.body.length), 'Accept-Encoding']);
    expect(brotliDecompressSync(graphiql.body).toString('utf8')).toContain('<title>');
  });

  it('compresses nothing with COMPRESSION=false', async () => {
    const g = await gateway({ COMPRESSION: 'false' });
    const rest = await raw(g.url, 'POST', '/api/v1/datapoints/query', { 'accept-encoding': 'gzip, br' }, LARGE_REST);
    expect([rest.headers['content-encoding'], rest.headers['vary'], rest.headers['content-length']]).toEqual([
      undefined,
      undefined,
      String(rest.body.length),
    ]);
    const graphql = await raw(
      g.url,
      'POST',
      '/graphql',
      { ...GRAPHQL_HEADERS, 'accept-encoding': 'gzip, br' },
      LARGE_GRAPHQL,
    );
    expect([graphql.headers['content-encoding'], graphql.headers['vary'], graphql.headers['content-length']]).toEqual([
      undefined,
      undefined,
      String(graphql.body.length),
    ]);
  });
});
