/**
 * Interoperability with KairosDB on a real Cassandra: rows laid out with plain CQL exactly as KairosDB writes them
 * (hex bytes from the reference, not from our codecs) are read through the gateway's REST API, and what the gateway
 * writes is read back with plain CQL and checked byte for byte, with millisecond write times and TTLs, by both write
 * encoders and beside KairosDB's own insert statement.
 */
import type cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.js';
import type { WriteEncoder } from '../../src/store/cassandra/options.js';
import type { WriteBatch } from '../../src/model/write-batch.js';
import { murmur3TagHash } from '../../src/store/format/murmur3.js';
import { parseTagIndexConfig } from '../../src/store/tag-index.js';
import { startRestGateway, type RestGateway } from '../rest/rest-client.js';
import { emptyKeyspace, plainClient, storeOptions } from './cassandra-stores.js';

/** ClusterConnection's DDL (KairosDB 1.3), without the COMPACT STORAGE that Cassandra 4+ refuses. */
const KAIROSDB_TABLES = [
  'CREATE TABLE IF NOT EXISTS data_points (key blob, column1 blob, value blob, PRIMARY KEY ((key), column1))',
  'CREATE TABLE IF NOT EXISTS row_key_index (key blob, column1 blob, value blob, PRIMARY KEY ((key), column1))',
  'CREATE TABLE IF NOT EXISTS string_index (key blob, column1 text, value blob, PRIMARY KEY ((key), column1))',
  'CREATE TABLE IF NOT EXISTS row_keys (metric text, table_name text, row_time timestamp, data_type text, tags frozen<map<text, text>>, mtime timeuuid static, value text, PRIMARY KEY ((metric, table_name, row_time), data_type, tags))',
  'CREATE TABLE IF NOT EXISTS tag_indexed_row_keys (metric text, table_name text, row_time timestamp, single_tag_pair text, tag_collection_hash int, data_type text, tags frozen<map<text, text>>, mtime timeuuid static, value text, PRIMARY KEY ((metric, table_name, row_time, single_tag_pair), data_type, tag_collection_hash, tags))',
  'CREATE TABLE IF NOT EXISTS row_key_time_index (metric text, table_name text, row_time timestamp, value text, PRIMARY KEY ((metric), table_name, row_time))',
  'CREATE TABLE IF NOT EXISTS spec (spec_type text, name text, value text, PRIMARY KEY ((spec_type), name))',
  'CREATE TABLE IF NOT EXISTS service_index (service text, service_key text, key text, mtime timeuuid static, value text, PRIMARY KEY ((service, service_key), key))',
];
const TABLES = [
  'data_points',
  'row_key_index',
  'string_index',
  'row_keys',
  'tag_indexed_row_keys',
  'row_key_time_index',
  'spec',
  'service_index',
];

/** Reference §2.1's worked example: row time 1435190400000 = 0x0000014e28039400; the next 3-week row starts 1814400000 later. */
const R = 1_435_190_400_000;
const R_HEX = '0000014e28039400';
const R2 = 1_437_004_800_000;
const R2_HEX = '0000014e94292000';
const WIDTH = 1_814_400_000;
/** `cpu` 00 R 00 0b `kairos_long` `dc=x=:y:host=a:`, the 40 bytes of reference §2.1. */
const CPU_A_KEY = `637075 00 ${R_HEX} 00 0b 6b6169726f735f6c6f6e67 64633d783d3a793a686f73743d613a`;

const hex = (spaced: string) => Buffer.from(spaced.replace(/\s+/g, ''), 'hex');
const ks = (name: string) => `kg_interop_${name}`;

let cql: cassandra.Client;

beforeAll(async () => {
  cql = await plainClient();
});
afterAll(async () => {
  await cql?.shutdown();
});

/** An empty keyspace with KairosDB's own tables, as a KairosDB write cluster leaves it before any data. */
async function kairosKeyspace(name: string): Promise<string> {
  const keyspace = ks(name);
  await cql.execute(
    `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH REPLICATION = {'class': 'SimpleStrategy','replication_factor' : 1}`,
  );
  for (const ddl of KAIROSDB_TABLES) await cql.execute(ddl.replace('IF NOT EXISTS ', `IF NOT EXISTS ${keyspace}.`));
  await Promise.all(TABLES.map((t) => cql.execute(`TRUNCATE ${keyspace}.${t}`)));
  return keyspace;
}

/** KairosDB's inserts, with its millisecond write time. */
async function kairosInsert(keyspace: string, statements: [string, unknown[]][]): Promise<void> {
  const timestamp = Date.now();
  for (const [query, params] of statements)
    await cql.execute(query.replaceAll('%ks', keyspace), params, { prepare: true, timestamp });
}

