/**
 * A user's own table through the `table` layout: the issue's `sensor_readings` (text day buckets, DESC clustering, a
 * 30-day TTL, TWCS), 100 sensors x 30 days x a point every 10 s (25,920,000 rows in 3,000 partitions), filled with
 * plain CQL. Measured, alternately, median of `--runs` after a warm-up:
 * - the table source: every sensor's hourly average over the 30 days, grouped by sensor, through executeQuery (the
 *   engine every front end uses), series found through the catalogue;
 * - the bare driver loop: the same 3,000 partitions read with the same prepared statement shape, auto-paged at the
 *   same fetch size, `--concurrency` partitions at a time (default: the source's own read-ahead + 1), counting rows.
 * Ratio = table source / bare loop; the target is <= 1.3.
 *
 *   npm run bench:user-table [-- --sensors 100 --days 30 --runs 3 --concurrency 9 --keep]
 *   (KAIROGRAPH_CASSANDRA=127.0.0.1:<port> reuses a running node; otherwise one is booted; --keep reuses a filled table)
 */
import cassandra from 'cassandra-driver';
import { loadConfig } from '../src/gateway/config.js';
import { catalogued, hourlyAverageBy } from './source-query.js';
import { openTableSource } from '../src/sources/table/open-table-source.js';
import { startCassandra } from '../test/support/cassandra-server.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { median, parseArgs } from './measure.js';
import { clientSettings } from '../src/gateway/layer-options.js';

const args = parseArgs(process.argv.slice(2));
const SENSORS = Number(args.get('sensors') ?? 100);
const DAYS = Number(args.get('days') ?? 30);
const RUNS = Number(args.get('runs') ?? 3);
const KEEP = args.has('keep');
const KS = 'kg_bench_user_table';
const DAY = 86_400_000;
const STEP = 10_000;
/** The last whole day before today: the data's days are whole, and all within the table's 30-day TTL. */
const END_DAY = Math.floor(Date.now() / DAY) * DAY;
const START = END_DAY - DAYS * DAY;
const END = END_DAY - 1;
const sensorId = (s: number) => `sensor-${String(s).padStart(3, '0')}`;

