/**
 * The Source conformance suite (test/source-conformance.ts) on the integration run's Cassandra: the KairosDB layout on
 * the Cassandra store, Heroic's `metrics` table (ng, the schema that takes writes) and a user's table with a metric per
 * value column. Each case gets an empty table: the keyspaces are made once and truncated before each source opens.
 */
import type cassandra from 'cassandra-driver';
import { afterAll, beforeAll } from 'vitest';
import { clientSettings } from '../../src/gateway/layer-options.js';
import { loadConfig } from '../../src/gateway/config.js';
import { openHeroicSource } from '../../src/sources/heroic/open-heroic-source.js';
import { widthOf } from '../../src/sources/heroic/partitions.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { openTableSource } from '../../src/sources/table/open-table-source.js';
import { DECLARED, describeSourceConformance } from '../source-conformance.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { KeyspacePool, plainClient, testNode } from './cassandra-stores.js';

const HOUR = 3_600_000;
const HEROIC = 'kg_sc_heroic';
const TABLES = 'kg_sc_tables';

const pool = new KeyspacePool('kg_sc_kairosdb');
let client: cassandra.Client;

beforeAll(async () => {
  client = await plainClient();
  for (const keyspace of [HEROIC, TABLES]) {
    await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    await client.execute(
      `CREATE KEYSPACE ${keyspace} WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
    );
  }
  // Heroic's tables.cql, as Heroic creates the table.
  await client.execute(
    `CREATE TABLE ${HEROIC}.metrics (metric_key blob, data_timestamp_offset int, data_value double, PRIMARY KEY(metric_key, data_timestamp_offset)) WITH COMPACT STORAGE`,
  );
  await client.execute(
    `CREATE TABLE ${TABLES}.readings (host text, bucket bigint, t timestamp, dbl double, lng bigint, txt text, PRIMARY KEY ((host, bucket), t))`,
  );
});

afterAll(async () => {
  await pool.shutdown();
  await client.shutdown();
  removeTempDirs();
});

const connection = () => clientSettings(loadConfig({ SEED_DEMO: 'false', CASSANDRA_WRITE_CONSISTENCY: 'ONE' }));
const place = (keyspace: string) => {
  const node = testNode();
  return { contactPoints: [node.contactPoint], localDataCenter: node.localDataCenter, keyspace };
};

describeSourceConformance('kairosdb on the Cassandra store', {
  declared: { ...DECLARED.kairosdb, capabilities: { ...DECLARED.kairosdb.capabilities, schemaRepair: true } },
  widthMs: HOUR,
  t0: 470_000 * HOUR,
  metric: (type) => `sc.${type}`,
  open: async () => new KairosdbSource('sc', await pool.store({ rowWidth: HOUR })),
});

const HEROIC_WIDTH = widthOf('ng');

const heroic = (schema: 'ng' | 'legacy') =>
  openHeroicSource(
    connection(),
    {
      name: 'sc',
      layout: 'heroic',
      schema,
      cassandra: place(HEROIC),
      configure: false,
      catalogue: { kind: 'scan', path: tempDir(), refreshIntervalMs: 600_000 },
    },
    undefined,
  );

describeSourceConformance("heroic's table on Cassandra", {
  declared: DECLARED.heroic,
  widthMs: HEROIC_WIDTH,
  t0: 800 * HEROIC_WIDTH,
  metric: (type) => `sc.${type}`,
  openReadOnly: () => Promise.resolve(heroic('legacy')),
  open: async () => {
    await client.execute(`TRUNCATE ${HEROIC}.metrics`);
    return heroic('ng');
  },
});

const table = (writable: boolean) =>
  openTableSource(
    connection(),
    {
      name: 'sc',
      layout: 'table',
      mapping: {
        keyspace: TABLES,
        table: 'readings',
        time: 't',
        bucket: { column: 'bucket', kind: 'fixed', zone: 'UTC', widthMs: HOUR },
        tags: ['host'],
        metrics: { 'sc.double': 'dbl', 'sc.long': 'lng', 'sc.string': 'txt' },
      },
      cassandra: place(TABLES),
      writable,
      maxBuckets: 100_000,
      catalogue: { kind: 'scan', path: tempDir(), refreshIntervalMs: 600_000 },
    },
    undefined,
  );

describeSourceConformance("a user's table on Cassandra", {
  declared: DECLARED.table,
  widthMs: HOUR,
  t0: 470_000 * HOUR,
  metric: (type) => `sc.${type}`,
  openReadOnly: () => table(false),
  open: async () => {
    await client.execute(`TRUNCATE ${TABLES}.readings`);
    return table(true);
  },
});