const dataPoint = (key: string, column: string, value: string): [string, unknown[]] => [
  'INSERT INTO %ks.data_points (key, column1, value) VALUES (?, ?, ?) USING TTL ? AND TIMESTAMP ?',
  [hex(key), hex(column), hex(value), 0, Date.now()],
];
const rowKey = (
  metric: string,
  rowTime: number,
  dataType: string,
  tags: Record<string, string>,
): [string, unknown[]] => [
  'INSERT INTO %ks.row_keys (metric, table_name, row_time, data_type, tags, mtime) VALUES (?, ?, ?, ?, ?, now()) USING TTL ?',
  [metric, 'data_points', new Date(rowTime), dataType, new Map(Object.entries(tags)), 0],
];
const rowTime = (metric: string, time: number): [string, unknown[]] => [
  'INSERT INTO %ks.row_key_time_index (metric, table_name, row_time) VALUES (?, ?, ?) USING TTL ?',
  [metric, 'data_points', new Date(time), 0],
];
const metricName = (metric: string): [string, unknown[]] => [
  'INSERT INTO %ks.string_index (key, column1, value) VALUES (?, ?, 0x00)',
  [Buffer.from('metric_names'), metric],
];
const spec = (unit: string, width: string): [string, unknown[]][] => [
  ['INSERT INTO %ks.spec (spec_type, name, value) VALUES (?, ?, ?)', ['cluster_config', 'row_time_unit', unit]],
  ['INSERT INTO %ks.spec (spec_type, name, value) VALUES (?, ?, ?)', ['cluster_config', 'row_width', width]],
];

async function gatewayOn(keyspace: string, tagIndexed?: unknown): Promise<{ store: CassandraStore; gw: RestGateway }> {
  const store = await CassandraStore.open(
    storeOptions(keyspace, tagIndexed === undefined ? {} : { tagIndexedMetrics: parseTagIndexConfig(tagIndexed) }),
  );
  return { store, gw: await startRestGateway(store) };
}

async function query(
  gw: RestGateway,
  metric: string,
  tags: Record<string, string[]>,
  start: number,
  end: number,
): Promise<string> {
  const response = await gw.call('POST', '/api/v1/datapoints/query', {
    body: { start_absolute: start, end_absolute: end, metrics: [{ name: metric, tags }] },
  });
  expect(response.status).toBe(200);
  return response.text;
}

describe('KairosDB 1.3 rows written with plain CQL, read through the gateway', () => {
  let keyspace: string;
  let store: CassandraStore;
  let gw: RestGateway;

  beforeAll(async () => {
    keyspace = await kairosKeyspace('kairos13');
    await kairosInsert(keyspace, [
      ...spec('MILLISECONDS', '1814400000'),
      metricName('cpu'),
      metricName('neg'),
      rowTime('cpu', R),
      rowTime('cpu', R2),
      rowTime('neg', -2),
      rowKey('cpu', R, 'kairos_long', { host: 'a', dc: 'x:y' }),
      rowKey('cpu', R2, 'kairos_long', { host: 'a', dc: 'x:y' }),
      rowKey('cpu', R, 'kairos_double', { host: 'b' }),
      rowKey('cpu', R, 'kairos_string', { host: 'c' }),
      rowKey('neg', -2, 'kairos_long', { host: 'a' }),
      // Varints of reference §3: -1 → 01, 300 → d804, Long.MAX → feffffffffffffffff01; the last column of a row is 0x6c258bff.
      dataPoint(CPU_A_KEY, '00000000', '01'),
      dataPoint(CPU_A_KEY, '6c258bff', 'd804'),
      dataPoint(
        `637075 00 ${R2_HEX} 00 0b 6b6169726f735f6c6f6e67 64633d783d3a793a686f73743d613a`,
        '00000000',
        'feffffffffffffffff01',
      ),
      dataPoint(`637075 00 ${R_HEX} 00 0d 6b6169726f735f646f75626c65 686f73743d623a`, '00000005', '3ff8000000000000'),
      dataPoint(`637075 00 ${R_HEX} 00 0d 6b6169726f735f737472696e67 686f73743d633a`, '00000007', '00026869'),
      // ts -1 lives in KairosDB's unaligned row -2 at column 1; varint 2 is 04.
      dataPoint('6e6567 00 fffffffffffffffe 00 0b 6b6169726f735f6c6f6e67 686f73743d613a', '00000001', '04'),
    ]);
    ({ store, gw } = await gatewayOn(keyspace));
  });
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });

  it('reads the spec KairosDB wrote', async () => {
    expect(await store.spec()).toEqual({ unit: 'MILLISECONDS', width: WIDTH });
  });

  it('reads longs across a row boundary, up to Long.MAX, with escaped tags', async () => {
    expect(await query(gw, 'cpu', { host: ['a'] }, R, R2 + 10)).toBe(
      '{"queries":[{"sample_size":3,"results":[{"name":"cpu","group_by":[{"name":"type","type":"number"}],"tags":{"dc":["x:y"],"host":["a"]},' +
        `"values":[[${R},-1],[${R + WIDTH - 1},300],[${R2},9223372036854775807]]}]}]}`,
    );
  });

  it('reads doubles and strings', async () => {
    expect(JSON.parse(await query(gw, 'cpu', { host: ['b', 'c'] }, R, R + 10))).toEqual({
      queries: [
        {
          sample_size: 2,
          results: [
            {
              name: 'cpu',
              group_by: [{ name: 'type', type: 'number' }],
              tags: { host: ['b'] },
              values: [[R + 5, 1.5]],
            },
            { name: 'cpu', group_by: [{ name: 'type', type: 'text' }], tags: { host: ['c'] }, values: [[R + 7, 'hi']] },
          ],
        },
      ],
    });
  });

  it("reads a negative timestamp from KairosDB's unaligned row", async () => {
    expect(JSON.parse(await query(gw, 'neg', {}, -10, 10)).queries[0].results[0].values).toEqual([[-1, 2]]);
  });
});

