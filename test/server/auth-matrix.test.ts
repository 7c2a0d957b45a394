/**
 * Who may do what, over HTTP: every GraphQL root field and every REST endpoint (and /metrics) × every kind of caller,
 * with the exact status, code and message, on both front ends; then the store proves that no refused request wrote or
 * deleted anything.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret, tokenHash } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { callRest } from '../rest/rest-client.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

type Scope = 'read' | 'write' | 'delete' | 'admin';

const READ_TOKEN = 'kg_reader-token-0123456789-0123456789';
const DELETE_TOKEN = 'kg_deleter-token-0123456789-0123456789';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

interface Caller {
  readonly headers: Record<string, string>;
  /** The principal's name and scopes; absent for anonymous. */
  readonly principal?: { readonly name: string; readonly scopes: readonly Scope[] };
  /** Wrong credentials: refused with this message on every scoped route. */
  readonly failure?: string;
}

/** Each form of credential appears: a bearer token, HTTP Basic, the x-kairograph-token header. */
const CALLERS: Readonly<Record<string, Caller>> = {
  anonymous: { headers: {} },
  read: { headers: { authorization: `Bearer ${READ_TOKEN}` }, principal: { name: 'reader', scopes: ['read'] } },
  write: {
    headers: { authorization: basic('writer', 'writer-password') },
    principal: { name: 'writer', scopes: ['write'] },
  },
  delete: { headers: { 'x-kairograph-token': DELETE_TOKEN }, principal: { name: 'deleter', scopes: ['delete'] } },
  wrongPassword: {
    headers: { authorization: basic('writer', 'not-the-password') },
    failure: 'wrong user name or password',
  },
  unknownToken: { headers: { authorization: 'Bearer kg_nobody-has-this-token' }, failure: 'the token is not valid' },
  // Every right but admin: shows that save_as (read and write) passes when both are there.
  operator: {
    headers: { authorization: basic('operator', 'operator-password') },
    principal: { name: 'operator', scopes: ['read', 'write', 'delete'] },
  },
};

interface Answer {
  readonly status: number;
  readonly code?: string;
  readonly message?: string;
  readonly challenge: string | null;
}

interface Action {
  readonly api: 'graphql' | 'rest';
  /** Scopes in the order they are checked; none for KairosDB's version and health checks. */
  readonly scopes: readonly Scope[];
  /** How the action is named in a refusal for each scope. */
  readonly what: (scope: Scope) => string;
  readonly okStatus: number;
  /** What it writes (a metric that exists afterwards) or deletes (a metric whose points are gone afterwards). */
  readonly writes?: (caller: string) => string;
  readonly deletes?: (caller: string) => string;
  /** The same for metadata: the key (service, service key, key) it sets, or that is set beforehand and it deletes. */
  readonly setsMetadata?: (caller: string) => MetadataAt;
  readonly deletesMetadata?: (caller: string) => MetadataAt;
  /** The same for roll-up tasks: the id of the task it creates or renames to `after`, or that exists and it deletes. */
  readonly setsRollup?: (caller: string) => string;
  readonly deletesRollup?: (caller: string) => string;
  readonly send: (g: TestGateway, caller: string) => Promise<Answer>;
}

let store: EmbeddedStore;
let gw: TestGateway;
/** The path of the credentials file the matrix's gateway uses. */
let credentials: string;

const range = 'from: 0, to: 9999999999999';
const gql = (
  field: string,
  scope: Scope,
  query: (caller: string) => string,
  more: Partial<Action> = {},
): [string, Action] => [
  `GraphQL ${field}`,
  {
    api: 'graphql',
    scopes: [scope],
    what: () => field,
    okStatus: 200,
    send: async (g, caller) => {
      const response = await g.graphql(query(caller), undefined, CALLERS[caller]!.headers);
      const error = response.body.errors?.[0];
      return {
        status: response.status,
        ...(error ? { code: error.extensions?.['code'] as string, message: error.message } : {}),
        challenge: response.headers.get('www-authenticate'),
      };
    },
    ...more,
  },
];
const rest = (
  method: string,
  path: string,
  scopes: readonly Scope[],
  body?: (caller: string) => unknown,
  more: Partial<Action> = {},
): [string, Action] => [
  `REST ${method} ${path}`,
  {
    api: 'rest',
    scopes,
    what: () => `${method} ${path.replace(/\/metric\/.*/, '/metric/{name}').replace(/\?.*/, '')}`,
    okStatus: 204,
    send: async (g, caller) => {
      const target = path.replace('CALLER', caller);
      const response = await callRest(g.url, method, target, {
        ...(body ? { body: body(caller) } : {}),
        headers: CALLERS[caller]!.headers,
      });
      const errors = (response.json as { errors?: string[] } | undefined)?.errors;
      return {
        status: response.status,
        ...(errors ? { message: errors[0]! } : {}),
        challenge: response.headers['www-authenticate'] ?? null,
      };
    },
    ...more,
  },
];

