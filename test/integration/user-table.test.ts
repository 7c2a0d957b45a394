/**
 * Users' own tables on a real Cassandra: the issue's `sensor_readings` table (DESC clustering, a 30-day default TTL)
 * and the same data under every bucket kind, created and filled with plain CQL (bucket values computed here, not by
 * the layout), answer `metricNames`, `tagValues`, `points` and `series` (avg per hour, max per day in Europe/Berlin,
 * grouped by sensor) exactly as computed from the inserted rows, across bucket boundaries. Mappings that do not fit
 * the table stop the source with a message naming the column; a query over too many buckets is a budget error; a
 * writable source writes the mapped columns with the table's TTL and deletes inside buckets.
 */
import type cassandra from 'cassandra-driver';
import cassandraDriver from 'cassandra-driver';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/gateway/config.js';
import type { TableSourceSettings } from '../../src/sources/table/table-settings.js';
import type { BucketKind } from '../../src/sources/table/buckets.js';
import { openTableSource } from '../../src/sources/table/open-table-source.js';
import type { TableSource } from '../../src/sources/table/table-source.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { plainClient, testNode, waitFor } from './cassandra-stores.js';
import { clientSettings } from '../../src/gateway/layer-options.js';

afterAll(removeTempDirs);

const KS = 'kg_user_tables';
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Three whole days of points every 20 minutes, ending at the last whole hour: in every table's TTL. */
const END = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
const START = END - 3 * DAY;
const TIMES = Array.from({ length: (3 * DAY) / (20 * 60_000) + 1 }, (_, i) => START + i * 20 * 60_000);
const SENSORS = ['s1', 's2', 's3'];
const valueAt = (sensor: string, t: number) => Number(sensor.slice(1)) * 100 + (((t - START) / 60_000) % 97);

interface Kind {
  readonly kind: BucketKind;
  readonly table: string;
  readonly cqlType: string;
  readonly widthMs?: number;
  /** The bucket column's value for a time, computed here as a user's writer would. */
  readonly value: (t: number) => unknown;
}

const KINDS: readonly Kind[] = [
  {
    kind: 'date-text',
    table: 'sensor_readings',
    cqlType: 'text',
    value: (t) => new Date(t).toISOString().slice(0, 10),
  },
  {
    kind: 'date',
    table: 'readings_by_date',
    cqlType: 'date',
    value: (t) => cassandraDriver.types.LocalDate.fromString(new Date(t).toISOString().slice(0, 10)),
  },
  { kind: 'epoch-day', table: 'readings_by_epoch_day', cqlType: 'int', value: (t) => Math.floor(t / DAY) },
  { kind: 'epoch-hour', table: 'readings_by_epoch_hour', cqlType: 'int', value: (t) => Math.floor(t / HOUR) },
  {
    kind: 'fixed',
    table: 'readings_by_six_hours',
    cqlType: 'bigint',
    widthMs: 6 * HOUR,
    value: (t) => cassandraDriver.types.Long.fromNumber(Math.floor(t / (6 * HOUR))),
  },
];

let client: cassandra.Client;
let primary: EmbeddedStore;
let gw: TestGateway;
const sources: TableSource[] = [];

function settings(name: string, kind: Kind, extra: Partial<TableSourceSettings> = {}): TableSourceSettings {
  const node = testNode();
  return {
    name,
    layout: 'table',
    mapping: {
      keyspace: KS,
      table: kind.table,
      time: 'reading_time',
      bucket: { column: 'day', kind: kind.kind, zone: 'UTC', ...(kind.widthMs ? { widthMs: kind.widthMs } : {}) },
      tags: ['sensor_id'],
      metrics: { 'sensor.value': 'value' },
    },
    cassandra: { contactPoints: [node.contactPoint], localDataCenter: node.localDataCenter, keyspace: KS },
    writable: false,
    maxBuckets: 1000,
    catalogue: { kind: 'scan', path: tempDir(), refreshIntervalMs: 60_000 },
    ...extra,
  };
}

