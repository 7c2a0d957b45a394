/**
 * Users' own tables beyond one series per partition, on a real Cassandra: tags in clustering columns before the time
 * (read by equality, listed by skip scans, in either clustering order), after the time and in regular columns (rows
 * told apart in memory), SAI indexes on tag columns finding series the catalogue has not seen, and time columns of
 * type bigint (milliseconds, seconds, microseconds) and timeuuid. Every table is created and filled with plain CQL;
 * every answer is computed here from the inserted rows.
 */
import type cassandra from 'cassandra-driver';
import cassandraDriver from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/gateway/config.js';
import type { TableSourceSettings } from '../../src/sources/table/table-settings.js';
import { openTableSource } from '../../src/sources/table/open-table-source.js';
import type { TableSource } from '../../src/sources/table/table-source.js';
import type { TimeUnit } from '../../src/sources/table/time-column.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { plainClient, testNode, waitFor } from './cassandra-stores.js';
import { clientSettings } from '../../src/gateway/layer-options.js';

afterAll(removeTempDirs);

const KS = 'wt_table_tags';
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Two whole UTC days of hourly points (49 times: both days and the next midnight), long before now: no TTL here. */
const START = Date.UTC(2024, 2, 1);
const TIMES = Array.from({ length: 49 }, (_, i) => START + i * HOUR);
const END = TIMES.at(-1)!;
const day = (t: number) => new Date(t).toISOString().slice(0, 10);
const { Long, TimeUuid } = cassandraDriver.types;

/** Each device's channels: d2 has no "c". */
const CHANNELS: Record<string, string[]> = { d1: ['a', 'b', 'c'], d2: ['a', 'b'] };
const valueAt = (device: string, channel: string, t: number) =>
  Number(device.slice(1)) * 1000 + channel.charCodeAt(0) * 10 + (t - START) / HOUR;

let client: cassandra.Client;
let primary: EmbeddedStore;
let gw: TestGateway;
const sources: TableSource[] = [];

function settings(
  name: string,
  table: string,
  mapping: Partial<TableSourceSettings['mapping']>,
  extra: Partial<TableSourceSettings> = {},
): TableSourceSettings {
  const node = testNode();
  return {
    name,
    layout: 'table',
    mapping: {
      keyspace: KS,
      table,
      time: 'ts',
      bucket: { column: 'day', kind: 'date-text', zone: 'UTC' },
      tags: ['device'],
      metrics: { v: 'v' },
      ...mapping,
    },
    cassandra: { contactPoints: [node.contactPoint], localDataCenter: node.localDataCenter, keyspace: KS },
    writable: true,
    maxBuckets: 1000,
    catalogue: { kind: 'scan', path: tempDir(), refreshIntervalMs: 600_000 },
    ...extra,
  };
}

async function insertAll(query: string, rows: unknown[][]): Promise<void> {
  for (let i = 0; i < rows.length; i += 100)
    await Promise.all(rows.slice(i, i + 100).map((params) => client.execute(query, params, { prepare: true })));
}

/** [device, channel, t] of every inserted point. */
const POINTS = Object.entries(CHANNELS).flatMap(([device, channels]) =>
  channels.flatMap((channel) => TIMES.map((t) => [device, channel, t] as const)),
);

/** Time column variants: the CQL type, the mapping's unit, and the cell a user's writer stores for a time. */
const TIME_KINDS: readonly { name: string; type: string; unit?: TimeUnit; cell: (t: number) => unknown }[] = [
  { name: 'bigint-ms', type: 'bigint', cell: (t) => Long.fromNumber(t) },
  { name: 'bigint-s', type: 'bigint', unit: 'seconds', cell: (t) => Long.fromNumber(t / 1000) },
  { name: 'bigint-us', type: 'bigint', unit: 'microseconds', cell: (t) => Long.fromNumber(t * 1000 + 123) },
  { name: 'timeuuid', type: 'timeuuid', cell: (t) => TimeUuid.fromDate(new Date(t)) },
];

