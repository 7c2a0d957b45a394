/**
 * InfluxDB's line protocol over HTTP into the gateway (embedded store): InfluxDB's own client library
 * (@influxdata/influxdb-client) writing every field type through /api/v2/write, gzip included, read back exactly
 * through REST and GraphQL; Telegraf's 1.x bodies on /write; partial writes answered as InfluxDB answers them; InfluxDB
 * credentials (Token, u/p) mapped onto the gateway's; the source `db`/`bucket` names; /metrics counting lines.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { HttpError, InfluxDB, Point, setLogger } from '@influxdata/influxdb-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret, tokenHash } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);
const WRITE_TOKEN = 'influx-writer-token';
const READ_TOKEN = 'influx-reader-token';

let store: EmbeddedStore;
let second: EmbeddedStore;
let open: TestGateway;
let guarded: TestGateway;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  second = await EmbeddedStore.open({ path: tempDir() });
  open = await startGateway(store, {}, { sources: { second } });
  const file = join(tempDir(), 'credentials.json');
  writeFileSync(
    file,
    JSON.stringify({
      tokens: [
        { name: 'telegraf', hash: tokenHash(WRITE_TOKEN), scopes: ['write'], sources: ['kairosdb'] },
        { name: 'reader', hash: tokenHash(READ_TOKEN), scopes: ['read'] },
      ],
      users: [{ name: 'collector', hash: await hashSecret('collector-password', 10), scopes: ['write'] }],
    }),
  );
  guarded = await startGateway(store, { CREDENTIALS_FILE: file }, { sources: { second } });
});

afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await store?.close();
  await second?.close();
  removeTempDirs();
});

async function write(url: string, path: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers, body: Buffer.from(body) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function points(gateway: TestGateway, metric: string) {
  const answer = await gateway.graphql(
    `{ points(metric: "${metric}", from: 0) { tags { name values } points { epochMs value long text type } } }`,
  );
  return answer.body;
}

describe("InfluxDB's client library", () => {
  it('writes every field type, escaped names and gzip bodies that read back exactly', async () => {
    // No token: without CREDENTIALS_FILE, callers on loopback may write anonymously (ANONYMOUS_SCOPES=auto).
    const client = new InfluxDB({ url: open.url });
    const api = client.getWriteApi('any-org', 'kairosdb', 'ms', { maxRetries: 0, gzipThreshold: 0 });
    api.writePoint(
      new Point('sys load')
        .tag('host', 'web,1 a=b')
        .floatField('one', 1.25)
        .intField('procs', -42)
        .uintField('bytes', '9007199254740993')
        .stringField('state', 'say "hi" C:\\x')
        .booleanField('up', true)
        .timestamp(new Date(T0)),
    );
    api.writePoint(
      new Point('sys load')
        .tag('host', 'web,1 a=b')
        .floatField('one', 2)
        .timestamp(new Date(T0 + 1000)),
    );
    await api.close();
    const tags = [{ name: 'host', values: ['web,1 a=b'] }];
    const point = (ms: number, fields: Record<string, unknown>) => ({
      epochMs: ms,
      value: null,
      long: null,
      text: null,
      ...fields,
    });
    expect(await points(open, 'sys load.one')).toEqual({
      data: {
        points: [
          {
            tags,
            points: [point(T0, { value: 1.25, type: 'DOUBLE' }), point(T0 + 1000, { value: 2, type: 'DOUBLE' })],
          },
        ],
      },
    });
    expect((await points(open, 'sys load.procs')).data).toEqual({
      points: [{ tags, points: [point(T0, { value: -42, long: -42, type: 'LONG' })] }],
    });
    // Beyond 2^53 the long stays exact; GraphQL's Float shows the nearest double.
    expect((await points(open, 'sys load.bytes')).data).toEqual({
      points: [{ tags, points: [point(T0, { value: 9007199254740992, long: '9007199254740993', type: 'LONG' })] }],
    });
    expect((await points(open, 'sys load.state')).data).toEqual({
      points: [{ tags, points: [point(T0, { text: 'say "hi" C:\\x', type: 'STRING' })] }],
    });
    expect((await points(open, 'sys load.up')).data).toEqual({
      points: [{ tags, points: [point(T0, { value: 1, long: 1, type: 'LONG' })] }],
    });
    const rest = await fetch(`${open.url}/api/v1/datapoints/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ start_absolute: 0, metrics: [{ name: 'sys load.procs' }] }),
    });
    expect(await rest.json()).toEqual({
      queries: [
        {
          sample_size: 1,
          results: [
            {
              name: 'sys load.procs',
              group_by: [{ name: 'type', type: 'number' }],
              tags: { host: ['web,1 a=b'] },
              values: [[T0, -42]],
            },
          ],
        },
      ],
    });
  });

  it('is told which lines failed, as InfluxDB tells it', async () => {
    // The library logs the failure it then rejects with; the test reads the rejection.
    setLogger({ error: () => {}, warn: () => {} });
    const client = new InfluxDB({ url: open.url });
    const api = client.getWriteApi('o', 'kairosdb', 'ns', { maxRetries: 0 });
    api.writeRecords(['ok_client v=1 1000000', 'bad_client v=', 'ok_client v=2 2000000']);
    const error = await api.close().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HttpError);
    expect([(error as HttpError).statusCode, (error as HttpError).json]).toEqual([
      400,
      {
        code: 'invalid',
        message:
          'partial write: 1 line rejected, 2 lines written: line 2: unable to parse \'bad_client v=\': missing field value of field key "v"',
      },
    ]);
    expect((await points(open, 'ok_client.v')).data).toEqual({
      points: [
        {
          tags: [],
          points: [
            { epochMs: 1, value: 1, long: null, text: null, type: 'DOUBLE' },
            { epochMs: 2, value: 2, long: null, text: null, type: 'DOUBLE' },
          ],
        },
      ],
    });
  });
});

describe("Telegraf's 1.x bodies on /write", () => {
  const TELEGRAF =
    'cpu,cpu=cpu-total,host=h1 usage_idle=98.5,usage_user=1.25 1767607200000000000\n' +
    'mem,host=h1 used=123i,available_percent=50 1767607200000000000\n';

  it('takes a gzip body with db and the default precision, and answers 204', async () => {
    const got = await write(open.url, '/write?db=telegraf&rp=autogen', gzipSync(TELEGRAF), {
      'content-encoding': 'gzip',
      'user-agent': 'Telegraf/1.34.0',
    });
    expect(got).toEqual({ status: 204, body: undefined });
    expect((await points(open, 'mem.used')).data).toEqual({
      points: [
        {
          tags: [{ name: 'host', values: ['h1'] }],
          points: [{ epochMs: T0, value: 123, long: 123, text: null, type: 'LONG' }],
        },
      ],
    });
  });

  it('answers a partial write 400 in 1.x form, after writing the good lines', async () => {
    const body = 'part ok=1 1767607200\npart bad=1 1767607200 extra\npart ok="x" 1767607201\n# fine\npart,=x v=1\n';
    expect(await write(open.url, '/write?db=telegraf&precision=s', body)).toEqual({
      status: 400,
      body: {
        error:
          "partial write: 2 lines rejected, 2 lines written: line 2: unable to parse 'part bad=1 1767607200 extra': unexpected text at column 23; line 5: unable to parse 'part,=x v=1': missing tag key",
      },
    });
    expect((await points(open, 'part.ok')).data).toEqual({
      points: [
        {
          tags: [],
          points: [
            { epochMs: T0, value: 1, long: null, text: null, type: 'DOUBLE' },
            { epochMs: T0 + 1000, value: null, long: null, text: 'x', type: 'STRING' },
          ],
        },
      ],
    });
  });

  it('refuses an unknown precision and a corrupt gzip body whole', async () => {
    expect(await write(open.url, '/write?precision=us', 'x v=1')).toEqual({
      status: 400,
      body: { error: 'precision must be one of n, ns, u, ms, s, m, h (got "us")' },
    });
    expect(await write(open.url, '/api/v2/write?bucket=b&precision=n', 'x v=1')).toEqual({
      status: 400,
      body: { code: 'invalid', message: 'precision must be one of ns, us, ms, s (got "n")' },
    });
    expect(await write(open.url, '/api/v2/write', Buffer.from('not gzip'), { 'content-encoding': 'gzip' })).toEqual({
      status: 400,
      body: { code: 'invalid', message: 'request body is not valid gzip data: incorrect header check' },
    });
  });

  it('writes to the source db or bucket names, else to the primary', async () => {
    expect(await write(open.url, '/write?db=second', 'where_to v=1 0')).toEqual({ status: 204, body: undefined });
    expect(await write(open.url, '/api/v2/write?bucket=elsewhere', 'where_to v=2 0')).toEqual({
      status: 204,
      body: undefined,
    });
    const read = async (source: string) =>
      (await (
        await fetch(
          `${open.url}/prometheus/${source}/api/v1/query?query=${encodeURIComponent('{"where_to.v"}')}&time=1`,
        )
      ).json()) as {
        data: { result: { value: unknown }[] };
      };
    expect((await read('second')).data.result.map((r) => r.value)).toEqual([[1, '1']]);
    expect((await read('kairosdb')).data.result.map((r) => r.value)).toEqual([[1, '2']]);
  });

  it('answers /ping as InfluxDB does, for clients that check before writing', async () => {
    const ping = await fetch(`${open.url}/ping`);
    expect([ping.status, ping.headers.get('x-influxdb-version')]).toEqual([204, '1.8.10']);
  });
});

it('joins measurement and field with INFLUX_METRIC_SEPARATOR', async () => {
  const underscored = await startGateway(store, { INFLUX_METRIC_SEPARATOR: '_' });
  try {
    expect(await write(underscored.url, '/write?precision=ms', 'sep,h=a used=1 5')).toEqual({
      status: 204,
      body: undefined,
    });
    expect((await points(underscored, 'sep_used')).data).toEqual({
      points: [
        {
          tags: [{ name: 'h', values: ['a'] }],
          points: [{ epochMs: 5, value: 1, long: null, text: null, type: 'DOUBLE' }],
        },
      ],
    });
  } finally {
    await underscored.close();
  }
});

describe('credentials', () => {
  it('takes a token as Authorization: Token, and u/p as a user and password', async () => {
    const line = 'guarded v=1 0';
    expect(
      await write(guarded.url, '/api/v2/write?bucket=kairosdb', line, { authorization: `Token ${WRITE_TOKEN}` }),
    ).toEqual({ status: 204, body: undefined });
    expect(await write(guarded.url, '/write?db=x&u=collector&p=collector-password', line)).toEqual({
      status: 204,
      body: undefined,
    });
    expect(await write(guarded.url, '/write', line, { authorization: `Bearer ${WRITE_TOKEN}` })).toEqual({
      status: 204,
      body: undefined,
    });
  });

  it('refuses a wrong token 401, a reader 403, and a source the token may not write 403', async () => {
    expect(await write(guarded.url, '/api/v2/write', 'g v=1', { authorization: 'Token nope' })).toEqual({
      status: 401,
      body: { code: 'unauthorized', message: 'the token is not valid' },
    });
    expect(await write(guarded.url, '/write', 'g v=1')).toEqual({
      status: 401,
      body: {
        error:
          "POST /write needs the write scope, which requests without credentials do not have: send a token (Authorization: Bearer or x-kairograph-token) or a user's password (HTTP Basic)",
      },
    });
    expect(await write(guarded.url, '/api/v2/write', 'g v=1', { authorization: `Token ${READ_TOKEN}` })).toEqual({
      status: 403,
      body: {
        code: 'forbidden',
        message: 'POST /api/v2/write needs the write scope, which "reader" does not have (it has: read)',
      },
    });
    expect(
      await write(guarded.url, '/api/v2/write?bucket=second', 'g v=1', { authorization: `Token ${WRITE_TOKEN}` }),
    ).toEqual({
      status: 403,
      body: { code: 'forbidden', message: '"telegraf" may not use source "second" (it may use: kairosdb)' },
    });
  });
});

it('counts points written and lines rejected on /metrics', async () => {
  const text = await (await fetch(`${open.url}/metrics`)).text();
  const line = (name: string) => text.split('\n').find((l) => l.startsWith(name));
  // 6 + 2 (the client), 4 (Telegraf), 2 (partial), 2 (sources).
  expect(line('kairograph_ingest_points_written_total{protocol="line_protocol"}')).toBe(
    'kairograph_ingest_points_written_total{protocol="line_protocol"} 16',
  );
  expect(line('kairograph_ingest_rejected_total{protocol="line_protocol",reason="invalid"}')).toBe(
    'kairograph_ingest_rejected_total{protocol="line_protocol",reason="invalid"} 3',
  );
});