beforeAll(async () => {
  client = await plainClient();
  await client.execute(`DROP KEYSPACE IF EXISTS ${KS}`);
  await client.execute(`CREATE KEYSPACE ${KS} WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  for (const k of KINDS) {
    await client.execute(
      `CREATE TABLE ${KS}.${k.table} (sensor_id text, day ${k.cqlType}, reading_time timestamp, value double, PRIMARY KEY ((sensor_id, day), reading_time))
       WITH CLUSTERING ORDER BY (reading_time DESC) AND default_time_to_live = 2592000
       AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 1}`,
    );
    const insert = `INSERT INTO ${KS}.${k.table} (sensor_id, day, reading_time, value) VALUES (?, ?, ?, ?)`;
    const rows = SENSORS.flatMap((sensor) => TIMES.map((t) => [sensor, k.value(t), new Date(t), valueAt(sensor, t)]));
    for (let i = 0; i < rows.length; i += 100)
      await Promise.all(rows.slice(i, i + 100).map((params) => client.execute(insert, params, { prepare: true })));
  }
  primary = await EmbeddedStore.open({ path: tempDir() });
  const config = loadConfig({ SEED_DEMO: 'false' });
  for (const k of KINDS)
    sources.push(
      await openTableSource(
        clientSettings(config),
        settings(k.kind, k, k.kind === 'date-text' ? { writable: true } : {}),
        undefined,
      ),
    );
  gw = await startGateway(primary, {}, { layouts: sources });
  await waitFor(
    'a whole catalogue pass of every table',
    () => sources.every((s) => s.capabilities.catalogue!.status().passes > 0),
    30_000,
  );
}, 180_000);

afterAll(async () => {
  await gw?.close();
  await primary?.close();
  await client?.shutdown();
});

/** Averages (or maxima) of each sensor's points in buckets of `bucketOf`, as [sensor, [{epochMs, value}]]. */
function expected(reduce: 'avg' | 'max', bucketOf: (t: number) => number, times = TIMES) {
  return SENSORS.map((sensor) => {
    const buckets = new Map<number, number[]>();
    for (const t of times) buckets.set(bucketOf(t), [...(buckets.get(bucketOf(t)) ?? []), valueAt(sensor, t)]);
    return {
      tag: sensor,
      points: [...buckets].map(([epochMs, values]) => ({
        epochMs,
        value: reduce === 'max' ? Math.max(...values) : values.reduce((a, b) => a + b, 0) / values.length,
      })),
    };
  });
}

describe.each(KINDS.map((k) => [k.kind, k] as const))('a table with %s buckets', (name) => {
  it('lists its metric and its sensors from the catalogue', async () => {
    const { body } = await gw.graphql(
      `{ metricNames(source: "${name}") tagValues(metric: "sensor.value", tag: "sensor_id", from: ${START}, to: ${END}, source: "${name}") }`,
    );
    expect(body).toEqual({ data: { metricNames: ['sensor.value'], tagValues: SENSORS } });
  });

  it('answers points in time order across bucket boundaries, and in the table order when asked', async () => {
    const asc = await gw.graphql(
      `{ points(metric: "sensor.value", from: ${START}, to: ${END}, where: [{ tag: "sensor_id", eq: "s2" }], source: "${name}") { points { epochMs value } } }`,
    );
    expect(asc.body).toEqual({
      data: { points: [{ points: TIMES.map((t) => ({ epochMs: t, value: valueAt('s2', t) })) }] },
    });
    const desc = await gw.graphql(
      `{ points(metric: "sensor.value", from: ${START}, to: ${END}, where: [{ tag: "sensor_id", eq: "s2" }], order: DESC, limit: 5, source: "${name}") { points { epochMs } } }`,
    );
    expect(desc.body).toEqual({
      data: {
        points: [
          {
            points: TIMES.slice(-5)
              .reverse()
              .map((t) => ({ epochMs: t })),
          },
        ],
      },
    });
  });

  it('answers avg per hour grouped by sensor, and max per day in Europe/Berlin', async () => {
    const hourly = await gw.graphql(
      `{ series(metric: "sensor.value", from: ${START}, to: ${END - 1}, groupBy: { tags: ["sensor_id"] }, aggregators: [{ avg: { sampling: { value: 1, unit: HOURS } } }], source: "${name}") { tag(name: "sensor_id") points { epochMs value } } }`,
    );
    expect(hourly.body).toEqual({
      data: { series: expected('avg', (t) => Math.floor(t / HOUR) * HOUR, TIMES.slice(0, -1)) },
    });
    const berlinStart = DateTime.fromMillis(START, { zone: 'Europe/Berlin' })
      .startOf('day')
      .plus({ days: 1 })
      .toMillis();
    const daily = await gw.graphql(
      `{ series(metric: "sensor.value", from: ${berlinStart}, to: ${END}, groupBy: { tags: ["sensor_id"] }, timeZone: "Europe/Berlin", aggregators: [{ max: { sampling: { value: 1, unit: DAYS } } }], source: "${name}") { tag(name: "sensor_id") points { epochMs value } } }`,
    );
    const inRange = TIMES.filter((t) => t >= berlinStart);
    expect(daily.body).toEqual({
      data: {
        series: expected(
          'max',
          (t) => DateTime.fromMillis(t, { zone: 'Europe/Berlin' }).startOf('day').toMillis(),
          inRange,
        ),
      },
    });
  });
});

describe('a table source', () => {
  it('refuses a query over more buckets than maxBucketsPerQuery, naming them', async () => {
    const { body } = await gw.graphql(
      `{ points(metric: "sensor.value", from: ${END - 2000 * DAY}, to: ${END}, source: "date-text") { name } }`,
    );
    expect(body.errors?.map((e) => [e.message, e.extensions?.['code']])).toEqual([
      [
        expect.stringMatching(
          /^query exceeded its buckets budget of 1000 \(maxBucketsPerQuery of source "date-text": 2001 date-text buckets from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d are over the limit of 1000\)$/,
        ),
        'BUDGET_EXCEEDED',
      ],
    ]);
  });

  it('writes the mapped column with the table TTL, learns the sensor at once, and deletes inside a bucket', async () => {
    const t = END - 30 * 60_000;
    const add = await gw.graphql(
      `mutation { addPoints(source: "date-text", series: [{ metric: "sensor.value", tags: [{ name: "sensor_id", value: "s9" }], points: [{ time: ${t}, value: 7.5 }, { time: ${t + 1000}, value: 8 }] }]) { points } }`,
    );
    expect(add.body).toEqual({ data: { addPoints: { points: 2 } } });
    const rows = await client.execute(
      `SELECT reading_time, value, TTL(value) AS ttl FROM ${KS}.sensor_readings WHERE sensor_id = ? AND day = ?`,
      ['s9', new Date(t).toISOString().slice(0, 10)],
      { prepare: true },
    );
    expect(rows.rows.map((r) => [(r['reading_time'] as Date).getTime(), r['value']])).toEqual([
      [t + 1000, 8],
      [t, 7.5],
    ]);
    expect(rows.rows.every((r) => (r['ttl'] as number) > 2_591_000)).toBe(true);
    const values = await gw.graphql(
      `{ tagValues(metric: "sensor.value", tag: "sensor_id", from: ${START}, to: ${END}, source: "date-text") }`,
    );
    expect(values.body).toEqual({ data: { tagValues: [...SENSORS, 's9'] } });
    const del = await gw.graphql(
      `mutation { deletePoints(metric: "sensor.value", from: ${t}, to: ${t}, where: [{ tag: "sensor_id", eq: "s9" }], source: "date-text") { partitionsDeleted } }`,
    );
    expect(del.body.errors).toBeUndefined();
    const left = await gw.graphql(
      `{ points(metric: "sensor.value", from: ${START}, to: ${END}, where: [{ tag: "sensor_id", eq: "s9" }], source: "date-text") { points { epochMs value } } }`,
    );
    expect(left.body).toEqual({ data: { points: [{ points: [{ epochMs: t + 1000, value: 8 }] }] } });
  });

  it('refuses writes to a source that is not writable, and tags that are not its columns', async () => {
    const write = (source: string, tag: string) =>
      gw.graphql(
        `mutation { addPoints(source: "${source}", series: [{ metric: "sensor.value", tags: [{ name: "${tag}", value: "x" }], points: [{ time: ${END}, value: 1 }] }]) { points } }`,
      );
    expect((await write('date', 'sensor_id')).body.errors?.map((e) => e.message)).toEqual([
      'source is read-only: a table source takes writes only with "writable": true in its settings (got "date")',
    ]);
    expect((await write('date-text', 'room')).body.errors?.map((e) => e.message)).toEqual([
      'series[0].tags.room is not a tag of this table: its tags are sensor_id (got "x")',
    ]);
  });

  it('reads every value type, lean and through the driver alike, a null cell being no point', async () => {
    await client.execute(
      `CREATE TABLE IF NOT EXISTS ${KS}.typed (id text, day text, ts timestamp, i int, b bigint, s smallint, t tinyint, f float, d double, dec decimal, txt text, PRIMARY KEY ((id, day), ts))`,
    );
    const t0 = END - 2 * HOUR;
    const rows: unknown[][] = [
      [t0, 1, '9007199254740993', 2, 3, 1.5, 0.1, '12.25', 'up'],
      [t0 + 1000, null, '-5', null, -4, null, -2.5, null, null],
      [t0 + 2000, -2147483648, '9223372036854775807', -32768, -128, -1.25, 1e300, '-0.5', 'down'],
    ];
    for (const [ts, ...values] of rows) {
      await client.execute(
        `INSERT INTO ${KS}.typed (id, day, ts, i, b, s, t, f, d, dec, txt) VALUES ('x', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          new Date(ts as number).toISOString().slice(0, 10),
          new Date(ts as number),
          values[0],
          values[1] === null ? null : cassandraDriver.types.Long.fromString(values[1] as string),
          values[2],
          values[3],
          values[4],
          values[5],
          values[6] === null ? null : cassandraDriver.types.BigDecimal.fromString(values[6] as string),
          values[7],
        ],
        { prepare: true },
      );
    }
    const columns = ['i', 'b', 's', 't', 'f', 'd', 'dec', 'txt'];
    const typed = (name: string, decoder: string) =>
      openTableSource(
        clientSettings(loadConfig({ CASSANDRA_SCAN_DECODER: decoder })),
        {
          ...settings(name, KINDS[0]!),
          mapping: {
            keyspace: KS,
            table: 'typed',
            time: 'ts',
            bucket: { column: 'day', kind: 'date-text', zone: 'UTC' },
            tags: ['id'],
            metrics: Object.fromEntries(columns.map((c) => [`m.${c}`, c])),
          },
          catalogue: { kind: 'static', series: [{ id: 'x' }] },
        },
        undefined,
      );
    const [lean, driver] = await Promise.all([typed('typed-lean', 'lean'), typed('typed-driver', 'driver')]);
    const other = await startGateway(primary, {}, { layouts: [lean, driver] });
    try {
      const answers = await Promise.all(
        ['typed-lean', 'typed-driver'].map(async (source) => {
          const fields = columns
            .map(
              (c) =>
                `${c}: points(metric: "m.${c}", from: ${t0}, to: ${t0 + 2000}, source: "${source}") { points { epochMs value long text } }`,
            )
            .join(' ');
          return (await other.graphql(`{ ${fields} }`)).body;
        }),
      );
      expect(answers[0]).toEqual(answers[1]);
      const points = (c: string) => (answers[0]!.data![c] as { points: unknown[] }[])[0]!.points;
      expect(points('i')).toEqual([
        { epochMs: t0, value: 1, long: 1, text: null },
        { epochMs: t0 + 2000, value: -2147483648, long: -2147483648, text: null },
      ]);
      expect(points('b')).toEqual([
        { epochMs: t0, value: 9007199254740992, long: '9007199254740993', text: null },
        { epochMs: t0 + 1000, value: -5, long: -5, text: null },
        { epochMs: t0 + 2000, value: 2 ** 63, long: '9223372036854775807', text: null },
      ]);
      expect(points('t').map((p) => (p as { value: number }).value)).toEqual([3, -4, -128]);
      expect(points('f').map((p) => (p as { value: number }).value)).toEqual([1.5, -1.25]);
      expect(points('d').map((p) => (p as { value: number }).value)).toEqual([0.1, -2.5, 1e300]);
      expect(points('dec').map((p) => (p as { value: number }).value)).toEqual([12.25, -0.5]);
      expect(points('txt').map((p) => (p as { text: string }).text)).toEqual(['up', 'down']);
    } finally {
      await other.close();
      await Promise.all([lean.close(), driver.close()]);
    }
  });

  it.each([
    ['a table that does not exist', { table: 'nope' }, 'table kg_user_tables.nope does not exist'],
    [
      'a bucket column that is not in the partition key',
      { time: 'reading_time', bucket: { column: 'value', kind: 'date-text', zone: 'UTC' } },
      'bucket column "value" must be in the partition key of kg_user_tables.sensor_readings (it is a regular column)',
    ],
    [
      'a bucket column of the wrong type',
      { bucket: { column: 'day', kind: 'epoch-day', zone: 'UTC' } },
      'bucket column "day" has type text; a epoch-day bucket must be int or bigint',
    ],
    [
      'a missing value column',
      { metrics: { 'sensor.value': 'temperature' } },
      `metric "sensor.value"'s column "temperature" is not a column of kg_user_tables.sensor_readings (its columns: `,
    ],
    [
      'a partition key column left out of the tags',
      { tags: [] },
      'partition key column "sensor_id" of kg_user_tables.sensor_readings must be a tag (add it to tags)',
    ],
    [
      'a time column that is not the clustering column',
      { time: 'value' },
      'time column "value" must be a clustering column of kg_user_tables.sensor_readings (it is a regular column)',
    ],
  ])('stops start-up on %s, naming the source and the column', async (_, change, message) => {
    const base = settings('bad', KINDS[0]!);
    await expect(
      openTableSource(
        clientSettings(loadConfig({})),
        { ...base, mapping: { ...base.mapping, ...change } as TableSourceSettings['mapping'] },
        undefined,
      ),
    ).rejects.toThrow(`SOURCES_FILE source "bad": ${message}`);
  });
});