type MetadataAt = readonly [string, string, string];
/** Metadata keys of the matrix: one per action and caller, so each refusal or change is seen on its own. */
const metadataAt = (label: string, caller: string): MetadataAt => ['matrix', label, caller];

/** A roll-up task's JSON (KairosDB's), with an id and a name. */
const rollupTask = (id: string, name = 'before') =>
  JSON.stringify({
    id,
    name,
    execution_interval: { value: 1, unit: 'hours' },
    rollups: [
      {
        save_as: 'keep.me.rollup',
        query: {
          start_relative: { value: 1, unit: 'hours' },
          metrics: [{ name: 'keep.me', aggregators: [{ name: 'sum', sampling: { value: 1, unit: 'hours' } }] }],
        },
      },
    ],
  });
/** Roll-up task ids of the matrix, one per action and caller, as metadata keys are. */
const rollupId = (label: string, caller: string) => `${label}.${caller}`;

const kairosQuery = (extra: Record<string, unknown> = {}) => ({
  start_absolute: 0,
  metrics: [{ name: 'keep.me', ...extra }],
});
const saveAs = (caller: string) => ({ name: 'save_as', metric_name: `saved.rest.${caller}` });

const ACTIONS: readonly [string, Action][] = [
  gql('sources', 'read', () => '{ sources { name } }'),
  gql('metricNames', 'read', () => '{ metricNames(prefix: "keep") }'),
  gql('tagNames', 'read', () => `{ tagNames(metric: "keep.me", ${range}) }`),
  gql('tagValues', 'read', () => `{ tagValues(metric: "keep.me", tag: "host", ${range}) }`),
  gql('seriesKeys', 'read', () => `{ seriesKeys(metric: "keep.me", ${range}) { metric } }`),
  gql('points', 'read', () => `{ points(metric: "keep.me", ${range}) { points { value } } }`),
  gql('rawSeries', 'read', () => `{ rawSeries(metric: "keep.me", ${range}) { points { value } } }`),
  gql('metricNamesPage', 'read', () => '{ metricNamesPage(prefix: "keep") { items hasMore } }'),
  gql('tagValuesPage', 'read', () => `{ tagValuesPage(metric: "keep.me", tag: "host", ${range}) { items hasMore } }`),
  gql('seriesKeysPage', 'read', () => `{ seriesKeysPage(metric: "keep.me", ${range}) { items { metric } hasMore } }`),
  gql('metadata', 'read', () => '{ metadata(service: "matrix") { serviceKeys } }'),
  gql(
    'setMetadata',
    'write',
    (caller) =>
      `mutation { setMetadata(service: "matrix", serviceKey: "set.gql", key: "${caller}", value: "v") { value } }`,
    {
      setsMetadata: (caller) => metadataAt('set.gql', caller),
    },
  ),
  gql(
    'deleteMetadata',
    'delete',
    (caller) => `mutation { deleteMetadata(service: "matrix", serviceKey: "delete.gql", key: "${caller}") }`,
    {
      deletesMetadata: (caller) => metadataAt('delete.gql', caller),
    },
  ),
  gql('rollups', 'read', () => '{ rollups { id name status { pendingPeriods } } }'),
  gql(
    'createRollup',
    'write',
    (caller) =>
      `mutation { createRollup(task: ${JSON.stringify(rollupTask(rollupId('created.gql', caller), 'after'))}) { id } }`,
    {
      setsRollup: (caller) => rollupId('created.gql', caller),
    },
  ),
  gql(
    'updateRollup',
    'write',
    (caller) =>
      `mutation { updateRollup(id: "${rollupId('updated.gql', caller)}", task: ${JSON.stringify(rollupTask('x', 'after'))}) { id name } }`,
    {
      setsRollup: (caller) => rollupId('updated.gql', caller),
    },
  ),
  gql('deleteRollup', 'write', (caller) => `mutation { deleteRollup(id: "${rollupId('doomed.gql', caller)}") }`, {
    deletesRollup: (caller) => rollupId('doomed.gql', caller),
  }),
  gql('series', 'read', () => `{ series(metric: "keep.me", ${range}) { points { value } } }`),
  gql('rows', 'read', () => `{ rows(metric: "keep.me", ${range}) { value } }`),
  gql('promql', 'read', () => '{ promql(expression: "{\\"keep.me\\"}", time: 3600000) { metric } }'),
  gql(
    'addPoints',
    'write',
    (caller) =>
      `mutation { addPoints(series: [{ metric: "written.gql.${caller}", tags: [{ name: "host", value: "a" }], points: [{ time: 1000000, value: 1 }] }]) { points } }`,
    {
      writes: (caller) => `written.gql.${caller}`,
    },
  ),
  gql(
    'deletePoints',
    'delete',
    (caller) => `mutation { deletePoints(metric: "doomed.gql.${caller}", ${range}) { series } }`,
    { deletes: (caller) => `doomed.gql.${caller}` },
  ),
  [
    'GraphQL series with saveAs',
    {
      ...gql(
        'series',
        'read',
        (caller) =>
          `{ series(metric: "keep.me", ${range}, aggregators: [{ saveAs: { metricName: "saved.gql.${caller}" } }]) { name } }`,
      )[1],
      scopes: ['read', 'write'],
      what: (scope) => (scope === 'read' ? 'series' : 'series: save_as'),
      writes: (caller) => `saved.gql.${caller}`,
    },
  ],
  rest('GET', '/api/v1/version', [], undefined, { okStatus: 200 }),
  rest('GET', '/api/v1/health/check', []),
  rest('GET', '/api/v1/health/status', [], undefined, { okStatus: 200 }),
  rest('GET', '/api/v1/metricnames', ['read'], undefined, { okStatus: 200 }),
  rest(
    'POST',
    '/api/v1/datapoints',
    ['write'],
    (caller) => [{ name: `written.rest.${caller}`, tags: { host: 'a' }, datapoints: [[1_000_000, 1]] }],
    {
      writes: (caller) => `written.rest.${caller}`,
    },
  ),
  rest('POST', '/api/v1/datapoints/query', ['read'], () => kairosQuery(), { okStatus: 200 }),
  rest(
    'GET',
    `/api/v1/datapoints/query?query=${encodeURIComponent(JSON.stringify(kairosQuery()))}`,
    ['read'],
    undefined,
    { okStatus: 200 },
  ),
  rest('POST', '/api/v1/datapoints/query/tags', ['read'], () => kairosQuery(), { okStatus: 200 }),
  rest(
    'POST',
    '/api/v1/datapoints/delete',
    ['delete'],
    (caller) => ({ start_absolute: 0, metrics: [{ name: `doomed.rest.${caller}` }] }),
    { deletes: (caller) => `doomed.rest.${caller}` },
  ),
  rest('DELETE', '/api/v1/metric/doomed.metric.CALLER', ['delete'], undefined, {
    deletes: (caller) => `doomed.metric.${caller}`,
  }),
  rest('GET', '/api/v1/metadata/matrix', ['read'], undefined, {
    okStatus: 200,
    what: () => 'GET /api/v1/metadata/{service}',
  }),
  rest('GET', '/api/v1/metadata/matrix/keep?startsWith=k', ['read'], undefined, {
    okStatus: 200,
    what: () => 'GET /api/v1/metadata/{service}/{serviceKey}',
  }),
  rest('GET', '/api/v1/metadata/matrix/keep/key', ['read'], undefined, {
    okStatus: 200,
    what: () => 'GET /api/v1/metadata/{service}/{serviceKey}/{key}',
  }),
  rest('POST', '/api/v1/metadata/matrix/set.rest/CALLER', ['write'], () => 'value', {
    what: () => 'POST /api/v1/metadata/{service}/{serviceKey}/{key}',
    setsMetadata: (caller) => metadataAt('set.rest', caller),
  }),
  rest('DELETE', '/api/v1/metadata/matrix/delete.rest/CALLER', ['delete'], undefined, {
    what: () => 'DELETE /api/v1/metadata/{service}/{serviceKey}/{key}',
    deletesMetadata: (caller) => metadataAt('delete.rest', caller),
  }),
  rest('GET', '/api/v1/rollups', ['read'], undefined, { okStatus: 200 }),
  rest('GET', '/api/v1/rollups/kept.task', ['read'], undefined, {
    okStatus: 200,
    what: () => 'GET /api/v1/rollups/{id}',
  }),
  rest('GET', '/api/v1/rollups/status/kept.task', ['read'], undefined, {
    okStatus: 200,
    what: () => 'GET /api/v1/rollups/status/{id}',
  }),
  rest('POST', '/api/v1/rollups', ['write'], (caller) => rollupTask(rollupId('created.rest', caller), 'after'), {
    okStatus: 200,
    setsRollup: (caller) => rollupId('created.rest', caller),
  }),
  rest('PUT', '/api/v1/rollups/updated.rest.CALLER', ['write'], () => rollupTask('x', 'after'), {
    okStatus: 200,
    what: () => 'PUT /api/v1/rollups/{id}',
    setsRollup: (caller) => rollupId('updated.rest', caller),
  }),
  rest('DELETE', '/api/v1/rollups/doomed.rest.CALLER', ['write'], undefined, {
    what: () => 'DELETE /api/v1/rollups/{id}',
    deletesRollup: (caller) => rollupId('doomed.rest', caller),
  }),
  [
    'REST POST /api/v1/datapoints/query with save_as',
    {
      ...rest(
        'POST',
        '/api/v1/datapoints/query',
        ['read', 'write'],
        (caller) => kairosQuery({ aggregators: [saveAs(caller)] }),
        { okStatus: 200 },
      )[1],
      what: (scope) => (scope === 'read' ? 'POST /api/v1/datapoints/query' : 'metrics[0]: save_as'),
      writes: (caller) => `saved.rest.${caller}`,
    },
  ],
  [
    'GET /metrics',
    {
      ...rest('GET', '/metrics', ['admin'], undefined, { okStatus: 200 })[1],
      what: () => 'GET /metrics',
      send: async (g, caller) => {
        const response = await fetch(`${g.url}/metrics`, { headers: CALLERS[caller]!.headers });
        const text = await response.text();
        const error =
          response.status === 200
            ? undefined
            : (JSON.parse(text) as { errors: { message: string; extensions: { code: string } }[] }).errors[0]!;
        return {
          status: response.status,
          ...(error ? { code: error.extensions.code, message: error.message } : {}),
          challenge: response.headers.get('www-authenticate'),
        };
      },
    },
  ],
];

