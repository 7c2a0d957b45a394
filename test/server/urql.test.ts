/**
 * urql (`@urql/core`) as a front end sets it up, against a real gateway: queries through its fetchExchange, the
 * project's persisted operations through `@urql/exchange-persisted` (the manifest's ids by `generateHash`), and
 * liveSeries through `subscriptionExchange` over both of its transports, the graphql-sse client and graphql-ws's
 * client, each receiving the snapshot then an update after a write; and a wrong token as urql reports it on each.
 */
import { Client, type CombinedError, type Exchange, fetchExchange, gql, subscriptionExchange } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LiveSeriesDocument, MetricCatalogDocument } from '../../src/generated/operations/graphql.js';
import {
  type ClientGateway,
  manifestHash,
  READER,
  snapshotOfFixture,
  startClientGateway,
  updateOf,
  WRONG,
} from '../support/client-gateway.js';

let fixture: ClientGateway;
const stops: (() => void)[] = [];

beforeAll(async () => {
  fixture = await startClientGateway(['urql.sse', 'urql.ws']);
});

afterAll(async () => {
  for (const stop of stops) stop();
  await fixture?.close();
});

type Transport = 'sse' | 'ws';

/** urql's subscription transport over graphql-sse's or graphql-ws's client, as urql's docs wire them. */
function transport(kind: Transport, token: string): Exchange {
  const sse =
    kind === 'sse'
      ? createSseClient({
          url: `${fixture.gw.url}/graphql`,
          headers: { authorization: `Bearer ${token}` },
          retryAttempts: 0,
        })
      : undefined;
  const ws =
    kind === 'ws'
      ? createWsClient({
          url: fixture.wsUrl,
          webSocketImpl: WebSocket,
          connectionParams: { Authorization: `Bearer ${token}` },
          retryAttempts: 0,
        })
      : undefined;
  stops.push(() => {
    sse?.dispose();
    void ws?.dispose();
  });
  return subscriptionExchange({
    forwardSubscription(request) {
      // A persisted operation has no text; both clients want a string.
      const input = { ...request, query: request.query ?? '' };
      return {
        subscribe: (sink) => ({ unsubscribe: sse ? sse.subscribe(input, sink) : ws!.subscribe(input, sink) }),
      };
    },
  });
}

function urql(kind: Transport, token: string, persisted = false): Client {
  return new Client({
    url: `${fixture.gw.url}/graphql`,
    // GET is what the persisted exchange prefers for a query (cacheable), and a GET must say it is no cross-site form.
    fetchOptions: { headers: { authorization: `Bearer ${token}`, 'x-graphql-yoga-csrf': '1' } },
    exchanges: [
      ...(persisted
        ? [
            persistedExchange({
              // The manifest's id, not a hash of urql's own print of the document (see manifestHash).
              generateHash: async (_query, document) => manifestHash(document),
              enforcePersistedQueries: true,
              enableForSubscriptions: true,
            }),
          ]
        : []),
      transport(kind, token),
      fetchExchange,
    ],
  });
}

/** urql's results of a subscription, pulled one at a time. */
function watch(client: Client, metric: string) {
  const seen: { data?: unknown; error?: CombinedError }[] = [];
  const { unsubscribe } = client.subscription(LiveSeriesDocument, { metric }).subscribe((result) => seen.push(result));
  stops.push(unsubscribe);
  return {
    async next(): Promise<{ data?: unknown; error?: CombinedError }> {
      await expect.poll(() => seen.length, { timeout: 5_000 }).toBeGreaterThan(0);
      return seen.shift()!;
    },
    unsubscribe,
  };
}