beforeAll(async () => {
  client = await plainClient();
  await client.execute(`DROP KEYSPACE IF EXISTS ${KS}`);
  await client.execute(`CREATE KEYSPACE ${KS} WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  // A tag before the time, in both clustering orders.
  for (const [table, order] of [
    ['by_channel', 'ASC'],
    ['by_channel_desc', 'DESC'],
  ]) {
    await client.execute(
      `CREATE TABLE ${KS}.${table} (device text, day text, channel text, ts timestamp, v double, PRIMARY KEY ((device, day), channel, ts)) WITH CLUSTERING ORDER BY (channel ${order}, ts DESC)`,
    );
    await insertAll(
      `INSERT INTO ${KS}.${table} (device, day, channel, ts, v) VALUES (?, ?, ?, ?, ?)`,
      POINTS.map(([d, c, t]) => [d, day(t), c, new Date(t), valueAt(d, c, t)]),
    );
  }
  // A tag after the time: several rows per time, one per channel (an int column, its values rendered as text).
  await client.execute(
    `CREATE TABLE ${KS}.by_probe (device text, day text, ts timestamp, probe int, v double, PRIMARY KEY ((device, day), ts, probe))`,
  );
  await insertAll(
    `INSERT INTO ${KS}.by_probe (device, day, ts, probe, v) VALUES (?, ?, ?, ?, ?)`,
    POINTS.map(([d, c, t]) => [d, day(t), new Date(t), c.charCodeAt(0), valueAt(d, c, t)]),
  );
  // A regular column as a tag: one row per time, each of one channel (alternate hours).
  await client.execute(
    `CREATE TABLE ${KS}.by_unit (device text, day text, ts timestamp, unit text, v double, PRIMARY KEY ((device, day), ts))`,
  );
  await insertAll(
    `INSERT INTO ${KS}.by_unit (device, day, ts, unit, v) VALUES (?, ?, ?, ?, ?)`,
    TIMES.map((t, i) => [
      'd1',
      day(t),
      new Date(t),
      i % 2 === 0 ? 'C' : 'F',
      valueAt('d1', i % 2 === 0 ? 'C' : 'F', t),
    ]),
  );
  // SAI on a column of a composite partition key and on a regular column.
  await client.execute(
    `CREATE TABLE ${KS}.indexed (site text, device text, day text, ts timestamp, unit text, v double, PRIMARY KEY ((site, device, day), ts))`,
  );
  await client.execute(`CREATE INDEX indexed_site ON ${KS}.indexed (site) USING 'sai'`);
  await client.execute(`CREATE INDEX indexed_unit ON ${KS}.indexed (unit) USING 'sai'`);
  await insertAll(
    `INSERT INTO ${KS}.indexed (site, device, day, ts, unit, v) VALUES (?, ?, ?, ?, ?, ?)`,
    TIMES.map((t) => ['s1', 'd1', day(t), new Date(t), 'C', valueAt('d1', 'C', t)]),
  );
  for (const k of TIME_KINDS) {
    await client.execute(
      `CREATE TABLE ${KS}.time_${k.name.replace('-', '_')} (device text, day text, ts ${k.type}, v double, PRIMARY KEY ((device, day), ts)) WITH CLUSTERING ORDER BY (ts DESC)`,
    );
    await insertAll(
      `INSERT INTO ${KS}.time_${k.name.replace('-', '_')} (device, day, ts, v) VALUES (?, ?, ?, ?)`,
      TIMES.map((t) => ['d1', day(t), k.cell(t), valueAt('d1', 'a', t)]),
    );
  }

  primary = await EmbeddedStore.open({ path: tempDir() });
  const config = loadConfig({ SEED_DEMO: 'false' });
  const open = (s: TableSourceSettings, decoder?: string) =>
    openTableSource(
      clientSettings(decoder ? loadConfig({ SEED_DEMO: 'false', CASSANDRA_SCAN_DECODER: decoder }) : config),
      s,
      undefined,
    );
  const opened = await Promise.all([
    open(settings('channel', 'by_channel', { tags: ['device', 'channel'] })),
    open(settings('channel-desc', 'by_channel_desc', { tags: ['device', 'channel'] }, { writable: false })),
    open(settings('probe', 'by_probe', { tags: ['device', 'probe'] })),
    open(settings('unit', 'by_unit', { tags: ['device', 'unit'] })),
    open(settings('indexed', 'indexed', { tags: ['site', 'device', 'unit'] }, { writable: false })),
    ...TIME_KINDS.map((k) =>
      open(settings(k.name, `time_${k.name.replace('-', '_')}`, k.unit ? { timeUnit: k.unit } : {})),
    ),
    open(settings('bigint-ms-driver', 'time_bigint_ms', {}, { writable: false }), 'driver'),
  ]);
  sources.push(...opened);
  gw = await startGateway(primary, {}, { layouts: sources });
  await waitFor(
    'a whole catalogue pass of every table',
    () => sources.every((s) => s.capabilities.catalogue!.status().passes > 0),
    60_000,
  );
}, 240_000);

afterAll(async () => {
  await gw?.close();
  await primary?.close();
  await client?.shutdown();
});

const points = async (source: string, where: string, extra = '') => {
  const { body } = await gw.graphql(
    `{ points(metric: "v", from: ${START}, to: ${END}, where: [${where}], source: "${source}"${extra}) { device: tag(name: "device") points { epochMs value } } }`,
  );
  return body;
};
const series = (device: string, channel: string, times = TIMES) =>
  times.map((t) => ({ epochMs: t, value: valueAt(device, channel, t) }));

describe.each([['channel'], ['channel-desc']])('a tag in a clustering column before the time (%s)', (source) => {
  it('lists its values per partition from the catalogue, by skip scans', async () => {
    const { body } =
      await gw.graphql(`{ all: tagValues(metric: "v", tag: "channel", from: ${START}, to: ${END}, source: "${source}")
      d2: tagValues(metric: "v", tag: "channel", from: ${START}, to: ${END}, where: [{ tag: "device", eq: "d2" }], source: "${source}") }`);
    expect(body).toEqual({ data: { all: ['a', 'b', 'c'], d2: ['a', 'b'] } });
    // 2 devices × 2 days + the last midnight: 6 partitions, 5 series per day pair.
    expect(sources.find((s) => s.name === source)!.capabilities.catalogue!.status().partitions).toBe(3 * 3 + 3 * 2);
  });

  it('reads one series per statement, across buckets, in both orders', async () => {
    expect(await points(source, '{ tag: "device", eq: "d1" }, { tag: "channel", eq: "b" }')).toEqual({
      data: { points: [{ device: 'd1', points: series('d1', 'b') }] },
    });
    const { body } = await gw.graphql(
      `{ points(metric: "v", from: ${START}, to: ${END}, where: [{ tag: "device", eq: "d2" }, { tag: "channel", eq: "a" }], order: DESC, limit: 3, source: "${source}") { points { epochMs value } } }`,
    );
    expect(body).toEqual({ data: { points: [{ points: series('d2', 'a').slice(-3).reverse() }] } });
  });

  it('aggregates per channel, each series its own', async () => {
    const { body } = await gw.graphql(
      `{ series(metric: "v", from: ${START}, to: ${END - 1}, where: [{ tag: "device", eq: "d1" }], groupBy: { tags: ["channel"] }, aggregators: [{ sum: { sampling: { value: 1, unit: DAYS } } }], source: "${source}") { tag(name: "channel") points { epochMs value } } }`,
    );
    const sum = (c: string, from: number) =>
      TIMES.filter((t) => t >= from && t < from + DAY).reduce((a, t) => a + valueAt('d1', c, t), 0);
    expect(body).toEqual({
      data: {
        series: ['a', 'b', 'c'].map((c) => ({
          tag: c,
          points: [
            { epochMs: START, value: sum(c, START) },
            { epochMs: START + DAY, value: sum(c, START + DAY) },
          ],
        })),
      },
    });
  });
});

describe('a clustering-before-time tag, written and deleted through the gateway', () => {
  it('writes a new channel into its rows, finds it at once, and deletes only its rows', async () => {
    const t = START + 5 * HOUR;
    const add = await gw.graphql(
      `mutation { addPoints(source: "channel", series: [{ metric: "v", tags: [{ name: "device", value: "d1" }, { name: "channel", value: "z" }], points: [{ time: ${t}, value: 1.5 }, { time: ${t + HOUR}, value: 2.5 }] }]) { points } }`,
    );
    expect(add.body).toEqual({ data: { addPoints: { points: 2 } } });
    const rows = await client.execute(
      `SELECT channel, ts, v FROM ${KS}.by_channel WHERE device = 'd1' AND day = ? AND channel = 'z'`,
      [day(t)],
      { prepare: true },
    );
    expect(rows.rows.map((r) => [r['channel'], (r['ts'] as Date).getTime(), r['v']])).toEqual([
      ['z', t + HOUR, 2.5],
      ['z', t, 1.5],
    ]);
    expect(await points('channel', '{ tag: "channel", eq: "z" }')).toEqual({
      data: {
        points: [
          {
            device: 'd1',
            points: [
              { epochMs: t, value: 1.5 },
              { epochMs: t + HOUR, value: 2.5 },
            ],
          },
        ],
      },
    });
    const del = await gw.graphql(
      `mutation { deletePoints(metric: "v", from: ${START}, to: ${END}, where: [{ tag: "channel", eq: "z" }], source: "channel") { partitionsDeleted } }`,
    );
    expect(del.body.errors).toBeUndefined();
    const left = await client.execute(
      `SELECT count(*) AS n FROM ${KS}.by_channel WHERE device = 'd1' AND day = ?`,
      [day(t)],
      { prepare: true },
    );
    expect(Number(left.rows[0]!['n'])).toBe(3 * 24);
    expect(await points('channel', '{ tag: "device", eq: "d1" }, { tag: "channel", eq: "a" }')).toEqual({
      data: { points: [{ device: 'd1', points: series('d1', 'a') }] },
    });
  });
});

describe('a tag in a clustering column after the time', () => {
  it('tells each probe rows apart in memory, lists probes, and aggregates by probe', async () => {
    const { body } = await gw.graphql(
      `{ tagValues(metric: "v", tag: "probe", from: ${START}, to: ${END}, source: "probe") }`,
    );
    expect(body).toEqual({ data: { tagValues: ['97', '98', '99'] } });
    expect(await points('probe', '{ tag: "device", eq: "d2" }, { tag: "probe", eq: "98" }')).toEqual({
      data: { points: [{ device: 'd2', points: series('d2', 'b') }] },
    });
    const max = await gw.graphql(
      `{ series(metric: "v", from: ${START}, to: ${END}, where: [{ tag: "device", eq: "d1" }], groupBy: { tags: ["probe"] }, aggregators: [{ max: { sampling: { value: 3, unit: DAYS } } }], source: "probe") { tag(name: "probe") points { value } } }`,
    );
    expect(max.body).toEqual({
      data: {
        series: ['a', 'b', 'c'].map((c) => ({
          tag: String(c.charCodeAt(0)),
          points: [{ value: valueAt('d1', c, END) }],
        })),
      },
    });
  });

  it('counts a limit in the series own points, newest first', async () => {
    const { body } = await gw.graphql(
      `{ points(metric: "v", from: ${START}, to: ${END}, where: [{ tag: "device", eq: "d1" }, { tag: "probe", eq: "99" }], order: DESC, limit: 4, source: "probe") { points { epochMs value } } }`,
    );
    expect(body).toEqual({ data: { points: [{ points: series('d1', 'c').slice(-4).reverse() }] } });
  });

  it('deletes one probe rows and leaves the others at the same times', async () => {
    const del = await gw.graphql(
      `mutation { deletePoints(metric: "v", from: ${START}, to: ${START + 2 * HOUR}, where: [{ tag: "device", eq: "d2" }, { tag: "probe", eq: "97" }], source: "probe") { partitionsDeleted } }`,
    );
    expect(del.body.errors).toBeUndefined();
    const rows = await client.execute(
      `SELECT ts, probe FROM ${KS}.by_probe WHERE device = 'd2' AND day = ? AND ts <= ?`,
      [day(START), new Date(START + 2 * HOUR)],
      { prepare: true },
    );
    expect(rows.rows.map((r) => [(r['ts'] as Date).getTime() - START, r['probe']])).toEqual(
      [0, HOUR, 2 * HOUR].map((dt) => [dt, 98]),
    );
  });
});

describe('a tag in a regular column', () => {
  const unitTimes = (unit: 'C' | 'F') => TIMES.filter((_, i) => (i % 2 === 0) === (unit === 'C'));

  it('lists the values its rows hold and reads each series rows out of the shared partition', async () => {
    const { body } = await gw.graphql(
      `{ tagValues(metric: "v", tag: "unit", from: ${START}, to: ${END}, source: "unit") }`,
    );
    expect(body).toEqual({ data: { tagValues: ['C', 'F'] } });
    expect(await points('unit', '{ tag: "unit", eq: "F" }')).toEqual({
      data: { points: [{ device: 'd1', points: series('d1', 'F', unitTimes('F')) }] },
    });
    const limited = await gw.graphql(
      `{ points(metric: "v", from: ${START}, to: ${END}, where: [{ tag: "unit", eq: "C" }], order: DESC, limit: 2, source: "unit") { points { epochMs } } }`,
    );
    expect(limited.body).toEqual({
      data: {
        points: [
          {
            points: unitTimes('C')
              .slice(-2)
              .reverse()
              .map((t) => ({ epochMs: t })),
          },
        ],
      },
    });
  });

  it('writes the tag into the row, and deletes only the rows of the series', async () => {
    const t = END + 10 * 60_000;
    const add = await gw.graphql(
      `mutation { addPoints(source: "unit", series: [{ metric: "v", tags: [{ name: "device", value: "d1" }, { name: "unit", value: "K" }], points: [{ time: ${t}, value: 273 }] }]) { points } }`,
    );
    expect(add.body).toEqual({ data: { addPoints: { points: 1 } } });
    const row = await client.execute(
      `SELECT unit, v FROM ${KS}.by_unit WHERE device = 'd1' AND day = ? AND ts = ?`,
      [day(t), new Date(t)],
      { prepare: true },
    );
    expect(row.rows.map((r) => [r['unit'], r['v']])).toEqual([['K', 273]]);
    const del = await gw.graphql(
      `mutation { deletePoints(metric: "v", from: ${END - 3 * HOUR}, to: ${t}, where: [{ tag: "unit", eq: "F" }], source: "unit") { partitionsDeleted } }`,
    );
    expect(del.body.errors).toBeUndefined();
    const rows = [day(END - HOUR), day(END)].map((d) =>
      client.execute(
        `SELECT ts, unit FROM ${KS}.by_unit WHERE device = 'd1' AND day = ? AND ts >= ?`,
        [d, new Date(END - 3 * HOUR)],
        { prepare: true },
      ),
    );
    // END is hour 48 (C); the F rows at hours 45 and 47 went; the C rows and K's stay.
    expect(
      (await Promise.all(rows)).flatMap((r) => r.rows.map((row) => [(row['ts'] as Date).getTime(), row['unit']])),
    ).toEqual([
      [END - 2 * HOUR, 'C'],
      [END, 'C'],
      [t, 'K'],
    ]);
  });
});

describe('a tag with an SAI index (Cassandra 5)', () => {
  const bySource = (extensions: Record<string, unknown> | undefined) =>
    (extensions!['statistics'] as { storeCallsBySource: Record<string, Record<string, number>> }).storeCallsBySource[
      'indexed'
    ];

  it('finds a series the catalogue has not seen through the index, and teaches it to the catalogue', async () => {
    const t = START + 7 * HOUR;
    await client.execute(
      `INSERT INTO ${KS}.indexed (site, device, day, ts, unit, v) VALUES ('s1', 'd9', ?, ?, 'F', 42)`,
      [day(t), new Date(t)],
      { prepare: true },
    );
    const viaCatalogue = await gw.graphql(
      `{ points(metric: "v", from: ${START}, to: ${END}, where: [{ tag: "device", eq: "d9" }], source: "indexed") { points { value } } }`,
    );
    expect(viaCatalogue.body).toEqual({ data: { points: [] } });
    expect(bySource(viaCatalogue.extensions)).toMatchObject({ catalogue: 1, index: 0 });

    const viaIndex = await gw.graphql(
      `{ points(metric: "v", from: ${START}, to: ${END}, where: [{ tag: "site", eq: "s1" }], source: "indexed") { device: tag(name: "device") unit: tag(name: "unit") points { epochMs value } } }`,
    );
    expect(viaIndex.body).toEqual({
      data: {
        points: [
          { device: 'd1', unit: 'C', points: series('d1', 'C') },
          { device: 'd9', unit: 'F', points: [{ epochMs: t, value: 42 }] },
        ],
      },
    });
    expect(bySource(viaIndex.extensions)).toMatchObject({ catalogue: 0, index: 1 });
    // Now the catalogue knows it too.
    const after = await gw.graphql(
      `{ tagValues(metric: "v", tag: "device", from: ${START}, to: ${END}, source: "indexed") }`,
    );
    expect(after.body).toEqual({ data: { tagValues: ['d1', 'd9'] } });
  });

  it('looks up a regular indexed tag, keeping only the buckets of the range', async () => {
    const t = START + 30 * HOUR;
    await client.execute(
      `INSERT INTO ${KS}.indexed (site, device, day, ts, unit, v) VALUES ('s2', 'd7', ?, ?, 'K', 7)`,
      [day(t), new Date(t)],
      { prepare: true },
    );
    const first = await gw.graphql(
      `{ points(metric: "v", from: ${START}, to: ${START + DAY - 1}, where: [{ tag: "unit", eq: "K" }], source: "indexed") { points { value } } }`,
    );
    expect(first.body).toEqual({ data: { points: [] } });
    const second = await gw.graphql(
      `{ points(metric: "v", from: ${START + DAY}, to: ${END}, where: [{ tag: "unit", in: ["K", "Q"] }], source: "indexed") { site: tag(name: "site") device: tag(name: "device") points { epochMs value } } }`,
    );
    expect(second.body).toEqual({
      data: { points: [{ site: 's2', device: 'd7', points: [{ epochMs: t, value: 7 }] }] },
    });
    expect(bySource(second.extensions)).toMatchObject({ catalogue: 0, index: 1 });
  });
});

describe.each(TIME_KINDS.map((k) => [k.name, k] as const))('a %s time column', (name, kind) => {
  it('answers points in time order, newest first with a limit, and hourly averages', async () => {
    expect(await points(name, '')).toEqual({ data: { points: [{ device: 'd1', points: series('d1', 'a') }] } });
    const { body } =
      await gw.graphql(`{ newest: points(metric: "v", from: ${START}, to: ${END}, order: DESC, limit: 2, source: "${name}") { points { epochMs } }
      inner: points(metric: "v", from: ${START + HOUR + 1}, to: ${START + 3 * HOUR - 1}, source: "${name}") { points { epochMs } } }`);
    expect(body).toEqual({
      data: {
        newest: [{ points: [{ epochMs: END }, { epochMs: END - HOUR }] }],
        inner: [{ points: [{ epochMs: START + 2 * HOUR }] }],
      },
    });
  });

  it('writes a point as the column stores time, and deletes it', async () => {
    const t = START + 90 * 60_000;
    const add = await gw.graphql(
      `mutation { addPoints(source: "${name}", series: [{ metric: "v", tags: [{ name: "device", value: "d1" }], points: [{ time: ${t}, value: 0.5 }] }]) { points } }`,
    );
    expect(add.body).toEqual({ data: { addPoints: { points: 1 } } });
    const table = `${KS}.time_${name.replace('-', '_')}`;
    const rows = await client.execute(`SELECT ts, v FROM ${table} WHERE device = 'd1' AND day = ?`, [day(t)], {
      prepare: true,
    });
    const cell = rows.rows.find((r) => r['v'] === 0.5)!['ts'];
    const expectedCell =
      kind.type === 'timeuuid'
        ? String(new Date(t).getTime())
        : String(kind.unit === 'microseconds' ? t * 1000 : kind.unit === 'seconds' ? t / 1000 : t);
    expect(
      kind.type === 'timeuuid' ? String((cell as cassandra.types.TimeUuid).getDate().getTime()) : String(cell),
    ).toBe(expectedCell);
    expect(await points(name, '', '')).toEqual({
      data: {
        points: [
          {
            device: 'd1',
            points: [...series('d1', 'a'), { epochMs: t, value: 0.5 }].sort((a, b) => a.epochMs - b.epochMs),
          },
        ],
      },
    });
    const del = await gw.graphql(
      `mutation { deletePoints(metric: "v", from: ${t}, to: ${t}, source: "${name}") { partitionsDeleted } }`,
    );
    expect(del.body.errors).toBeUndefined();
    expect(await points(name, '')).toEqual({ data: { points: [{ device: 'd1', points: series('d1', 'a') }] } });
  });
});

describe('time column checks and decoders', () => {
  it('reads a bigint milliseconds column the same lean and through the driver', async () => {
    expect(await points('bigint-ms-driver', '')).toEqual(await points('bigint-ms', ''));
  });

  it('refuses a point between whole seconds for a seconds column, naming it', async () => {
    const { body } = await gw.graphql(
      `mutation { addPoints(source: "bigint-s", series: [{ metric: "v", tags: [{ name: "device", value: "d1" }], points: [{ time: ${START + 1500}, value: 1 }] }]) { points } }`,
    );
    expect(body.errors?.map((e) => e.message)).toEqual([
      `series[0].points[0].time must be a whole second for the time column ts of unit seconds (got ${START + 1500})`,
    ]);
  });

  it.each([
    [
      'a time column of a type that is no time',
      'by_unit',
      { time: 'ts', tags: ['device', 'unit'], metrics: { v: 'unit' } },
      `metric "v"'s column "unit" is also a tag`,
    ],
    [
      'a time column of type text',
      'bad_time',
      {},
      'time column "ts" has type text; it must be timestamp, bigint or timeuuid',
    ],
    [
      'a timeUnit for a timestamp column',
      'by_unit',
      { tags: ['device', 'unit'], timeUnit: 'seconds' as TimeUnit },
      'time column "ts" has type timestamp, which carries its own unit: timeUnit is for a bigint time column',
    ],
    [
      'a clustering column before the time left out of the tags',
      'by_channel',
      {},
      `clustering column "channel" of ${KS}.by_channel comes before the time column "ts" and must be a tag (add it to tags)`,
    ],
    [
      'a clustering column after the time left out of the tags',
      'by_probe',
      {},
      `${KS}.by_probe has clustering columns after the time column (probe): several rows per time cannot be one series unless each is a tag`,
    ],
  ])('stops start-up on %s, naming the source and the column', async (_, table, mapping, message) => {
    await client.execute(
      `CREATE TABLE IF NOT EXISTS ${KS}.bad_time (device text, day text, ts text, v double, PRIMARY KEY ((device, day), ts))`,
    );
    await expect(
      openTableSource(clientSettings(loadConfig({})), settings('bad', table, mapping), undefined),
    ).rejects.toThrow(`SOURCES_FILE source "bad": ${message}`);
  });
});