/** The answer each caller must get: the first scope it lacks decides, wrong credentials first of all. */
function expected(action: Action, caller: Caller): Answer {
  const graphql = action.api === 'graphql' || action.what('admin') === 'GET /metrics';
  const challenge =
    action.api === 'graphql' ? 'Bearer realm="kairograph"' : 'Basic realm="kairograph", charset="UTF-8"';
  const withCode = (code: string) => (graphql ? { code } : {});
  if (action.scopes.length === 0) return { status: action.okStatus, challenge: null };
  if (caller.failure) return { status: 401, ...withCode('UNAUTHENTICATED'), message: caller.failure, challenge };
  const missing = action.scopes.find((scope) => !caller.principal?.scopes.includes(scope));
  if (missing === undefined) return { status: action.okStatus, challenge: null };
  if (caller.principal === undefined) {
    return {
      status: 401,
      ...withCode('UNAUTHENTICATED'),
      message: `${action.what(missing)} needs the ${missing} scope, which requests without credentials do not have: send a token (Authorization: Bearer or x-kairograph-token) or a user's password (HTTP Basic)`,
      challenge,
    };
  }
  const { name, scopes } = caller.principal;
  return {
    status: 403,
    ...withCode('FORBIDDEN'),
    message: `${action.what(missing)} needs the ${missing} scope, which "${name}" does not have (it has: ${scopes.join(', ')})`,
    challenge: null,
  };
}