describe.each(['sse', 'ws'] as const)('urql with its %s transport', (kind) => {
  const metric = `urql.${kind}`;

  it('runs a query through its fetchExchange', async () => {
    const result = await urql(kind, READER).query(gql`{ metricNames(prefix: "urql.") }`, {}).toPromise();
    expect(result.error).toBeUndefined();
    expect(result.data).toEqual({ metricNames: ['urql.sse', 'urql.ws'] });
  });

  it('runs the persisted MetricCatalog by its manifest id (a GET with the hash only)', async () => {
    const result = await urql(kind, READER, true).query(MetricCatalogDocument, { prefix: 'urql.' }).toPromise();
    expect(result.error).toBeUndefined();
    expect(result.data).toEqual({ metricNames: ['urql.sse', 'urql.ws'], hosts: ['a'] });
    expect(result.operation.context.preferGetMethod).toBe('within-url-limit');
    expect(result.operation.extensions).toEqual({
      persistedQuery: { version: 1, sha256Hash: manifestHash(MetricCatalogDocument) },
    });
  });

  it("registers a query by APQ: urql's own hash is not found, it retries with the text, then the hash alone runs", async () => {
    /** Whether each request urql sent carried the query's text. */
    const sent: boolean[] = [];
    const apq = () =>
      new Client({
        url: `${fixture.gw.url}/graphql`,
        fetchOptions: { headers: { authorization: `Bearer ${READER}`, 'x-graphql-yoga-csrf': '1' } },
        fetch: (input, init) => {
          sent.push(typeof init?.body === 'string' && JSON.parse(init.body).query !== undefined);
          return fetch(input, init);
        },
        // urql's default: the sha256 of its own print of the document, which no manifest holds.
        exchanges: [persistedExchange({ preferGetForPersistedQueries: false }), fetchExchange],
      });
    const query = gql`{ apq${kind}: metricNames(prefix: "urql.${kind}") }`;
    const answer = { [`apq${kind}`]: [`urql.${kind}`] };
    const first = await apq().query(query, {}).toPromise();
    expect([first.error, first.data]).toEqual([undefined, answer]);
    // The hash alone, refused as PersistedQueryNotFound; then the text with it, which registers it.
    expect(sent).toEqual([false, true]);
    // A new client's first request is the hash alone, and the gateway knows it now.
    const again = await apq().query(query, {}).toPromise();
    expect([again.error, again.data]).toEqual([undefined, answer]);
    expect(sent).toEqual([false, true, false]);
  });

  it('subscribes to the persisted LiveSeries: the snapshot, then an update after a write', async () => {
    const live = watch(urql(kind, READER, true), metric);
    const snapshot = await live.next();
    expect(snapshot.error).toBeUndefined();
    expect(snapshot.data).toEqual({ liveSeries: snapshotOfFixture });
    await fixture.write(metric, kind === 'sse' ? 11 : 12);
    expect((await live.next()).data).toEqual({ liveSeries: updateOf(kind === 'sse' ? 11 : 12) });
    live.unsubscribe();
    await expect.poll(() => fixture.gw.gateway.live.subscriptions).toBe(0);
  });
});

it("reports a wrong token on a query as urql's CombinedError with the gateway's GraphQL error and the 401", async () => {
  const result = await urql('sse', WRONG).query(gql`{ metricNames }`, {}).toPromise();
  expect(result.data).toBeUndefined();
  expect(result.error?.message).toBe('[GraphQL] the token is not valid');
  expect(result.error?.graphQLErrors.map((error) => error.extensions)).toEqual([{ code: 'UNAUTHENTICATED' }]);
  expect((result.error!.response as Response).status).toBe(401);
});

it("reports a wrong token on the SSE transport as a network error with graphql-sse's message", async () => {
  const refused = await watch(urql('sse', WRONG), 'urql.sse').next();
  expect(refused.data).toBeUndefined();
  expect(refused.error?.message).toBe('[Network] Server responded with 401: Unauthorized');
});

it('reports a wrong token on the WebSocket transport as a network error carrying the 4401 close', async () => {
  const refused = await watch(urql('ws', WRONG), 'urql.ws').next();
  expect(refused.data).toBeUndefined();
  expect(refused.error?.networkError).toMatchObject({ code: 4401, reason: 'UNAUTHENTICATED: the token is not valid' });
});
