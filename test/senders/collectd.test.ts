/**
 * A real collectd (Debian's 5.12, tools/collectd/fetch.sh) writes into the gateway with the three write plugins
 * docs/ingest-tcp.md configures, taken from the docs at run time with only the ports, URL and credentials put in:
 * write_tsdb to the telnet port, write_graphite to the Graphite port, write_http (KAIROSDB format) to the REST API.
 * Its exec plugin sends two fixed values, read back exactly in each plugin's form; its load plugin sends the machine's
 * load every second, read back by name, tags and time.
 */
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { hashSecret, tokenHash } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { docsBlock, fill } from '../support/docs-config.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { type SenderProcess, startSender } from '../support/sender-process.js';
import { eventually, freePort } from '../support/tcp-sender.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const T0 = 1_767_607_200_000;
const HOST = 'sender.example.com';
const PASSWORD = 'collectd-password';
const READER = { authorization: 'Bearer collectd-read-token-0123456789abcdef' };
/** The metrics the exec plugin's two values and the load plugin's three become through each write plugin. */
const EXEC = { tsdb: 'exec.demo.gauge.answer', graphite: 'collectd.exec-demo.gauge-answer', http: 'collectd.exec' };
const LOAD = ['shortterm', 'midterm', 'longterm'];

let store: EmbeddedStore;
let gateway: TestGateway;
let collectd: SenderProcess;
let startedMs: number;

beforeAll(async () => {
  const credentials = join(tempDir(), 'credentials.json');
  writeFileSync(
    credentials,
    JSON.stringify({
      tokens: [{ name: 'test', hash: tokenHash(READER.authorization.slice(7)), scopes: ['read'] }],
      users: [{ name: 'collectd', hash: await hashSecret(PASSWORD), scopes: ['write'] }],
    }),
  );
  const [telnet, graphite] = [await freePort(), await freePort()];
  store = await EmbeddedStore.open({ path: tempDir() });
  gateway = await startGateway(store, {
    CREDENTIALS_FILE: credentials,
    TELNET_PORT: String(telnet),
    GRAPHITE_PORT: String(graphite),
    // What docs/ingest-tcp.md says write_graphite's paths need.
    GRAPHITE_HOST_TAG_POSITION: '2',
    TCP_INGEST_BATCH_MS: '20',
  });
  const root = inject('collectd');
  const dir = tempDir();
  // collectd's exec plugin refuses to run a program as root, so as root it runs the two echoes as nobody.
  const execUser = process.getuid?.() === 0 ? 'nobody' : userInfo().username;
  const put = (time: string, value: string) => `echo PUTVAL ${HOST}/exec-demo/gauge-answer interval=1 ${time}:${value}`;
  // The test's own part: where collectd and its files are, a 1 s interval, and the two inputs. The write plugins'
  // blocks are the docs' own.
  const config = [
    `Hostname "${HOST}"`,
    'FQDNLookup false',
    'Interval 1',
    `BaseDir "${dir}"`,
    `PIDFile "${dir}/collectd.pid"`,
    `PluginDir "${root}/usr/lib/collectd"`,
    `TypesDB "${root}/usr/share/collectd/types.db"`,
    'LoadPlugin logfile',
    '<Plugin logfile>',
    '  LogLevel info',
    '  File STDOUT',
    '</Plugin>',
    'LoadPlugin exec',
    '<Plugin exec>',
    // Sleeps after the echoes: an exec program that exits is started again every interval, sending the values again.
    `  Exec "${execUser}" "/bin/sh" "-c" "${put('1767607200', '42')}; ${put('1767607201.5', '43.25')}; exec sleep 60"`,
    '</Plugin>',
    'LoadPlugin load',
    fill(docsBlock('ingest-tcp.md', 'collectd-write-tsdb'), { 'Port "4242"': `Port "${telnet}"` }),
    fill(docsBlock('ingest-tcp.md', 'collectd-write-graphite'), { 'Port "2003"': `Port "${graphite}"` }),
    fill(docsBlock('ingest-tcp.md', 'collectd-write-http'), {
      'http://kairograph:4000': gateway.url,
      '<user>': 'collectd',
      '<password>': PASSWORD,
    }),
    '',
  ].join('\n');
  writeFileSync(join(dir, 'collectd.conf'), config);
  startedMs = Date.now();
  collectd = startSender(`${root}/usr/sbin/collectd`, ['-f', '-C', join(dir, 'collectd.conf')], {
    LD_LIBRARY_PATH: `${root}/deps`,
  });
});

afterAll(async () => {
  await collectd?.stop();
  await gateway?.close();
  await store?.close();
  removeTempDirs();
});

interface Result {
  name: string;
  tags: Record<string, string[]>;
  values: [number, number][];
}

