/**
 * GraphQL over WebSocket with the real graphql-ws client (`createClient` on the `ws` package, as a Node front end
 * uses it) against a real gateway: liveSeries' snapshot then an update after a write, a query and a mutation on the
 * socket, and every refusal as the client library reports it: wrong or missing credentials (close codes), a
 * cross-site origin and a foreign Host (the upgrade refused), the subscriptions quota shared with SSE, a missing
 * scope, persisted-only text, and the gateway closing its sockets when it stops.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import type { DocumentNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LiveSeriesDocument, MetricCatalogDocument } from '../../src/generated/operations/graphql.js';
import { tokenHash } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { manifestHash } from '../support/client-gateway.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { subscribe as subscribeSse } from '../support/sse.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const TOKEN = (name: string) => `kg_${name}-0123456789-0123456789-0123456789`;
const NOW = Math.floor(Date.now() / 1000) * 1000;
const LIVE = `subscription { liveSeries(metric: "ws.load", from: "now-10m") { kind changes { from series { points { epochMs value } } } } }`;

let store: EmbeddedStore;
let gw: TestGateway;
let wsUrl: string;
const clients: Client[] = [];
const logLines: string[] = [];

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  await store.write({
    series: [
      {
        metric: 'ws.load',
        tags: { host: 'a' },
        type: 'double' as const,
        ttlSeconds: 0,
        timestamps: [NOW - 60_000, NOW - 30_000],
        values: [1, 2],
      },
    ],
  });
  const credentials = join(tempDir(), 'credentials.json');
  writeFileSync(
    credentials,
    JSON.stringify({
      tokens: [
        { name: 'alice', hash: tokenHash(TOKEN('alice')), scopes: ['read'] },
        { name: 'bob', hash: tokenHash(TOKEN('bob')), scopes: ['read', 'write'] },
      ],
    }),
  );
  gw = await startGateway(
    store,
    {
      CREDENTIALS_FILE: credentials,
      ANONYMOUS_SCOPES: '',
      LIVE_POLL_MS: '600000',
      QUOTA_SUBSCRIPTIONS: '2',
    },
    { logLines },
  );
  wsUrl = `${gw.url.replace('http', 'ws')}/graphql`;
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await gw?.close();
  await store?.close();
  removeTempDirs();
});

/** A graphql-ws client as an application makes one; `headers` only for the upgrade (a Node client can set them). */
function client(connectionParams?: Record<string, unknown>, headers?: Record<string, string>): Client {
  const made = createClient({
    url: wsUrl,
    webSocketImpl: headers
      ? class extends WebSocket {
          constructor(url: string, protocols: string[]) {
            super(url, protocols, { headers });
          }
        }
      : WebSocket,
    lazy: true,
    retryAttempts: 0,
    ...(connectionParams ? { connectionParams } : {}),
  });
  clients.push(made);
  return made;
}