const server = await startCassandra({ heap: '1g' });
const admin = new cassandra.Client({
  contactPoints: [server.contactPoint],
  localDataCenter: server.localDataCenter,
  protocolOptions: { maxVersion: 4 },
  socketOptions: { readTimeout: 120_000 },
});
await admin.connect();
try {
  if (!KEEP || !(await filled())) await fill();
  const config = loadConfig({
    CASSANDRA_CONTACT_POINTS: server.contactPoint,
    CASSANDRA_LOCAL_DC: server.localDataCenter,
    LOG_LEVEL: 'silent',
  });
  const source = await openTableSource(
    clientSettings(config),
    {
      name: 'sensors',
      layout: 'table',
      mapping: {
        keyspace: KS,
        table: 'sensor_readings',
        time: 'reading_time',
        bucket: { column: 'day', kind: 'date-text', zone: 'UTC' },
        tags: ['sensor_id'],
        metrics: { 'sensor.value': 'value' },
      },
      cassandra: { contactPoints: [server.contactPoint], localDataCenter: server.localDataCenter, keyspace: KS },
      writable: false,
      maxBuckets: 1000,
      catalogue: { kind: 'scan', path: tempDir(), refreshIntervalMs: 3_600_000 },
    },
    undefined,
  );
  const concurrency = Number(args.get('concurrency') ?? source.readAhead + 1);
  try {
    await catalogued(source);
    const run = hourlyAverageBy(source, 'sensor.value', 'sensor_id', START, END);
    const viaSource = async () => {
      const { ms, groups, pointsRead } = await run();
      if (pointsRead !== SENSORS * DAYS * (DAY / STEP)) throw new Error(`the source read ${pointsRead} points`);
      return { ms, groups };
    };
    const keys = (
      await admin.execute(`SELECT DISTINCT sensor_id, day FROM ${KS}.sensor_readings`, [], { fetchSize: 100_000 })
    ).rows.map((r) => [r['sensor_id'], r['day']]);
    const bare = async () => {
      const started = performance.now();
      let rows = 0;
      let next = 0;
      const worker = async () => {
        while (next < keys.length) {
          const key = keys[next++]!;
          await new Promise<void>((resolve, reject) =>
            admin.eachRow(
              `SELECT reading_time, value FROM ${KS}.sensor_readings WHERE sensor_id = ? AND day = ? AND reading_time >= ? AND reading_time <= ? ORDER BY reading_time ASC`,
              [...key, new Date(START), new Date(END)],
              { prepare: true, fetchSize: config.cassandraFetchSize, autoPage: true },
              () => rows++,
              (error) => (error ? reject(error) : resolve()),
            ),
          );
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      if (rows !== SENSORS * DAYS * (DAY / STEP)) throw new Error(`the bare loop read ${rows} rows`);
      return performance.now() - started;
    };
    await viaSource();
    await bare();
    const sourceMs: number[] = [];
    const bareMs: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const a = await viaSource();
      sourceMs.push(a.ms);
      bareMs.push(await bare());
      console.log(
        `  run ${r + 1}: table source ${(a.ms / 1000).toFixed(2)} s (${a.groups} series), bare loop ${(bareMs.at(-1)! / 1000).toFixed(2)} s`,
      );
    }
    const points = SENSORS * DAYS * (DAY / STEP);
    console.log('');
    console.log(
      `node ${process.version}; Cassandra ${server.contactPoint}; ${SENSORS} sensors x ${DAYS} days x 1 point / 10 s = ${points} rows in ${keys.length} partitions; median of ${RUNS}`,
    );
    console.log('| read | time | points/s | ratio |');
    console.log('|---|---|---|---|');
    console.log(
      `| bare driver loop, ${concurrency} partitions at a time | ${(median(bareMs) / 1000).toFixed(2)} s | ${Math.round(points / (median(bareMs) / 1000))} | 1 |`,
    );
    console.log(
      `| table source: avg per hour by sensor (executeQuery) | ${(median(sourceMs) / 1000).toFixed(2)} s | ${Math.round(points / (median(sourceMs) / 1000))} | ${(median(sourceMs) / median(bareMs)).toFixed(2)} |`,
    );
  } finally {
    await source.close();
  }
} finally {
  if (!KEEP) await admin.execute(`DROP KEYSPACE IF EXISTS ${KS}`).catch(() => {});
  await admin.shutdown();
  await server.stop();
  removeTempDirs();
}
process.exit(0);

async function filled(): Promise<boolean> {
  try {
    const count = await admin.execute(`SELECT DISTINCT sensor_id, day FROM ${KS}.sensor_readings`, [], {
      fetchSize: 100_000,
    });
    return count.rows.length === SENSORS * DAYS;
  } catch {
    return false;
  }
}

/** The table and data, in unlogged batches of one partition, 16 in flight. */
async function fill(): Promise<void> {
  await admin.execute(`DROP KEYSPACE IF EXISTS ${KS}`);
  await admin.execute(`CREATE KEYSPACE ${KS} WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  await admin.execute(
    `CREATE TABLE ${KS}.sensor_readings (sensor_id text, day text, reading_time timestamp, value double, PRIMARY KEY ((sensor_id, day), reading_time))
     WITH CLUSTERING ORDER BY (reading_time DESC) AND default_time_to_live = 2592000
     AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 1}`,
  );
  const insert = `INSERT INTO ${KS}.sensor_readings (sensor_id, day, reading_time, value) VALUES (?, ?, ?, ?)`;
  const started = performance.now();
  const batches: (() => Promise<unknown>)[] = [];
  for (let s = 0; s < SENSORS; s++) {
    for (let d = 0; d < DAYS; d++) {
      const dayStart = START + d * DAY;
      const day = new Date(dayStart).toISOString().slice(0, 10);
      for (let from = 0; from < DAY; from += 500 * STEP) {
        batches.push(() =>
          admin.batch(
            Array.from({ length: Math.min(500, (DAY - from) / STEP) }, (_, i) => {
              const t = dayStart + from + i * STEP;
              return { query: insert, params: [sensorId(s), day, new Date(t), s + ((t / STEP) % 1000) / 4] };
            }),
            { prepare: true, logged: false },
          ),
        );
      }
    }
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < batches.length) await batches[next++]!();
    }),
  );
  console.log(`filled ${SENSORS * DAYS * (DAY / STEP)} rows in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
