/**
 * The security suite (security-suite.ts) over a real gateway on the embedded store: who may do what on every path
 * form, and what browsers may do from which origin, content type and Host, on every front end; then the refusals as
 * /metrics counts them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret, tokenHash } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import {
  CONTENT_TYPES,
  expected,
  HOSTS,
  ORIGINS,
  OTHER_PATHS,
  PATH_FORMS,
  ROUTES,
  send,
  type Principal,
  type Request,
  type Route,
  type Scope,
} from './security-suite.js';

const TOKEN = (name: string) => `kg_${name}-0123456789-0123456789-0123456789`;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const PRINCIPALS: Readonly<Record<string, Principal>> = {
  anonymous: { headers: {} },
  reader: { headers: { authorization: `Bearer ${TOKEN('reader')}` }, scopes: ['read'] },
  writer: { headers: { authorization: basic('writer', 'writer-password') }, scopes: ['write'] },
  deleter: { headers: { 'x-kairograph-token': TOKEN('deleter') }, scopes: ['delete'] },
  admin: { headers: { authorization: `Bearer ${TOKEN('admin')}` }, scopes: ['read', 'write', 'delete', 'admin'] },
  'wrong token': { headers: { authorization: `Bearer ${TOKEN('nobody')}` }, wrong: true },
};

let store: EmbeddedStore;
/** With credentials: requests without them may do nothing. */
let locked: TestGateway;
/** The two-command start: a loopback gateway without credentials, where requests without them may do everything. */
let open: TestGateway;

const label = (route: Route) => `${route.api} ${route.method} ${route.path.split('?')[0]} (${route.scope ?? 'open'})`;

/** Sends every request and returns those answered otherwise than the rules say, with both answers. */
async function mismatches(
  gw: TestGateway,
  anonymous: readonly Scope[],
  requests: readonly Request[],
): Promise<string[]> {
  const wrong: string[] = [];
  for (const req of requests) {
    const want = expected(req, anonymous);
    const got = await send(gw.url, req);
    if (got.status !== want.status || (want.code !== undefined && got.code !== want.code)) {
      wrong.push(
        `${req.route.method} ${req.target} host=${req.host} origin=${req.origin} type=${req.contentType} ${JSON.stringify(req.principal.headers)}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`,
      );
    }
  }
  return wrong;
}

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  await store.write({
    series: ['sec.kept', 'sec.doomed'].map((metric) => ({
      metric,
      tags: { h: 'a' },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps: [1000],
      values: [1],
    })),
  });
  const file = join(tempDir(), 'credentials.json');
  writeFileSync(
    file,
    JSON.stringify({
      tokens: [
        { name: 'reader', hash: tokenHash(TOKEN('reader')), scopes: ['read'] },
        { name: 'deleter', hash: tokenHash(TOKEN('deleter')), scopes: ['delete'] },
        { name: 'admin', hash: tokenHash(TOKEN('admin')), scopes: ['read', 'write', 'delete', 'admin'] },
      ],
      users: [{ name: 'writer', hash: await hashSecret('writer-password', 10), scopes: ['write'] }],
    }),
  );
  const browser = { CORS_ORIGINS: ORIGINS.allowed };
  locked = await startGateway(store, { CREDENTIALS_FILE: file, ...browser });
  open = await startGateway(store, browser);
});

afterAll(async () => {
  await locked?.close();
  await open?.close();
  await store?.close();
  removeTempDirs();
});

describe.each(ROUTES.map((route) => [label(route), route] as const))('%s', (_, route) => {
  const json = route.method === 'POST' ? CONTENT_TYPES.json : undefined;

  it('answers every principal on every form of its path as on the path itself', async () => {
    const requests = Object.values(PRINCIPALS).flatMap((principal) =>
      Object.values(PATH_FORMS).map(
        (form): Request => ({
          route,
          principal,
          target: form(route.path),
          origin: undefined,
          contentType: json,
          host: HOSTS.own,
        }),
      ),
    );
    expect(await mismatches(locked, [], requests)).toEqual([]);
  });

  it('answers paths that only look like it 404, and a target that is no path 400', async () => {
    for (const form of Object.values(OTHER_PATHS)) {
      const answer = await send(locked.url, {
        route,
        principal: PRINCIPALS['admin']!,
        target: form(route.path),
        origin: undefined,
        contentType: json,
        host: HOSTS.own,
      });
      expect([form(route.path), answer.status]).toEqual([form(route.path), 404]);
    }
    const absolute: Request = {
      route,
      principal: PRINCIPALS['admin']!,
      target: `${locked.url}${route.path}`,
      origin: undefined,
      contentType: json,
      host: HOSTS.own,
    };
    expect(await mismatches(locked, [], [absolute])).toEqual([]);
  });

  // A page of any site, in a browser on this machine, with or without the credentials the browser keeps (Basic).
  it.each([
    ['the open loopback gateway', () => open, ['read', 'write', 'delete', 'admin'] as Scope[], ['anonymous']],
    ['the locked gateway', () => locked, [] as Scope[], ['anonymous', 'writer', 'admin']],
  ])(
    'on %s, takes browsers only from its own pages and CORS_ORIGINS, by its own names, with JSON bodies',
    async (_, gateway, anonymous, principals) => {
      const types = route.method === 'POST' ? Object.values(CONTENT_TYPES) : [undefined];
      const requests = principals.flatMap((name) =>
        Object.values(HOSTS).flatMap((host) =>
          Object.values(ORIGINS).flatMap((origin) =>
            types.map(
              (contentType): Request => ({
                route,
                principal: PRINCIPALS[name]!,
                target: route.path,
                origin,
                contentType,
                host,
              }),
            ),
          ),
        ),
      );
      expect(await mismatches(gateway(), anonymous, requests)).toEqual([]);
    },
  );
});

describe('preflights', () => {
  it('are answered for CORS_ORIGINS on every path, refused for any other origin, and never reach a front end', async () => {
    const ask = async (origin: string, path: string) => {
      const response = await fetch(`${locked.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      return [
        response.status,
        response.headers.get('access-control-allow-origin'),
        response.headers.get('access-control-allow-credentials'),
      ];
    };
    for (const path of ['/graphql', '/api/v1/datapoints', '/metrics', '/nowhere']) {
      expect(await ask(ORIGINS.allowed, path)).toEqual([204, ORIGINS.allowed, 'true']);
      expect(await ask(ORIGINS.foreign, path)).toEqual([403, null, null]);
    }
  });

  it('give `*` without credentials when CORS_ORIGINS is *', async () => {
    const any = await startGateway(store, { CORS_ORIGINS: '*' });
    try {
      const response = await fetch(`${any.url}/graphql`, {
        method: 'POST',
        headers: { origin: ORIGINS.foreign, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ metricNames }' }),
      });
      expect([
        response.status,
        response.headers.get('access-control-allow-origin'),
        response.headers.get('access-control-allow-credentials'),
      ]).toEqual([200, '*', null]);
    } finally {
      await any.close();
    }
  });
});

describe('/metrics', () => {
  it('counts refusals by reason, with a fixed set of labels', async () => {
    const text = await (await fetch(`${locked.url}/metrics`, { headers: PRINCIPALS['admin']!.headers })).text();
    const count = (reason: string) =>
      Number(new RegExp(`^kairograph_refusals_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
    for (const reason of ['host', 'origin', 'csrf']) expect(count(reason), reason).toBeGreaterThan(0);
    expect(text.match(/^kairograph_refusals_total\{/gm)?.length).toBe(9);
  });
});