/** Results of one operation, pulled one at a time; the error the client library reports when it fails. */
function operation(on: Client, query: string, variables?: Record<string, unknown>) {
  const results: FormattedExecutionResult<Record<string, unknown>, Record<string, unknown>>[] = [];
  let failure: unknown;
  let waiting: (() => void) | undefined;
  const wake = () => waiting?.();
  const stop = on.subscribe(
    { query, ...(variables ? { variables } : {}) },
    {
      next: (result) => {
        results.push(result as FormattedExecutionResult<Record<string, unknown>, Record<string, unknown>>);
        wake();
      },
      error: (error) => {
        failure = error;
        wake();
      },
      complete: wake,
    },
  );
  return {
    async next(timeoutMs = 5_000): Promise<FormattedExecutionResult<Record<string, unknown>, Record<string, unknown>>> {
      const deadline = Date.now() + timeoutMs;
      while (results.length === 0) {
        if (failure !== undefined) throw failure;
        if (Date.now() > deadline) throw new Error(`no result within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiting = resolve;
          setTimeout(resolve, 50);
        });
      }
      return results.shift()!;
    },
    async failure(timeoutMs = 5_000): Promise<unknown> {
      const deadline = Date.now() + timeoutMs;
      while (failure === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      return failure;
    },
    stop,
  };
}

const bearer = (name: string) => ({ Authorization: `Bearer ${TOKEN(name)}` });

describe('graphql-ws', () => {
  it("subscribes to liveSeries with connection_init's token: the snapshot, then an update after a write", async () => {
    const live = operation(client(bearer('alice')), LIVE);
    const snapshot = (await live.next()).data as { liveSeries: { kind: string; changes: unknown[] } };
    expect(snapshot.liveSeries).toEqual({
      kind: 'SNAPSHOT',
      changes: [
        {
          from: null,
          series: {
            points: [
              { epochMs: NOW - 60_000, value: 1 },
              { epochMs: NOW - 30_000, value: 2 },
            ],
          },
        },
      ],
    });
    const written = await gw.graphql(
      `mutation { addPoints(series: [{ metric: "ws.load", tags: [{ name: "host", value: "a" }], points: [{ time: ${NOW}, value: 3 }] }]) { points } }`,
      undefined,
      { authorization: `Bearer ${TOKEN('bob')}` },
    );
    expect(written.body).toEqual({ data: { addPoints: { points: 1 } } });
    const update = await live.next();
    expect(update.data).toEqual({
      liveSeries: {
        kind: 'UPDATE',
        changes: [{ from: new Date(NOW).toISOString(), series: { points: [{ epochMs: NOW, value: 3 }] } }],
      },
    });
    expect(update.extensions?.['statistics']).toMatchObject({ queries: [{ path: 'liveSeries', metric: 'ws.load' }] });
    live.stop();
    await expect.poll(() => gw.gateway.live.subscriptions).toBe(0);
  });

  it("runs queries and mutations on the socket, with the upgrade's Authorization header too", async () => {
    const socket = client(undefined, { authorization: `Bearer ${TOKEN('bob')}` });
    expect(await operation(socket, '{ metricNames(prefix: "ws.") }').next()).toMatchObject({
      data: { metricNames: ['ws.load'] },
    });
    const written = await operation(
      socket,
      `mutation { addPoints(series: [{ metric: "ws.other", tags: [{ name: "h", value: "a" }], points: [{ time: ${NOW}, value: 1 }] }]) { points } }`,
    ).next();
    expect(written.data).toEqual({ addPoints: { points: 1 } });
    // Each operation on a socket has its log line, as a request has.
    await expect
      .poll(() => logLines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'graphql websocket operation'))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ api: 'graphql', transport: 'websocket', principal: 'bob', operation: null }),
        ]),
      );
  });

  it('closes with 4401 for a wrong token and for none', async () => {
    const wrong = await operation(
      client({ Authorization: 'Bearer kg_wrong-0123456789-0123456789-01234' }),
      '{ metricNames }',
    ).failure();
    expect(wrong).toMatchObject({ code: 4401, reason: 'UNAUTHENTICATED: the token is not valid' });
    const none = await operation(client(), '{ metricNames }').failure();
    expect(none).toMatchObject({
      code: 4401,
      reason: 'UNAUTHENTICATED: send credentials in connection_init: {"Authorization": "Bearer <token>"}',
    });
  });

  it("runs the persisted MetricCatalog and LiveSeries by their manifest ids, with graphql-ws's required query empty", async () => {
    const socket = client(bearer('alice'));
    const byHash = (document: DocumentNode) => ({
      query: '',
      extensions: { persistedQuery: { version: 1, sha256Hash: manifestHash(document) } },
    });
    const results: unknown[] = [];
    await new Promise<void>((resolve, reject) =>
      socket.subscribe(
        { ...byHash(MetricCatalogDocument), variables: { prefix: 'ws.l' } },
        { next: (result) => results.push(result), error: reject, complete: resolve },
      ),
    );
    expect(results).toEqual([{ data: { metricNames: ['ws.load'], hosts: [] }, extensions: expect.any(Object) }]);
    const live = socket.iterate({ ...byHash(LiveSeriesDocument), variables: { metric: 'ws.load', from: 'now-10m' } });
    try {
      // The first test wrote the third point.
      expect((await live.next()).value.data).toEqual({
        liveSeries: {
          changes: [
            {
              series: {
                points: [
                  { epochMs: NOW - 60_000, value: 1 },
                  { epochMs: NOW - 30_000, value: 2 },
                  { epochMs: NOW, value: 3 },
                ],
              },
            },
          ],
          kind: 'SNAPSHOT',
        },
      });
    } finally {
      await live.return?.();
    }
  });

  it('answers a field the principal may not use with FORBIDDEN, as HTTP does', async () => {
    const denied = await operation(
      client(bearer('alice')),
      `mutation { addPoints(series: [{ metric: "ws.x", tags: [{ name: "h", value: "a" }], points: [{ time: ${NOW}, value: 1 }] }]) { points } }`,
    ).next();
    expect(denied).toMatchObject({
      data: null,
      errors: [
        {
          message: 'addPoints needs the write scope, which "alice" does not have (it has: read)',
          path: ['addPoints'],
          extensions: { code: 'FORBIDDEN' },
        },
      ],
    });
  });

  it('holds QUOTA_SUBSCRIPTIONS across SSE and WebSocket together', async () => {
    const sse = await subscribeSse(gw.url, LIVE, undefined, { authorization: `Bearer ${TOKEN('alice')}` });
    const socket = client(bearer('alice'));
    const first = operation(socket, LIVE);
    try {
      await sse.next();
      await first.next();
      const third = await operation(socket, LIVE).next();
      expect(third.errors).toEqual([
        expect.objectContaining({
          message: 'this client already holds 2 live subscriptions, its QUOTA_SUBSCRIPTIONS; retry in 1 s',
          extensions: { code: 'RATE_LIMITED', quota: 'subscriptions' },
        }),
      ]);
    } finally {
      sse.close();
      first.stop();
    }
    await expect.poll(() => gw.gateway.live.subscriptions).toBe(0);
  });
});

describe('the upgrade crosses the edge', () => {
  /** The HTTP answer to an upgrade, as `ws` reports a refused handshake. */
  async function upgrade(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`${gw.url.replace('http', 'ws')}${path}`, 'graphql-transport-ws', { headers });
      socket.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      socket.on('open', () => {
        socket.close();
        reject(new Error('the upgrade was accepted'));
      });
      socket.on('error', () => undefined);
    });
  }

  it('refuses a cross-site Origin with 403 ORIGIN_NOT_ALLOWED (cross-site WebSocket hijacking)', async () => {
    const answer = await upgrade('/graphql', { origin: 'http://evil.example' });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toEqual({
      errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'ORIGIN_NOT_ALLOWED' }) })],
    });
  });

  it('refuses a rebound Host with 403 HOST_NOT_ALLOWED, another path with 404', async () => {
    const port = new URL(gw.url).port;
    const host = await upgrade('/graphql', { host: `evil.example:${port}` });
    expect(host.status).toBe(403);
    expect(JSON.parse(host.body).errors[0].extensions.code).toBe('HOST_NOT_ALLOWED');
    const other = await upgrade('/api/v1/version', {});
    expect(other.status).toBe(404);
    expect(JSON.parse(other.body).errors[0]).toMatchObject({
      message: 'WebSockets are served on /graphql only, not on /api/v1/version',
      extensions: { code: 'NOT_FOUND' },
    });
  });

  it('accepts the same origin and a canonical form of /graphql', async () => {
    const socket = client(bearer('alice'), { origin: gw.url });
    expect((await operation(socket, '{ metricNames(prefix: "ws.load") }').next()).data).toEqual({
      metricNames: ['ws.load'],
    });
  });
});
