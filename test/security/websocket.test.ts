/**
 * The security suite's matrix (security-suite.ts) for the WebSocket transport of /graphql: every path form, origin
 * and Host header on the upgrade itself, sent as written (raw HTTP, since a WebSocket client would normalise the
 * path), each answered as the rules answer a GraphQL GET (101 where that gets through); then every principal through
 * the graphql-ws client, its credentials in the upgrade's headers or in connection_init, on a gateway with
 * credentials and on the two-command one without.
 */
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { hashSecret, tokenHash } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { expected, HOSTS, ORIGINS, OTHER_PATHS, PATH_FORMS, type Answer, type Route } from './security-suite.js';

const TOKEN = (name: string) => `kg_${name}-0123456789-0123456789-0123456789`;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
/** The upgrade, as the rules see it: a GET of /graphql that needs the read scope. */
const UPGRADE: Route = { api: 'graphql', method: 'GET', path: '/graphql', scope: 'read', okStatus: 101 };

let store: EmbeddedStore;
let locked: TestGateway;
let open: TestGateway;
let credentialsFile: string;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  const file = join(tempDir(), 'credentials.json');
  credentialsFile = file;
  writeFileSync(
    file,
    JSON.stringify({
      tokens: [
        { name: 'reader', hash: tokenHash(TOKEN('reader')), scopes: ['read'] },
        { name: 'deleter', hash: tokenHash(TOKEN('deleter')), scopes: ['delete'] },
      ],
      users: [{ name: 'writer', hash: await hashSecret('writer-password', 10), scopes: ['write'] }],
    }),
  );
  locked = await startGateway(store, { CREDENTIALS_FILE: file, CORS_ORIGINS: ORIGINS.allowed });
  open = await startGateway(store, { CORS_ORIGINS: ORIGINS.allowed });
});

afterAll(async () => {
  await locked?.close();
  await open?.close();
  await store?.close();
  removeTempDirs();
});

/** An upgrade sent as written; its answer: 101, or the refusal's status and code. */
function upgrade(gw: TestGateway, target: string, host: string, origin: string | undefined): Promise<Answer> {
  const { hostname, port, host: self } = new URL(gw.url);
  const hostHeader = host.replace('SELF', self).replace('PORT', port);
  const headers: Record<string, string> = {
    host: hostHeader,
    connection: 'Upgrade',
    upgrade: 'websocket',
    'sec-websocket-version': '13',
    'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'sec-websocket-protocol': 'graphql-transport-ws',
  };
  if (origin !== undefined) headers['origin'] = origin === 'SELF' ? `http://${hostHeader}` : origin;
  return new Promise((resolve, reject) => {
    const call = request({ host: hostname, port, path: target, headers, setHost: false });
    call.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode! });
    });
    call.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk));
      res.on('end', () => {
        const code = (JSON.parse(text) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code;
        resolve({ status: res.statusCode!, ...(code !== undefined ? { code } : {}) });
      });
    });
    call.on('error', reject);
    call.end();
  });
}

describe('the upgrade crosses the same edge as every request', () => {
  it('answers every path form, origin and Host as the rules answer GraphQL', async () => {
    const wrong: string[] = [];
    for (const form of Object.values(PATH_FORMS))
      for (const origin of Object.values(ORIGINS))
        for (const host of Object.values(HOSTS)) {
          const target = form('/graphql');
          const want = expected(
            { route: UPGRADE, principal: { headers: {} }, target, origin, contentType: undefined, host },
            ['read'],
          );
          const got = await upgrade(open, target, host, origin);
          if (got.status !== want.status || got.code !== want.code)
            wrong.push(
              `${target} origin=${origin} host=${host}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`,
            );
        }
    expect(wrong).toEqual([]);
    // Refused upgrades are counted as refused requests: 10 path forms × 5 origins on a rebound Host; 10 forms × 2
    // foreign origins (another site's, "null") × the 2 Hosts that pass.
    const metrics = await (await fetch(`${open.url}/metrics`)).text();
    expect(metrics).toContain('kairograph_refusals_total{reason="host"} 50');
    expect(metrics).toContain('kairograph_refusals_total{reason="origin"} 40');
  });

  it('answers paths that only look like /graphql 404, and another route 404', async () => {
    for (const form of Object.values(OTHER_PATHS))
      expect(await upgrade(open, form('/graphql'), HOSTS.own, undefined)).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(await upgrade(open, '/api/v1/version', HOSTS.own, undefined)).toEqual({ status: 404, code: 'NOT_FOUND' });
  });
});

type Outcome = { close: number } | { data: unknown } | { code: unknown };

/** `{ metricNames }` through the graphql-ws client: the socket's close code, the data, or the error's code. */
function ask(gw: TestGateway, params: Record<string, string> | undefined, headers: Record<string, string>) {
  return new Promise<Outcome>((resolve) => {
    const client = createClient({
      url: `${gw.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols: string[]) {
          super(url, protocols, { headers });
        }
      },
      retryAttempts: 0,
      ...(params ? { connectionParams: params } : {}),
    });
    const done = (outcome: Outcome) => {
      void client.dispose();
      resolve(outcome);
    };
    client.subscribe(
      { query: '{ metricNames }' },
      {
        next: (result) =>
          done(result.errors ? { code: result.errors[0]?.extensions?.['code'] } : { data: result.data }),
        error: (error) => done({ close: (error as { code?: number }).code ?? -1 }),
        complete: () => undefined,
      },
    );
  });
}

const CREDENTIALS: Readonly<Record<string, { authorization?: string; 'x-kairograph-token'?: string }>> = {
  anonymous: {},
  reader: { authorization: `Bearer ${TOKEN('reader')}` },
  'writer (Basic)': { authorization: basic('writer', 'writer-password') },
  'deleter (token header)': { 'x-kairograph-token': TOKEN('deleter') },
  'wrong token': { authorization: `Bearer ${TOKEN('nobody')}` },
};

/** What a principal gets on the gateway with credentials, in the upgrade's headers or connection_init alike. */
const LOCKED: Readonly<Record<string, Outcome>> = {
  anonymous: { close: 4401 },
  reader: { data: { metricNames: [] } },
  'writer (Basic)': { code: 'FORBIDDEN' },
  'deleter (token header)': { code: 'FORBIDDEN' },
  'wrong token': { close: 4401 },
};

describe('credentials on the socket', () => {
  it.each(Object.keys(CREDENTIALS))(
    '%s: the same outcome from the upgrade headers and from connection_init',
    async (name) => {
      const presented = CREDENTIALS[name]!;
      expect(await ask(locked, undefined, presented)).toEqual(LOCKED[name]);
      expect(await ask(locked, presented, {})).toEqual(LOCKED[name]);
    },
  );

  it('lets requests without credentials do everything on the two-command gateway, and still refuses a wrong token', async () => {
    expect(await ask(open, undefined, {})).toEqual({ data: { metricNames: [] } });
    expect(await ask(open, { Authorization: `Bearer ${TOKEN('nobody')}` }, {})).toEqual({ close: 4401 });
  });

  it("ignores the upgrade's credentials from an origin let in only by CORS_ORIGINS=*: they could be the browser's", async () => {
    const star = await startGateway(store, { CREDENTIALS_FILE: credentialsFile, CORS_ORIGINS: '*' });
    try {
      const page = { origin: 'http://any.example' };
      expect(await ask(star, undefined, { ...page, ...CREDENTIALS['reader'] })).toEqual({ close: 4401 });
      expect(await ask(star, CREDENTIALS['reader'], page)).toEqual({ data: { metricNames: [] } });
    } finally {
      await star.close();
    }
  });
});
