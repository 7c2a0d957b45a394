/**
 * A real Telegraf writes into the gateway with each output configuration the docs show (docs/ingest.md: InfluxDB 2,
 * InfluxDB 1.x, Prometheus remote write; docs/ingest-tcp.md: OpenTSDB telnet, Graphite), taken from the docs at run
 * time with only the host, ports and credentials put in. Its input is fixed lines (inputs.file), gathered and written
 * once (`--once`), so every point is known: each is read back exactly through REST and GraphQL, in the form that
 * output gives it (names, types, time precision, what it leaves out).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, inject, it } from 'vitest';
import { hashSecret, tokenHash } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { docsBlock, fill } from '../support/docs-config.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { runSender } from '../support/sender-process.js';
import { eventually, freePort } from '../support/tcp-sender.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

// Two lines of every field type, one with a tag value holding a space and one at a time with milliseconds.
const LINES = [
  'telegraf_demo,room=a\\ b,kind=x gauge=21.5,count=7i,ok=true,label="some text" 1767607200000000000',
  'telegraf_demo,room=c,kind=y gauge=-0.125,count=-3i,ok=false 1767607201500000000',
  '',
].join('\n');
const T0 = 1_767_607_200_000;
const WRITER = 'telegraf-write-token-0123456789abcdef';
const READER = { authorization: 'Bearer telegraf-read-token-0123456789abcdef' };
const PASSWORD = 'telegraf-password';

const open: { gateway: TestGateway; store: EmbeddedStore }[] = [];

afterEach(async () => {
  for (const { gateway, store } of open.splice(0)) {
    await gateway.close();
    await store.close();
  }
  removeTempDirs();
});

interface Ports {
  gateway: TestGateway;
  telnet: number;
  graphite: number;
}

async function start(): Promise<Ports> {
  const credentials = join(tempDir(), 'credentials.json');
  writeFileSync(
    credentials,
    JSON.stringify({
      tokens: [
        { name: 'telegraf', hash: tokenHash(WRITER), scopes: ['write'] },
        { name: 'test', hash: tokenHash(READER.authorization.slice(7)), scopes: ['read'] },
      ],
      users: [{ name: 'telegraf-user', hash: await hashSecret(PASSWORD), scopes: ['write'] }],
    }),
  );
  const [telnet, graphite] = [await freePort(), await freePort()];
  const store = await EmbeddedStore.open({ path: tempDir() });
  const gateway = await startGateway(store, {
    CREDENTIALS_FILE: credentials,
    TELNET_PORT: String(telnet),
    GRAPHITE_PORT: String(graphite),
    TCP_INGEST_BATCH_MS: '20',
  });
  open.push({ gateway, store });
  return { gateway, telnet, graphite };
}

/** Telegraf with the docs' output block, reading LINES once; fails with Telegraf's log on any error it logs. */
async function runTelegraf(output: string): Promise<string> {
  const dir = tempDir();
  writeFileSync(join(dir, 'lines.txt'), LINES);
  // The test's own part: no host tag, millisecond times (the agent's default rounds them to its 10 s interval's
  // precision, whole seconds), and the input. Only the output block comes from the docs.
  const config = [
    '[agent]',
    '  omit_hostname = true',
    '  precision = "1ms"',
    '[[inputs.file]]',
    `  files = ["${join(dir, 'lines.txt')}"]`,
    '  data_format = "influx"',
    output,
  ].join('\n');
  writeFileSync(join(dir, 'telegraf.conf'), config);
  const run = await runSender(inject('telegraf'), ['--config', join(dir, 'telegraf.conf'), '--once'], 30_000);
  const errors = run.output.split('\n').filter((line) => / E! /.test(line));
  expect({ code: run.code, errors }, run.output).toEqual({ code: 0, errors: [] });
  return run.output;
}

interface Result {
  name: string;
  tags: Record<string, string[]>;
  values: [number, number | string][];
}