describe('a cluster KairosDB ≤1.2 created (LEGACY), with kairos_legacy rows and the row_key_index', () => {
  let store: CassandraStore;
  let gw: RestGateway;
  const legacyKey = `6f6c64 00 ${R_HEX} 686f73743d613a`;
  const typedKey = `6f6c64 00 ${R_HEX} 00 0b 6b6169726f735f6c6f6e67 686f73743d623a`;

  beforeAll(async () => {
    const keyspace = await kairosKeyspace('legacy');
    await kairosInsert(keyspace, [
      ...spec('LEGACY', '1814400000'),
      metricName('old'),
      // ≤1.1 found series only through row_key_index: partition = UTF-8 metric name, column = the full row key.
      [
        'INSERT INTO %ks.row_key_index (key, column1, value) VALUES (?, ?, ?)',
        [Buffer.from('old'), hex(legacyKey), Buffer.alloc(0)],
      ],
      [
        'INSERT INTO %ks.row_key_index (key, column1, value) VALUES (?, ?, ?)',
        [Buffer.from('old'), hex(typedKey), Buffer.alloc(0)],
      ],
      // The typed series is listed by 1.3's index too: the two lookups must not read it twice.
      rowTime('old', R),
      rowKey('old', R, 'kairos_long', { host: 'b' }),
      // kairos_legacy: column = offset << 1 | flag (1 = float/double); longs are minimal big-endian (0 is empty), floats 01 + 4 bytes.
      dataPoint(legacyKey, '00000000', '012c'),
      dataPoint(legacyKey, '00000002', ''),
      dataPoint(legacyKey, '00000004', 'ffffffffffffffff'),
      dataPoint(legacyKey, '00000007', '013fc00000'),
      dataPoint(legacyKey, '00000009', '00 4002000000000000'),
      // A typed row in a LEGACY cluster: columns are offset << 1, so the row's last ms is 0xd84b17fe, past 2^31.
      dataPoint(typedKey, '00000014', '0e'),
      dataPoint(typedKey, 'd84b17fe', '10'),
    ]);
    ({ store, gw } = await gatewayOn(keyspace));
  });
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });

  it('decodes kairos_legacy longs and floats by the column flag', async () => {
    expect(JSON.parse(await query(gw, 'old', { host: ['a'] }, R, R + 100)).queries[0]).toEqual({
      sample_size: 5,
      results: [
        {
          name: 'old',
          group_by: [{ name: 'type', type: 'number' }],
          tags: { host: ['a'] },
          values: [
            [R, 300],
            [R + 1, 0],
            [R + 2, -1],
            [R + 3, 1.5],
            [R + 4, 2.25],
          ],
        },
      ],
    });
  });

  it('decodes LEGACY column names up to the last ms of a row and reads a series listed twice once', async () => {
    expect(JSON.parse(await query(gw, 'old', { host: ['b'] }, R, R + WIDTH)).queries[0]).toEqual({
      sample_size: 2,
      results: [
        {
          name: 'old',
          group_by: [{ name: 'type', type: 'number' }],
          tags: { host: ['b'] },
          values: [
            [R + 10, 7],
            [R + WIDTH - 1, 8],
          ],
        },
      ],
    });
  });
});

