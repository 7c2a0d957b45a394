/**
 * The WebSocket transport's bounds, with the real graphql-ws client against a real gateway: PERSISTED_ONLY on the
 * socket (a manifest hash runs, text from a client without credentials is refused), MAX_WEBSOCKETS refusing an
 * upgrade with 503, WEBSOCKET_MAX_OPERATIONS refusing an operation, and the gateway's stop closing sockets with 1001.
 */
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

/** operations/'s MetricCatalog, in the built-in manifest. */
const CATALOG = '99d28c20b39e1688dff85e26e5fe1dc60b82c680bc96d6aa3176616d6abe3ba7';
const LIVE = 'subscription { liveSeries(metric: "limits", from: "now-10m") { kind } }';

let store: EmbeddedStore;
let gw: TestGateway;
let socket: Client;
let holding: () => void;
let stopped = false;
const closes: number[] = [];

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  // Loopback without credentials: requests without them have every scope.
  gw = await startGateway(store, { MAX_WEBSOCKETS: '1', WEBSOCKET_MAX_OPERATIONS: '1', LIVE_POLL_MS: '600000' });
  socket = createClient({
    url: `${gw.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    on: { closed: (event) => void closes.push((event as { code: number }).code) },
  });
});

afterAll(async () => {
  // The last test stops the gateway itself.
  if (!stopped) await gw?.close();
  await store?.close();
  removeTempDirs();
});

/** The first thing an operation gets: its result or its errors. */
function first(payload: { query?: string; extensions?: Record<string, unknown> }, on = socket): Promise<unknown> {
  return new Promise((resolve) => {
    const stop = on.subscribe(payload as { query: string }, {
      next: (result) => {
        stop();
        resolve(result);
      },
      error: (error) => resolve({ refused: error }),
      complete: () => undefined,
    });
  });
}

it('runs a persisted operation by its hash under PERSISTED_ONLY, and refuses text from a client without credentials', async () => {
  const persistedOnly = await startGateway(store, { PERSISTED_ONLY: 'true' });
  const client = createClient({
    url: `${persistedOnly.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
  });
  try {
    // graphql-ws requires a query string: a hash goes with an empty one, as persisted-query links send it.
    expect(
      await first({ query: '', extensions: { persistedQuery: { version: 1, sha256Hash: CATALOG } } }, client),
    ).toMatchObject({
      data: { metricNames: [], hosts: [] },
    });
    expect(await first({ query: '{ metricNames }' }, client)).toEqual({
      refused: [
        {
          message:
            "this gateway accepts only persisted operations (extensions.persistedQuery.sha256Hash); full query text needs credentials (connection_init's Authorization: Bearer, or x-kairograph-token)",
          extensions: { code: 'PERSISTED_QUERY_ONLY' },
        },
      ],
    });
  } finally {
    await client.dispose();
    await persistedOnly.close();
  }
});

it('refuses a socket past MAX_WEBSOCKETS with 503 OVERLOADED', async () => {
  // The one socket allowed, open.
  expect(await first({ query: '{ metricNames }' })).toMatchObject({ data: { metricNames: [] } });
  const answer = await new Promise<{ status: number; body: string }>((resolve) => {
    const other = new WebSocket(`${gw.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    other.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    other.on('error', () => undefined);
  });
  expect(answer.status).toBe(503);
  expect(JSON.parse(answer.body).errors[0]).toMatchObject({
    message:
      'the server is overloaded: the gateway serves 1 WebSockets, its MAX_WEBSOCKETS; subscribe over SSE meanwhile; retry in 5 s',
    extensions: { code: 'OVERLOADED' },
  });
  // Logged and counted as any refused request.
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  expect(metrics).toContain('kairograph_errors_total{api="graphql",code="OVERLOADED"} 1');
  expect(metrics).toContain(
    'kairograph_http_requests_total{api="graphql",route="/graphql",method="GET",status="503",source=""} 1',
  );
});

it('refuses an operation past WEBSOCKET_MAX_OPERATIONS while another runs', async () => {
  const snapshot = new Promise<unknown>((resolve) => {
    holding = socket.subscribe({ query: LIVE }, { next: resolve, error: resolve, complete: () => undefined });
  });
  expect(await snapshot).toMatchObject({ data: { liveSeries: { kind: 'SNAPSHOT' } } });
  // /metrics shows the socket and its one operation under way.
  const gauges = await (await fetch(`${gw.url}/metrics`)).text();
  expect(gauges.split('\n').filter((line) => line.startsWith('kairograph_websocket'))).toEqual([
    'kairograph_websockets 1',
    'kairograph_websocket_operations 1',
  ]);
  expect(await first({ query: '{ metricNames }' })).toEqual({
    refused: [
      {
        message:
          'the server is overloaded: this socket already runs 1 operations, its WEBSOCKET_MAX_OPERATIONS; complete one or open another socket; retry in 1 s',
        extensions: { code: 'OVERLOADED' },
      },
    ],
  });
  holding();
  await expect.poll(() => gw.gateway.live.subscriptions).toBe(0);
  expect(gw.gateway.webSockets.operations).toBe(0);
  expect(await first({ query: '{ metricNames }' })).toMatchObject({ data: { metricNames: [] } });
});

it('closes its sockets with 1001 when the gateway stops', async () => {
  stopped = true;
  await gw.close();
  await expect.poll(() => closes).toContain(1001);
});
