/**
 * The graphql-sse client (`createClient`, distinct connections mode, which yoga serves) as a Node or browser front end
 * uses it, against a real gateway: a query, the persisted MetricCatalog by hash, the persisted LiveSeries subscription
 * receiving its snapshot then an update after a write, and a wrong token as the client library reports it.
 */
import { createClient, type Client, type ExecutionResult, NetworkError, type RequestParams } from 'graphql-sse';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
const clients: Client[] = [];

beforeAll(async () => {
  fixture = await startClientGateway(['sse.load']);
});

afterAll(async () => {
  for (const client of clients) client.dispose();
  await fixture?.close();
});

function client(token: string): Client {
  const made = createClient({
    url: `${fixture.gw.url}/graphql`,
    headers: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  clients.push(made);
  return made;
}

/** A persisted operation as graphql-sse sends one: no text, the manifest's hash in the extensions. */
function persisted(hash: string, variables: Record<string, unknown>): RequestParams {
  return { query: '', variables, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } };
}

async function first(on: Client, request: RequestParams): Promise<ExecutionResult> {
  for await (const result of on.iterate(request)) return result as ExecutionResult;
  throw new Error('the operation completed without a result');
}

it('runs a query', async () => {
  expect(await first(client(READER), { query: '{ metricNames(prefix: "sse.") }' })).toEqual({
    data: { metricNames: ['sse.load'] },
    extensions: expect.any(Object),
  });
});

it('runs the persisted MetricCatalog by its manifest hash', async () => {
  const result = await first(client(READER), persisted(manifestHash(MetricCatalogDocument), { prefix: 'sse.' }));
  expect(result.data).toEqual({ metricNames: ['sse.load'], hosts: ['a'] });
  expect(result.errors).toBeUndefined();
});

it('subscribes with the persisted LiveSeries: the snapshot, then an update after a write', async () => {
  const live = client(READER).iterate(persisted(manifestHash(LiveSeriesDocument), { metric: 'sse.load' }));
  try {
    expect((await live.next()).value.data).toEqual({ liveSeries: snapshotOfFixture });
    await fixture.write('sse.load', 4);
    expect((await live.next()).value.data).toEqual({ liveSeries: updateOf(4) });
  } finally {
    await live.return?.();
  }
  await expect.poll(() => fixture.gw.gateway.live.subscriptions).toBe(0);
});

it('reports a wrong token as a NetworkError carrying the 401 response', async () => {
  const failure = await first(client(WRONG), { query: '{ metricNames }' }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(NetworkError);
  const { message, response } = failure as NetworkError;
  expect(message).toBe('Server responded with 401: Unauthorized');
  expect(response?.status).toBe(401);
  expect((response as Response).headers.get('www-authenticate')).toBe('Bearer realm="kairograph"');
});