const allowed = (action: Action, caller: Caller) => expected(action, caller).status === action.okStatus;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  const doomed = ACTIONS.flatMap(([, action]) =>
    Object.keys(CALLERS).flatMap((caller) => (action.deletes ? [action.deletes(caller)] : [])),
  );
  await store.write({
    series: ['keep.me', ...doomed].map((metric) => ({
      metric,
      tags: { host: 'a' },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps: [1_000_000, 1_001_000],
      values: [1, 2],
    })),
  });
  // A value that is JSON: the matrix reads answers as JSON.
  await store.serviceIndex.set('matrix', 'keep', 'key', '"kept"');
  for (const [, action] of ACTIONS)
    for (const caller of Object.keys(CALLERS))
      if (action.deletesMetadata) await store.serviceIndex.set(...action.deletesMetadata(caller), 'doomed');
  // Roll-up tasks to read, rename and delete, as KairosDB stores them.
  const tasks = [
    'kept.task',
    ...Object.keys(CALLERS).flatMap((caller) =>
      ['updated.gql', 'updated.rest', 'doomed.gql', 'doomed.rest'].map((label) => rollupId(label, caller)),
    ),
  ];
  for (const id of tasks) await store.serviceIndex.set('_Rollups', 'Config', id, rollupTask(id));
  const dir = tempDir();
  const file = (credentials = join(dir, 'credentials.json'));
  // ln=10: the cheapest cost the file accepts, so the test spends its time on requests, not on scrypt.
  const hash = (secret: string) => hashSecret(secret, 10);
  writeFileSync(
    file,
    JSON.stringify({
      tokens: [
        { name: 'reader', hash: tokenHash(READ_TOKEN), scopes: ['read'] },
        { name: 'deleter', hash: tokenHash(DELETE_TOKEN), scopes: ['delete'] },
      ],
      users: [
        { name: 'writer', hash: await hash('writer-password'), scopes: ['write'] },
        { name: 'operator', hash: await hash('operator-password'), scopes: ['read', 'write', 'delete'] },
      ],
    }),
  );
  gw = await startGateway(store, { CREDENTIALS_FILE: file });
});