/** Every series of `metric` through REST, one result per `room`. */
async function rest(gateway: TestGateway, metric: string): Promise<Result[]> {
  const response = await fetch(`${gateway.url}/api/v1/datapoints/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...READER },
    body: JSON.stringify({
      start_absolute: 0,
      metrics: [{ name: metric, group_by: [{ name: 'tag', tags: ['room'] }] }],
    }),
  });
  const body = (await response.json()) as { queries: { results: Result[] }[] };
  return body.queries[0]!.results.map(({ name, tags, values }) => ({ name, tags, values }));
}

/** Reads every metric of `expected` until all hold their points (TCP ports write a moment after the sender closes). */
async function readAll(gateway: TestGateway, expected: Record<string, Result[]>): Promise<Record<string, Result[]>> {
  const read = async () =>
    Object.fromEntries(await Promise.all(Object.keys(expected).map(async (m) => [m, await rest(gateway, m)] as const)));
  const count = (all: Record<string, Result[]>) =>
    Object.values(all).reduce((n, results) => n + results.reduce((k, r) => k + r.values.length, 0), 0);
  return eventually(async () => {
    const all = await read();
    return count(all) >= count(expected) ? all : undefined;
  }, 10_000).catch(read);
}

/** A field's two series, as LINES hold them. */
function series(name: string, values: [number | string, number | string]): Result[] {
  return [
    { name, tags: { kind: ['x'], room: ['a b'] }, values: [[T0, values[0]]] },
    { name, tags: { kind: ['y'], room: ['c'] }, values: [[T0 + 1500, values[1]]] },
  ];
}

/**
 * The same series as the TCP outputs give them: times cut to whole seconds (both protocols' unit, Telegraf divides),
 * and `_` for the space in a tag value (neither protocol can carry one; Telegraf replaces it).
 */
function inSeconds(results: Result[]): Result[] {
  return results.map(({ name, tags, values }) => ({
    name,
    tags: { ...tags, room: tags['room']!.map((room) => room.replace(' ', '_')) },
    values: values.map(([t, v]) => [Math.floor(t / 1000) * 1000, v]),
  }));
}

/** The gauge through GraphQL: its tags, times, values and type. */
async function graphqlGauge(gateway: TestGateway, metric: string) {
  const response = await gateway.graphql(
    `{ rawSeries(metric: "${metric}", from: 0) { tags { name values } points { epochMs value type } } }`,
    {},
    READER,
  );
  return response.body;
}

const INFLUX_SERIES = {
  'telegraf_demo.gauge': series('telegraf_demo.gauge', [21.5, -0.125]),
  'telegraf_demo.count': series('telegraf_demo.count', [7, -3]),
  'telegraf_demo.ok': series('telegraf_demo.ok', [1, 0]),
  'telegraf_demo.label': [series('telegraf_demo.label', ['some text', ''])[0]!],
};

const GAUGE = (room = 'a b', times = [T0, T0 + 1500]) => ({
  data: {
    rawSeries: [
      {
        tags: [
          { name: 'kind', values: ['x'] },
          { name: 'room', values: [room] },
        ],
        points: [{ epochMs: times[0], value: 21.5, type: 'DOUBLE' }],
      },
      {
        tags: [
          { name: 'kind', values: ['y'] },
          { name: 'room', values: ['c'] },
        ],
        points: [{ epochMs: times[1], value: -0.125, type: 'DOUBLE' }],
      },
    ],
  },
});

it('writes every field through the InfluxDB 2 output (docs/ingest.md), token and gzip', async () => {
  const { gateway } = await start();
  await runTelegraf(
    fill(docsBlock('ingest.md', 'telegraf-influxdb-v2'), {
      'http://kairograph:4000': gateway.url,
      '<a token with the write scope>': WRITER,
    }),
  );
  expect(await readAll(gateway, INFLUX_SERIES)).toEqual(INFLUX_SERIES);
  expect(await graphqlGauge(gateway, 'telegraf_demo.gauge')).toEqual(GAUGE());
  const label = await gateway.graphql(
    '{ rawSeries(metric: "telegraf_demo.label", from: 0) { points { epochMs text type } } }',
    {},
    READER,
  );
  expect(label.body).toEqual({
    data: { rawSeries: [{ points: [{ epochMs: T0, text: 'some text', type: 'STRING' }] }] },
  });
});

it('writes every field through the InfluxDB 1.x output (docs/ingest.md), user and password', async () => {
  const { gateway } = await start();
  await runTelegraf(
    fill(docsBlock('ingest.md', 'telegraf-influxdb'), {
      'http://kairograph:4000': gateway.url,
      '<user>': 'telegraf-user',
      '<password>': PASSWORD,
    }),
  );
  expect(await readAll(gateway, INFLUX_SERIES)).toEqual(INFLUX_SERIES);
  expect(await graphqlGauge(gateway, 'telegraf_demo.gauge')).toEqual(GAUGE());
});

it('writes numbers and booleans through the HTTP output as Prometheus remote write (docs/ingest.md)', async () => {
  const { gateway } = await start();
  const output = await runTelegraf(
    fill(docsBlock('ingest.md', 'telegraf-remote-write'), {
      'http://kairograph:4000': gateway.url,
      '<a token with the write scope>': WRITER,
    }),
  );
  const expected = {
    telegraf_demo_gauge: series('telegraf_demo_gauge', [21.5, -0.125]),
    telegraf_demo_count: series('telegraf_demo_count', [7, -3]),
    telegraf_demo_ok: series('telegraf_demo_ok', [1, 0]),
    telegraf_demo_label: [],
  };
  expect(await readAll(gateway, expected)).toEqual(expected);
  expect(output).toContain('failed to parse "telegraf_demo_label": bad sample value "some text"');
  expect(await graphqlGauge(gateway, 'telegraf_demo_gauge')).toEqual(GAUGE());
});

it('writes numbers through the OpenTSDB output in telnet mode (docs/ingest-tcp.md), leaving out the rest', async () => {
  const { gateway, telnet } = await start();
  await runTelegraf(fill(docsBlock('ingest-tcp.md', 'telegraf-opentsdb'), { 'port = 4242': `port = ${telnet}` }));
  const expected = {
    telegraf_demo_gauge: inSeconds(series('telegraf_demo_gauge', [21.5, -0.125])),
    telegraf_demo_count: inSeconds(series('telegraf_demo_count', [7, -3])),
    telegraf_demo_ok: [],
    telegraf_demo_label: [],
  };
  expect(await readAll(gateway, expected)).toEqual(expected);
  expect(await graphqlGauge(gateway, 'telegraf_demo_gauge')).toEqual(GAUGE('a_b', [T0, T0 + 1000]));
});

it('writes numbers and booleans through the Graphite output with Graphite 1.1 tags (docs/ingest-tcp.md)', async () => {
  const { gateway, graphite } = await start();
  await runTelegraf(
    fill(docsBlock('ingest-tcp.md', 'telegraf-graphite'), { '127.0.0.1:2003': `127.0.0.1:${graphite}` }),
  );
  const expected = {
    'telegraf_demo.gauge': inSeconds(series('telegraf_demo.gauge', [21.5, -0.125])),
    'telegraf_demo.count': inSeconds(series('telegraf_demo.count', [7, -3])),
    'telegraf_demo.ok': inSeconds(series('telegraf_demo.ok', [1, 0])),
    'telegraf_demo.label': [],
  };
  expect(await readAll(gateway, expected)).toEqual(expected);
  expect(await graphqlGauge(gateway, 'telegraf_demo.gauge')).toEqual(GAUGE('a_b', [T0, T0 + 1000]));
});