describe('spec of a keyspace with data from KairosDB ≤1.2 and no spec rows', () => {
  it('is written as LEGACY, as KairosDB does when string_index already lists metric names', async () => {
    const keyspace = await kairosKeyspace('nospec');
    await kairosInsert(keyspace, [metricName('old.metric')]);
    const store = await CassandraStore.open(storeOptions(keyspace));
    try {
      expect(await store.spec()).toEqual({ unit: 'LEGACY', width: WIDTH });
      const rows = await cql.execute(`SELECT name, value FROM ${keyspace}.spec WHERE spec_type = 'cluster_config'`);
      expect(rows.rows.map((r) => [r.get('name'), r.get('value')])).toEqual([
        ['row_time_unit', 'LEGACY'],
        ['row_width', '1814400000'],
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('what the gateway writes, read back with plain CQL', () => {
  let keyspace: string;
  let store: CassandraStore;
  let gw: RestGateway;
  let before: number;
  let after: number;

  beforeAll(async () => {
    keyspace = ks('written');
    await cql.execute(
      `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
    );
    const tables = await cql.execute(
      'SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?',
      [keyspace],
      { prepare: true },
    );
    await Promise.all(tables.rows.map((r) => cql.execute(`TRUNCATE ${keyspace}.${String(r.get('table_name'))}`)));
    ({ store, gw } = await gatewayOn(keyspace));
    before = Date.now();
    const written = await gw.call('POST', '/api/v1/datapoints', {
      body: [
        {
          name: 'cpu',
          tags: { host: 'a', dc: 'x:y' },
          datapoints: [
            [R, 300],
            [R + 1, -1],
          ],
          ttl: 86_400,
        },
        { name: 'cpu', tags: { host: 'b' }, type: 'double', datapoints: [[R + 5, 1.5]] },
        { name: 'cpu', tags: { host: 'c' }, type: 'string', datapoints: [[R + 7, 'hi']] },
        { name: 'mem', tags: { host: 'a' }, datapoints: [[R, 1]], ttl: 3600 },
      ],
    });
    after = Date.now();
    expect(written.status).toBe(204);
  });
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });

  const cells = async (key: string) =>
    (
      await cql.execute(
        `SELECT column1, value, WRITETIME(value) AS wt, TTL(value) AS ttl FROM ${keyspace}.data_points WHERE key = ?`,
        [hex(key)],
        { prepare: true },
      )
    ).rows.map((r) => ({
      column: (r.get('column1') as Buffer).toString('hex'),
      value: (r.get('value') as Buffer).toString('hex'),
      writeTime: Number(r.get('wt')),
      ttl: r.get('ttl') as number | null,
    }));

  it('creates the keyspace as KairosDB would and writes its spec', async () => {
    const spec = await cql.execute(`SELECT name, value FROM ${keyspace}.spec WHERE spec_type = 'cluster_config'`);
    expect(spec.rows.map((r) => [r.get('name'), r.get('value')])).toEqual([
      ['row_time_unit', 'MILLISECONDS'],
      ['row_width', '1814400000'],
    ]);
    const tables = await cql.execute(
      'SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?',
      [keyspace],
      { prepare: true },
    );
    expect(tables.rows.map((r) => r.get('table_name')).sort()).toEqual([...TABLES].sort());
  });

  it("writes the reference's row key, column and varint bytes with a millisecond write time and the point's TTL", async () => {
    const written = await cells(CPU_A_KEY);
    expect(written.map(({ column, value }) => ({ column, value }))).toEqual([
      { column: '00000000', value: 'd804' },
      { column: '00000001', value: '01' },
    ]);
    for (const cell of written) {
      expect(cell.writeTime).toBeGreaterThanOrEqual(before);
      expect(cell.writeTime).toBeLessThanOrEqual(after);
      expect(cell.ttl).toBeGreaterThan(86_400 - 60);
      expect(cell.ttl).toBeLessThanOrEqual(86_400);
    }
  });

  it('writes doubles and strings in KairosDB encodings, without TTL when none was asked', async () => {
    expect(
      (await cells(`637075 00 ${R_HEX} 00 0d 6b6169726f735f646f75626c65 686f73743d623a`)).map(
        ({ column, value, ttl }) => ({ column, value, ttl }),
      ),
    ).toEqual([{ column: '00000005', value: '3ff8000000000000', ttl: null }]);
    expect(
      (await cells(`637075 00 ${R_HEX} 00 0d 6b6169726f735f737472696e67 686f73743d633a`)).map(
        ({ column, value, ttl }) => ({ column, value, ttl }),
      ),
    ).toEqual([{ column: '00000007', value: '00026869', ttl: null }]);
  });

  it('writes row_keys, row_key_time_index and string_index as KairosDB reads them, index TTL a row width past the data', async () => {
    const keys = await cql.execute(
      `SELECT data_type, tags, WRITETIME(mtime) AS wt FROM ${keyspace}.row_keys WHERE metric = ? AND table_name = ? AND row_time = ?`,
      ['cpu', 'data_points', new Date(R)],
      { prepare: true },
    );
    expect(
      keys.rows.map((r) => [r.get('data_type'), Object.fromEntries(r.get('tags') as Map<string, string>)]),
    ).toEqual([
      ['kairos_double', { host: 'b' }],
      ['kairos_long', { dc: 'x:y', host: 'a' }],
      ['kairos_string', { host: 'c' }],
    ]);
    // mtime is static: one per partition, from whichever series' insert Cassandra applied last.
    const writeTime = Number(keys.rows[0]!.get('wt'));
    expect(writeTime).toBeGreaterThanOrEqual(before);
    expect(writeTime).toBeLessThanOrEqual(after);
    const times = await cql.execute(
      `SELECT row_time FROM ${keyspace}.row_key_time_index WHERE metric = ? AND table_name = ?`,
      ['cpu', 'data_points'],
      { prepare: true },
    );
    expect(times.rows.map((r) => (r.get('row_time') as Date).getTime())).toEqual([R]);
    const names = await cql.execute(
      `SELECT column1, value, WRITETIME(value) AS wt FROM ${keyspace}.string_index WHERE key = ?`,
      [Buffer.from('metric_names')],
      { prepare: true },
    );
    expect(names.rows.map((r) => (r.get('value') as Buffer).toString('hex'))).toEqual(['00', '00']);
    expect(Number(names.rows[0]!.get('wt'))).toBeGreaterThanOrEqual(before);
    expect(Number(names.rows[0]!.get('wt'))).toBeLessThanOrEqual(after);
    expect(names.rows.map((r) => r.get('column1'))).toEqual(['cpu', 'mem']);
    // mem's partition holds one series, so its static column carries that series' index TTL: 3600 s + a row width.
    const ttl = await cql.execute(
      `SELECT TTL(mtime) AS ttl FROM ${keyspace}.row_keys WHERE metric = ? AND table_name = ? AND row_time = ?`,
      ['mem', 'data_points', new Date(R)],
      { prepare: true },
    );
    expect(ttl.rows[0]!.get('ttl')).toBeGreaterThan(3600 + WIDTH / 1000 - 60);
    expect(ttl.rows[0]!.get('ttl')).toBeLessThanOrEqual(3600 + WIDTH / 1000);
  });

  it('deletes with millisecond tombstones: KairosDB writing the deleted range again a moment later is visible', async () => {
    const deleted = await gw.call('POST', '/api/v1/datapoints/delete', {
      body: { start_absolute: R, end_absolute: R, metrics: [{ name: 'cpu', tags: { host: ['a'] } }] },
    });
    expect(deleted.status).toBe(204);
    expect((await cells(CPU_A_KEY)).map((c) => c.column)).toEqual(['00000001']);
    // A microsecond tombstone (≈1.7e15) would shadow every millisecond write (≈1.7e12) forever.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await kairosInsert(keyspace, [dataPoint(CPU_A_KEY, '00000000', '0e')]);
    expect(JSON.parse(await query(gw, 'cpu', { host: ['a'] }, R, R + 10)).queries[0].results[0].values).toEqual([
      [R, 7],
      [R + 1, -1],
    ]);
  });

  it('deletes a covered partition with its row_keys entry, and the row time once no series is left', async () => {
    const whole = await gw.call('POST', '/api/v1/datapoints/delete', {
      body: { start_absolute: R, end_absolute: R + WIDTH - 1, metrics: [{ name: 'cpu', tags: { host: ['a', 'b'] } }] },
    });
    expect(whole.status).toBe(204);
    expect(await cells(CPU_A_KEY)).toEqual([]);
    const keysLeft = async () =>
      (
        await cql.execute(
          `SELECT data_type FROM ${keyspace}.row_keys WHERE metric = ? AND table_name = ? AND row_time = ?`,
          ['cpu', 'data_points', new Date(R)],
          { prepare: true },
        )
      ).rows
        .map((r) => r.get('data_type'))
        .filter((t) => t !== null);
    const timesLeft = async () =>
      (
        await cql.execute(
          `SELECT row_time FROM ${keyspace}.row_key_time_index WHERE metric = ? AND table_name = ?`,
          ['cpu', 'data_points'],
          { prepare: true },
        )
      ).rows.length;
    expect(await keysLeft()).toEqual(['kairos_string']);
    expect(await timesLeft()).toBe(1);
    const last = await gw.call('POST', '/api/v1/datapoints/delete', {
      body: { start_absolute: R, end_absolute: R + WIDTH - 1, metrics: [{ name: 'cpu' }] },
    });
    expect(last.status).toBe(204);
    expect(await keysLeft()).toEqual([]);
    expect(await timesLeft()).toBe(0);
  });
});

describe("what both write encoders store, beside KairosDB's own insert, on tables with a default_time_to_live", () => {
  /** A day by default: a cell written with TTL 0 must still never expire, as KairosDB's explicit `USING TTL 0` makes it. */
  const DEFAULT_TTL = 86_400;
  const tableOptions = {
    data_points: `WITH default_time_to_live = ${DEFAULT_TTL}`,
    row_keys: `WITH default_time_to_live = ${DEFAULT_TTL}`,
  };
  const batch: WriteBatch = {
    series: [
      {
        metric: 'enc',
        tags: { host: 'a' },
        type: 'long',
        ttlSeconds: 0,
        timestamps: [R, R + 1, R2 + 5],
        values: [300, -1, 2n ** 63n - 1n],
      },
      { metric: 'enc', tags: { host: 'b' }, type: 'double', ttlSeconds: 3600, timestamps: [R + 5], values: [1.5] },
      { metric: 'enc', tags: { host: 'c' }, type: 'string', ttlSeconds: 0, timestamps: [R + 7], values: ['hi'] },
      // Alone in its row_keys partition, so that partition's static mtime carries this series' index TTL.
      { metric: 'forever', tags: { host: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [R], values: [1] },
    ],
  };
  interface Cell {
    key: string;
    column: string;
    value: string | null;
    writeTime: number;
    ttl: number | null;
  }
  const written: Partial<
    Record<WriteEncoder | 'kairosdb', { keyspace: string; cells: Cell[]; before: number; after: number }>
  > = {};

  /** A keyspace with KairosDB's tables made with the options above, empty. */
  async function keyspaceWithOptions(
    name: string,
    encoder: WriteEncoder = 'lean',
  ): Promise<{ keyspace: string; store: CassandraStore }> {
    const keyspace = ks(name);
    await emptyKeyspace(cql, keyspace);
    return {
      keyspace,
      store: await CassandraStore.open(storeOptions(keyspace, { tableOptions, writeEncoder: encoder })),
    };
  }

  async function cellsOf(keyspace: string): Promise<Cell[]> {
    const rows = await cql.execute(
      `SELECT key, column1, value, WRITETIME(value) AS wt, TTL(value) AS ttl FROM ${keyspace}.data_points`,
    );
    return rows.rows
      .map((r) => ({
        key: (r.get('key') as Buffer).toString('hex'),
        column: (r.get('column1') as Buffer).toString('hex'),
        value: (r.get('value') as Buffer | null)?.toString('hex') ?? null,
        writeTime: Number(r.get('wt')),
        ttl: r.get('ttl') as number | null,
      }))
      .sort((a, b) => (a.key + a.column < b.key + b.column ? -1 : 1));
  }

  beforeAll(async () => {
    for (const encoder of ['lean', 'driver'] as const) {
      const { keyspace, store } = await keyspaceWithOptions(`enc_${encoder}`, encoder);
      try {
        const before = Date.now();
        await store.write(batch);
        written[encoder] = { keyspace, cells: await cellsOf(keyspace), before, after: Date.now() };
      } finally {
        await store.close();
      }
    }
    // KairosDB's own statement, `USING TTL ? AND TIMESTAMP ?`, for the same cells at the write time the gateway used,
    // in an unlogged batch per partition as KairosDB sends them.
    const { keyspace, store } = await keyspaceWithOptions('enc_kairosdb');
    await store.close();
    const lean = written.lean!;
    const ttlOf = (cell: Cell) => (cell.ttl === null ? 0 : 3600);
    const byKey = new Map<string, Cell[]>();
    for (const cell of lean.cells) byKey.set(cell.key, [...(byKey.get(cell.key) ?? []), cell]);
    for (const cells of byKey.values()) {
      const queries = cells.map((cell) => ({
        query: `INSERT INTO ${keyspace}.data_points (key, column1, value) VALUES (?, ?, ?) USING TTL ? AND TIMESTAMP ?`,
        params: [
          Buffer.from(cell.key, 'hex'),
          Buffer.from(cell.column, 'hex'),
          Buffer.from(cell.value!, 'hex'),
          ttlOf(cell),
          cell.writeTime,
        ],
      }));
      await cql.batch(queries, { prepare: true, logged: false, timestamp: cells[0]!.writeTime });
    }
    written.kairosdb = { keyspace, cells: await cellsOf(keyspace), before: lean.before, after: lean.after };
  });

  it('lay out the same cells with either encoder, every one with the write time of the write', () => {
    const { lean, driver } = written;
    const layout = (cells: Cell[]) =>
      cells.map(({ key, column, value, ttl }) => ({ key, column, value, expires: ttl !== null }));
    expect(layout(lean!.cells)).toEqual(layout(driver!.cells));
    expect(lean!.cells).toHaveLength(6);
    for (const { cells, before, after } of [lean!, driver!]) {
      expect(new Set(cells.map((c) => c.writeTime)).size).toBe(1);
      expect(cells[0]!.writeTime).toBeGreaterThanOrEqual(before);
      expect(cells[0]!.writeTime).toBeLessThanOrEqual(after);
    }
  });

  it("store what KairosDB's insert stores: the same cells, write times and TTLs", () => {
    const { lean, kairosdb } = written;
    const rounded = (cells: Cell[]) =>
      cells.map(({ ttl, ...cell }) => ({ ...cell, ttl: ttl === null ? null : Math.round(ttl / 60) }));
    expect(rounded(lean!.cells)).toEqual(rounded(kairosdb!.cells));
  });

  it('keep TTL 0 as "never expires" on a table with a default TTL, and a TTL as given', async () => {
    // The table's default at work: a cell inserted without a TTL of its own expires after a day.
    const { keyspace } = written.kairosdb!;
    await cql.execute(`INSERT INTO ${keyspace}.data_points (key, column1, value) VALUES (0x00, 0x00000000, 0x00)`);
    const defaulted = await cql.execute(`SELECT TTL(value) AS ttl FROM ${keyspace}.data_points WHERE key = 0x00`);
    expect(defaulted.rows[0]!.get('ttl')).toBeGreaterThan(DEFAULT_TTL - 60);
    for (const { cells } of [written.lean!, written.driver!]) {
      // Varints 300, -1, Long.MAX and 1 (reference §3).
      const longs = cells.filter((c) => ['d804', '01', 'feffffffffffffffff01', '02'].includes(c.value!));
      expect(longs.map((c) => c.ttl)).toEqual([null, null, null, null]);
      const double = cells.filter((c) => c.value === '3ff8000000000000');
      expect(double).toHaveLength(1);
      expect(double[0]!.ttl).toBeGreaterThan(3600 - 60);
      expect(double[0]!.ttl).toBeLessThanOrEqual(3600);
      expect(cells.filter((c) => c.value === '00026869').map((c) => c.ttl)).toEqual([null]);
    }
  });

  it('keep the index of a series that never expires without a TTL, on a row_keys table with a default TTL', async () => {
    for (const { keyspace } of [written.lean!, written.driver!]) {
      const rows = await cql.execute(
        `SELECT data_type, TTL(mtime) AS ttl FROM ${keyspace}.row_keys WHERE metric = ? AND table_name = ? AND row_time = ?`,
        ['forever', 'data_points', new Date(R)],
        {
          prepare: true,
        },
      );
      expect(rows.rows.map((r) => [r.get('data_type'), r.get('ttl')])).toEqual([['kairos_long', null]]);
    }
  });

  it("write rows as KairosDB's INSERT does: the row outlives its value (a row marker), in both", async () => {
    const { lean, kairosdb } = written;
    const cell = lean!.cells[0]!;
    for (const { keyspace } of [lean!, kairosdb!]) {
      await cql.execute(
        `DELETE value FROM ${keyspace}.data_points USING TIMESTAMP ? WHERE key = ? AND column1 = ?`,
        [cell.writeTime + 1, Buffer.from(cell.key, 'hex'), Buffer.from(cell.column, 'hex')],
        {
          prepare: true,
        },
      );
      const rows = await cql.execute(
        `SELECT column1, value FROM ${keyspace}.data_points WHERE key = ? AND column1 = ?`,
        [Buffer.from(cell.key, 'hex'), Buffer.from(cell.column, 'hex')],
        { prepare: true },
      );
      expect(rows.rows.map((r) => [(r.get('column1') as Buffer).toString('hex'), r.get('value')])).toEqual([
        [cell.column, null],
      ]);
    }
  });

  it('give each write a later write time than the one before, even within one millisecond', async () => {
    const { keyspace, store } = await keyspaceWithOptions('enc_lean');
    try {
      const cell = (value: number): WriteBatch => ({
        series: [
          { metric: 'again', tags: { host: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [R], values: [value] },
        ],
      });
      // Sent together, so most likely within one millisecond. Cassandra breaks a tie of write times by the greater
      // value, 3 (varint 06), so only write times in the order of the writes let the last one, 1 (02), win.
      await Promise.all([store.write(cell(3)), store.write(cell(2)), store.write(cell(1))]);
      const rows = await cql.execute(`SELECT value FROM ${keyspace}.data_points`);
      expect(rows.rows.map((r) => (r.get('value') as Buffer).toString('hex'))).toEqual(['02']);
    } finally {
      await store.close();
    }
  });
});

/** KairosDB 1.3's TagIndexedRowKeysTableLookup insert, as ClusterConnection prepares it. */
const tagIndexed = (
  metric: string,
  time: number,
  dataType: string,
  pair: string,
  hash: number,
  tags: Record<string, string>,
  ttl = 0,
): [string, unknown[]] => [
  'INSERT INTO %ks.tag_indexed_row_keys (metric, table_name, row_time, data_type, single_tag_pair, tag_collection_hash, tags, mtime) VALUES (?, ?, ?, ?, ?, ?, ?, now()) USING TTL ?',
  [metric, 'data_points', new Date(time), dataType, pair, hash, new Map(Object.entries(tags)), ttl],
];
/** `cpu` 00 R 00 0b `kairos_long` and a tag string. */
const cpuLongKey = (tagHex: string) => `637075 00 ${R_HEX} 00 0b 6b6169726f735f6c6f6e67 ${tagHex}`;
const DC_X_HOST_A = '64633d783a686f73743d613a';
const DC_Z_HOST_A = '64633d7a3a686f73743d613a';
const DC_Y_HOST_B = '64633d793a686f73743d623a';
/** The reference's worked examples (docs/kairosdb-format.md §6): murmur3 of "hosta" and of "dcxhosta". */
const HASH_HOST_A = -1147264974;
const HASH_DC_X_HOST_A = 1750428808;
const murmur3 = (text: string) => murmur3TagHash([text]);

describe("KairosDB 1.3's tag index, tag_indexed_row_keys", () => {
  it('finds the series KairosDB indexed by the pinned tag, and those of tags it does not index through row_keys', async () => {
    const keyspace = await kairosKeyspace('tagindex_read');
    await kairosInsert(keyspace, spec('MILLISECONDS', '1814400000'));
    // Indexing is on before any data, as for a keyspace KairosDB has always indexed: every period is complete.
    const { store, gw } = await gatewayOn(keyspace, { cpu: ['host'] });
    try {
      await kairosInsert(keyspace, [
        metricName('cpu'),
        rowTime('cpu', R),
        rowKey('cpu', R, 'kairos_long', { dc: 'x', host: 'a' }),
        rowKey('cpu', R, 'kairos_long', { dc: 'y', host: 'b' }),
        tagIndexed('cpu', R, 'kairos_long', 'host=a', HASH_HOST_A, { dc: 'x', host: 'a' }),
        tagIndexed('cpu', R, 'kairos_long', 'host=b', murmur3('hostb'), { dc: 'y', host: 'b' }),
        // Listed by the index alone: a reader that finds it went through tag_indexed_row_keys, as KairosDB's does.
        tagIndexed('cpu', R, 'kairos_long', 'host=a', murmur3('hosta'), { dc: 'z', host: 'a' }),
        dataPoint(cpuLongKey(DC_X_HOST_A), '00000000', '02'),
        dataPoint(cpuLongKey(DC_Z_HOST_A), '00000001', '04'),
        dataPoint(cpuLongKey(DC_Y_HOST_B), '00000002', '06'),
      ]);
      const before = store.statements;
      expect(await query(gw, 'cpu', { host: ['a'] }, R, R + 10)).toBe(
        '{"queries":[{"sample_size":2,"results":[{"name":"cpu","group_by":[{"name":"type","type":"number"}],"tags":{"dc":["x","z"],"host":["a"]},' +
          `"values":[[${R},1],[${R + 1},2]]}]}]}`,
      );
      expect(delta(before, store.statements)).toEqual({
        'tag_indexed_row_keys.select': 1,
        'row_key_time_index.select': 1,
        'row_key_index.select': 1,
        'data_points.select': 2,
      });
      // dc is not indexed: KairosDB 1.3 reads the empty dc=y partition and answers nothing; row_keys has the series.
      const again = store.statements;
      expect(await query(gw, 'cpu', { dc: ['y'] }, R, R + 10)).toBe(
        '{"queries":[{"sample_size":1,"results":[{"name":"cpu","group_by":[{"name":"type","type":"number"}],"tags":{"dc":["y"],"host":["b"]},' +
          `"values":[[${R + 2},3]]}]}]}`,
      );
      expect(delta(again, store.statements)).toMatchObject({ 'row_keys.select': 1 });
    } finally {
      await gw.close();
      await store.close();
    }
  });

  it('finds series of periods written before indexing was turned on, through row_keys', async () => {
    const keyspace = await kairosKeyspace('tagindex_late');
    await kairosInsert(keyspace, [
      ...spec('MILLISECONDS', '1814400000'),
      metricName('cpu'),
      rowTime('cpu', R),
      rowKey('cpu', R, 'kairos_long', { dc: 'x', host: 'a' }),
      dataPoint(cpuLongKey(DC_X_HOST_A), '00000000', '02'),
    ]);
    const { store, gw } = await gatewayOn(keyspace, { cpu: ['host'] });
    try {
      expect(await query(gw, 'cpu', { host: ['a'] }, R, R + 10)).toBe(
        '{"queries":[{"sample_size":1,"results":[{"name":"cpu","group_by":[{"name":"type","type":"number"}],"tags":{"dc":["x"],"host":["a"]},' +
          `"values":[[${R},1]]}]}]}`,
      );
      expect(store.statements['tag_indexed_row_keys.select']).toBeUndefined();
      // The gateway noted since when host is indexed: the first row period after the current one.
      const marker = await cql.execute(
        `SELECT key, value FROM ${keyspace}.service_index WHERE service = ? AND service_key = ?`,
        ['kairograph', 'tag_index_since'],
        { prepare: true },
      );
      const next = Date.now() - (Date.now() % WIDTH) + WIDTH;
      expect(marker.rows.map((r) => [r.get('key'), r.get('value')])).toEqual([['["cpu","host"]', String(next)]]);
    } finally {
      await gw.close();
      await store.close();
    }
  });

  it("writes KairosDB's rows: the literal pair, the murmur3 hash of the indexed tags, the full tag map, the row_keys TTL", async () => {
    const rows = async (keyspace: string) =>
      (
        await cql.execute(
          `SELECT metric, table_name, row_time, single_tag_pair, data_type, tag_collection_hash, tags, value, TTL(mtime) AS ttl, WRITETIME(mtime) AS wt FROM ${keyspace}.tag_indexed_row_keys`,
          [],
          { prepare: true },
        )
      ).rows
        .map((r) => ({
          partition: [
            r.get('metric'),
            r.get('table_name'),
            (r.get('row_time') as Date).getTime(),
            r.get('single_tag_pair'),
          ],
          clustering: [
            r.get('data_type'),
            r.get('tag_collection_hash'),
            Object.fromEntries(r.get('tags') as Map<string, string>),
          ],
          value: r.get('value'),
          ttl: r.get('ttl') as number | null,
          writeTime: Number(r.get('wt')),
        }))
        // A whole-table SELECT comes in token order.
        .sort((a, b) => JSON.stringify(a.partition).localeCompare(JSON.stringify(b.partition)));
    const series = { metric: 'cpu', tags: { host: 'a', dc: 'x' }, type: 'long' as const, timestamps: [R + 1] };
    const ours = await kairosKeyspace('tagindex_write');
    const theirs = await kairosKeyspace('tagindex_kairos');
    await kairosInsert(ours, spec('MILLISECONDS', '1814400000'));
    for (const [config, expected] of [
      [{ cpu: ['host'] }, [['host=a', HASH_HOST_A]]],
      [
        { cpu: [] },
        [
          ['dc=x', HASH_DC_X_HOST_A],
          ['host=a', HASH_DC_X_HOST_A],
        ],
      ],
    ] as const) {
      await Promise.all(
        ['tag_indexed_row_keys', 'service_index'].flatMap((t) => [
          cql.execute(`TRUNCATE ${ours}.${t}`),
          cql.execute(`TRUNCATE ${theirs}.${t}`),
        ]),
      );
      const store = await CassandraStore.open(storeOptions(ours, { tagIndexedMetrics: parseTagIndexConfig(config) }));
      const started = Date.now();
      try {
        await store.write({
          series: [
            { ...series, ttlSeconds: 0, values: [7] },
            { ...series, metric: 'mem', ttlSeconds: 3600, values: [7] },
          ],
        });
      } finally {
        await store.close();
      }
      const written = await rows(ours);
      expect(written.map(({ partition, clustering, value, ttl }) => ({ partition, clustering, value, ttl }))).toEqual(
        expected.map(([pair, hash]) => ({
          partition: ['cpu', 'data_points', R, pair],
          clustering: ['kairos_long', hash, { dc: 'x', host: 'a' }],
          value: null,
          ttl: null,
        })),
      );
      for (const row of written) expect(row.writeTime).toBeGreaterThanOrEqual(started);
      // KairosDB's own insert of the same rows gives the same rows.
      await kairosInsert(
        theirs,
        expected.map(([pair, hash]) => tagIndexed('cpu', R, 'kairos_long', pair, hash, { dc: 'x', host: 'a' })),
      );
      expect((await rows(theirs)).map(({ partition, clustering }) => ({ partition, clustering }))).toEqual(
        written.map(({ partition, clustering }) => ({ partition, clustering })),
      );
    }
    // mem is not indexed: no rows, whatever its TTL.
    expect((await rows(ours)).filter((r) => r.partition[0] === 'mem')).toEqual([]);
    const store = await CassandraStore.open(storeOptions(ours, { tagIndexedMetrics: parseTagIndexConfig(['mem']) }));
    try {
      await store.write({ series: [{ ...series, metric: 'mem', ttlSeconds: 3600, values: [7] }] });
    } finally {
      await store.close();
    }
    // A TTL as row_keys has it: the data's plus a row width.
    const mem = (await rows(ours)).filter((r) => r.partition[0] === 'mem');
    expect(mem.map((r) => r.partition[3])).toEqual(['dc=x', 'host=a']);
    for (const row of mem) {
      expect(row.ttl).toBeGreaterThan(3600 + WIDTH / 1000 - 60);
      expect(row.ttl).toBeLessThanOrEqual(3600 + WIDTH / 1000);
    }
  });
});

function delta(
  before: Readonly<Record<string, number | undefined>>,
  after: Readonly<Record<string, number | undefined>>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, count] of Object.entries(after))
    if (count! - (before[name] ?? 0) > 0) out[name] = count! - (before[name] ?? 0);
  return out;
}