afterAll(async () => {
  await gw?.close();
  await store?.close();
  removeTempDirs();
});

describe.each(ACTIONS)('%s', (_, action) => {
  it.each(Object.keys(CALLERS))('as %s', async (caller) => {
    const answer = await action.send(gw, caller);
    expect(answer).toEqual(expected(action, CALLERS[caller]!));
  });
});

describe('what refused requests leave', () => {
  it('writes only what the allowed callers wrote, and deletes only what they deleted', async () => {
    const names = new Set(await store.metricNames(''));
    for (const [label, action] of ACTIONS) {
      for (const [caller, who] of Object.entries(CALLERS)) {
        if (action.writes) expect(names.has(action.writes(caller)), `${label} as ${caller}`).toBe(allowed(action, who));
        if (action.deletes) {
          const series = await store.rowKeys(action.deletes(caller), 0);
          expect(series.length > 0, `${label} as ${caller}`).toBe(!allowed(action, who));
        }
      }
    }
    for (const [label, action] of ACTIONS) {
      for (const [caller, who] of Object.entries(CALLERS)) {
        if (action.setsMetadata)
          expect(
            (await store.serviceIndex.value(...action.setsMetadata(caller))) !== undefined,
            `${label} as ${caller}`,
          ).toBe(allowed(action, who));
        if (action.deletesMetadata)
          expect(
            (await store.serviceIndex.value(...action.deletesMetadata(caller))) !== undefined,
            `${label} as ${caller}`,
          ).toBe(!allowed(action, who));
      }
    }
    for (const [label, action] of ACTIONS) {
      for (const [caller, who] of Object.entries(CALLERS)) {
        const task = async (id: string) => (await store.serviceIndex.value('_Rollups', 'Config', id))?.value;
        if (action.setsRollup)
          expect(
            JSON.parse((await task(action.setsRollup(caller))) ?? '{}').name === 'after',
            `${label} as ${caller}`,
          ).toBe(allowed(action, who));
        if (action.deletesRollup)
          expect((await task(action.deletesRollup(caller))) !== undefined, `${label} as ${caller}`).toBe(
            !allowed(action, who),
          );
      }
    }
    // The allowed callers did act: otherwise the check above would pass for a gateway that refuses everything.
    expect(
      names.has('written.gql.write') && names.has('written.rest.operator') && names.has('saved.rest.operator'),
    ).toBe(true);
  });
});