/** Every point of `metric` through REST: one result, or one per value of the tags named. */
async function rest(metric: string, tags: string[]): Promise<Result[]> {
  const response = await fetch(`${gateway.url}/api/v1/datapoints/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...READER },
    body: JSON.stringify({
      start_absolute: 0,
      metrics: [{ name: metric, ...(tags.length > 0 ? { group_by: [{ name: 'tag', tags }] } : {}) }],
    }),
  });
  const body = (await response.json()) as { queries: { results: Result[] }[] };
  return body.queries[0]!.results.map(({ name, tags, values }) => ({ name, tags, values }));
}

/** Reads until `done` holds, for at most 20 s (collectd sends each plugin's values once a second). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  return eventually(async () => {
    const value = await read();
    return done(value) ? value : undefined;
  }, 20_000).catch(async (error: Error) => {
    throw new Error(
      `${error.message}; last read ${JSON.stringify(await read())}; collectd said:\n${collectd.output()}`,
    );
  });
}

const points = (results: Result[]) => results.reduce((n, result) => n + result.values.length, 0);

it("stores the exec plugin's values exactly through write_tsdb, write_graphite and write_http", async () => {
  // write_tsdb and write_graphite send whole seconds (1767607201.5 is rounded); write_http sends milliseconds.
  expect(
    await until(
      () => rest(EXEC.tsdb, []),
      (r) => points(r) >= 2,
    ),
  ).toEqual([
    {
      name: EXEC.tsdb,
      tags: { collector: ['collectd'], fqdn: [HOST] },
      values: [
        [T0, 42],
        [T0 + 2000, 43.25],
      ],
    },
  ]);
  expect(
    await until(
      () => rest(EXEC.graphite, []),
      (r) => points(r) >= 2,
    ),
  ).toEqual([
    {
      name: EXEC.graphite,
      tags: { host: ['sender_example_com'] },
      values: [
        [T0, 42],
        [T0 + 2000, 43.25],
      ],
    },
  ]);
  expect(
    await until(
      () => rest(EXEC.http, []),
      (r) => points(r) >= 2,
    ),
  ).toEqual([
    {
      name: EXEC.http,
      tags: { host: [HOST], plugin_instance: ['demo'], type: ['gauge'], type_instance: ['answer'] },
      values: [
        [T0, 42],
        [T0 + 1500, 43.25],
      ],
    },
  ]);
  const graphql = await gateway.graphql(
    `{ rawSeries(metric: "${EXEC.http}", from: 0) { tags { name values } points { epochMs value type } } }`,
    {},
    READER,
  );
  expect(graphql.body).toEqual({
    data: {
      rawSeries: [
        {
          tags: [
            { name: 'host', values: [HOST] },
            { name: 'plugin_instance', values: ['demo'] },
            { name: 'type', values: ['gauge'] },
            { name: 'type_instance', values: ['answer'] },
          ],
          points: [
            // write_http writes the gauge 42 as the JSON number `42`, which KairosDB's REST stores as a long.
            { epochMs: T0, value: 42, type: 'LONG' },
            { epochMs: T0 + 1500, value: 43.25, type: 'DOUBLE' },
          ],
        },
      ],
    },
  });
});

it("stores the load plugin's three values each second under each plugin's names and tags, at times of the run", async () => {
  const twice = (results: Result[]) => results.length > 0 && results.every((result) => result.values.length >= 2);
  const tsdb = await Promise.all(LOAD.map((ds) => until(() => rest(`load.load.${ds}`, []), twice)));
  const graphite = await Promise.all(LOAD.map((ds) => until(() => rest(`collectd.load.load.${ds}`, []), twice)));
  const http = await until(
    () => rest('collectd.load', ['ds']),
    (results) => results.length === 3 && twice(results),
  );
  const endMs = Date.now();
  // The machine's load is not known in advance: each series must have the plugin's name and tags, and only points
  // that are loads (finite, not negative) from this run (whole seconds may round up to half a second earlier).
  const seen = (results: Result[]) =>
    results.map(({ name, tags, values }) => ({
      name,
      tags,
      ofThisRun: values.every(([t, v]) => t >= startedMs - 1000 && t <= endMs && Number.isFinite(v) && v >= 0),
    }));
  expect(tsdb.flatMap(seen)).toEqual(
    LOAD.map((ds) => ({
      name: `load.load.${ds}`,
      tags: { collector: ['collectd'], fqdn: [HOST] },
      ofThisRun: true,
    })),
  );
  expect(graphite.flatMap(seen)).toEqual(
    LOAD.map((ds) => ({ name: `collectd.load.load.${ds}`, tags: { host: ['sender_example_com'] }, ofThisRun: true })),
  );
  expect(seen(http)).toEqual(
    ['longterm', 'midterm', 'shortterm'].map((ds) => ({
      name: 'collectd.load',
      tags: { ds: [ds], host: [HOST], type: ['load'] },
      ofThisRun: true,
    })),
  );
});

it('stops on TERM, having logged no error', async () => {
  await collectd.stop();
  expect(await collectd.exited).toBe(0);
  const problems = collectd
    .output()
    .split('\n')
    .filter((line) => /error|fail|refused|cannot/i.test(line));
  expect(problems, collectd.output()).toEqual([]);
});