describe('PERSISTED_ONLY on both front ends', () => {
  it('takes persisted operations from anyone, and GraphQL text and REST requests only with credentials', async () => {
    const g = await startGateway(store, { PERSISTED_ONLY: 'true', ANONYMOUS_SCOPES: 'read' });
    try {
      const text = await g.graphql('{ metricNames(prefix: "keep") }');
      expect([text.status, text.body.errors?.[0]?.extensions?.['code']]).toEqual([403, 'PERSISTED_QUERY_ONLY']);
      const anonymousRest = await callRest(g.url, 'GET', '/api/v1/metricnames');
      expect([anonymousRest.status, anonymousRest.json, anonymousRest.headers['www-authenticate']]).toEqual([
        401,
        {
          errors: [
            'GET /api/v1/metricnames needs credentials (HTTP Basic or a token): PERSISTED_ONLY is on, and the REST API takes only free-form requests',
          ],
        },
        'Basic realm="kairograph", charset="UTF-8"',
      ]);
      // KairosDB's version and health checks stay open: monitors call them without credentials.
      expect((await callRest(g.url, 'GET', '/api/v1/version')).status).toBe(200);
    } finally {
      await g.close();
    }
    // With credentials, both take free-form requests (the reader may read, nothing more).
    const withCredentials = await startGateway(store, { PERSISTED_ONLY: 'true', CREDENTIALS_FILE: credentials });
    try {
      const headers = CALLERS['read']!.headers;
      expect((await withCredentials.graphql('{ metricNames(prefix: "keep") }', undefined, headers)).body).toEqual({
        data: { metricNames: ['keep.me'] },
      });
      expect((await callRest(withCredentials.url, 'GET', '/api/v1/metricnames?prefix=keep', { headers })).json).toEqual(
        { results: ['keep.me'] },
      );
    } finally {
      await withCredentials.close();
    }
  });
});

describe('sources a credential may use', () => {
  it('are checked on every field that names one, the primary source when it names none', async () => {
    const dir = tempDir();
    const file = join(dir, 'limited.json');
    writeFileSync(
      file,
      JSON.stringify({
        tokens: [
          { name: 'archivist', hash: await hashSecret('archive-token', 10), scopes: ['read'], sources: ['archive'] },
        ],
      }),
    );
    const other = await EmbeddedStore.open({ path: tempDir() });
    const g = await startGateway(store, { CREDENTIALS_FILE: file }, { sources: { archive: other } });
    try {
      const headers = { authorization: 'Bearer archive-token' };
      expect((await g.graphql('{ metricNames(source: "archive") }', undefined, headers)).body).toEqual({
        data: { metricNames: [] },
      });
      const primary = await g.graphql('{ metricNames }', undefined, headers);
      expect([primary.status, primary.body.errors]).toEqual([
        403,
        [
          {
            message: '"archivist" may not use source "kairosdb" (it may use: archive)',
            path: ['metricNames'],
            locations: [{ line: 1, column: 3 }],
            extensions: { code: 'FORBIDDEN' },
          },
        ],
      ]);
      const rest = await callRest(g.url, 'GET', '/api/v1/metricnames', { headers });
      expect([rest.status, rest.json]).toEqual([
        403,
        { errors: ['"archivist" may not use source "kairosdb" (it may use: archive)'] },
      ]);
    } finally {
      await g.close();
      await other.close();
    }
  });
});

describe('logs', () => {
  it('name the principal and never carry a credential', async () => {
    const lines: string[] = [];
    const g = await startGateway(store, { CREDENTIALS_FILE: credentials }, { logLines: lines });
    try {
      for (const caller of Object.keys(CALLERS)) {
        await g.graphql('{ metricNames(prefix: "keep") }', undefined, CALLERS[caller]!.headers);
        await callRest(g.url, 'GET', '/api/v1/metricnames', { headers: CALLERS[caller]!.headers });
      }
    } finally {
      await g.close();
    }
    const log = lines.join('');
    const headerValues = Object.values(CALLERS).flatMap((caller) => Object.values(caller.headers));
    for (const secret of [
      READ_TOKEN,
      DELETE_TOKEN,
      'writer-password',
      'not-the-password',
      'kg_nobody-has-this-token',
      ...headerValues.map((v) => v.replace(/^\w+ /, '')),
    ]) {
      expect(log, secret).not.toContain(secret);
    }
    expect(log).toContain('"principal":"reader"');
  });
});

describe('/metrics', () => {
  /** Every series of /metrics (name and labels) but Node's own by-kind series (GC kinds, handle types), which come as Node makes them. */
  const seriesOf = async (url: string) =>
    new Set(
      (await (await fetch(`${url}/metrics`, { headers: CALLERS['operator']!.headers })).text())
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#') && !/^nodejs_(gc|active)_/.test(line))
        .map((line) => line.slice(0, line.lastIndexOf(' '))),
    );

  it('keeps the same label sets after 1,000 requests with random Host headers, paths, methods and operation names', async () => {
    const file = join(tempDir(), 'admin.json');
    writeFileSync(
      file,
      JSON.stringify({
        users: [
          {
            name: 'operator',
            hash: await hashSecret('operator-password', 10),
            scopes: ['read', 'write', 'delete', 'admin'],
          },
        ],
      }),
    );
    // Any Host name is served here, so the random ones reach the routes (a loopback gateway refuses them by default).
    const g = await startGateway(store, { CREDENTIALS_FILE: file, ANONYMOUS_SCOPES: 'read', ALLOWED_HOSTS: '*' });
    const random = () => Math.random().toString(36).slice(2);
    const request = async (i: number) => {
      const host = `${random()}.example`;
      const { hostname, port } = new URL(g.url);
      const { request: send } = await import('node:http');
      const kinds: [string, string, string | undefined][] = [
        ['GET', `/${random()}`, undefined],
        ['GET', `/api/v1/${random()}`, undefined],
        ['GET', `/api/v1/metric/${random()}`, undefined],
        [
          'POST',
          `/graphql?${random()}=1`,
          JSON.stringify({ query: `query Q${random()} { metricNames(prefix: "keep") }` }),
        ],
        [
          'POST',
          `/graphql`,
          JSON.stringify({ query: `mutation M${random()} { deletePoints(metric: "keep.me", ${range}) { series } }` }),
        ],
        // Node's parser answers methods it does not know itself (400); none reaches the gateway.
        [`X${random().toUpperCase()}`, `/graphql/${random()}`, undefined],
        ['GET', `/metrics?${random()}`, undefined],
      ];
      const [method, path, body] = kinds[i % kinds.length]!;
      await new Promise<void>((resolve, reject) => {
        const req = send(
          { hostname, port, method, path, headers: { host, 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    };
    try {
      // Every kind once first, so the series they add exist before counting.
      for (let i = 0; i < 7; i++) await request(i);
      // A scrape is counted once its answer is sent: the first one adds its own series.
      await seriesOf(g.url);
      const before = await seriesOf(g.url);
      for (let i = 0; i < 1000; i += 10) await Promise.all(Array.from({ length: 10 }, (_, k) => request(i + k)));
      const after = await seriesOf(g.url);
      expect([...after].filter((series) => !before.has(series))).toEqual([]);
      expect(after.size).toBe(before.size);
      const text = [...after].join('\n');
      expect(text).not.toContain('.example');
      expect(text).toContain(
        'kairograph_http_requests_total{api="rest",route="/api/v1/{unknown}",method="GET",status="404",source=""}',
      );
      expect(text).toContain(
        'kairograph_http_requests_total{api="other",route="other",method="GET",status="404",source=""}',
      );
      expect(text).toContain('kairograph_errors_total{api="graphql",code="UNAUTHENTICATED"}');
    } finally {
      await g.close();
    }
  });
});
