/**
 * Cassandra store benchmark on a local node (booted by test/support/cassandra-server.ts, or KAIROGRAPH_CASSANDRA):
 * ingest points/s through store.write, and the time and this process's CPU to read N partitions through store.scan
 * (lean page decoder, and the driver's own decoding) against bare cassandra-driver loops over the same partitions
 * in the same run (same prepared SELECT, fetch size, concurrency), with the driver's Rows and with lean pages.
 *
 *   npm run bench:cassandra [-- --series 100 --points 10000 --ingest-series 20 --runs 5 --fetch 5000 --concurrency 20]
 *   (--ingest-series 0 skips the ingest part)
 */
import cassandra from 'cassandra-driver';
import { CassandraStore, type CassandraStoreOptions } from '../src/store/cassandra/cassandra-store.js';
import { installLeanPageHook } from '../src/store/cassandra-client/lean-page-hook.js';
import { leanPagesEncoding } from '../src/store/cassandra/lean-pages.js';
import { partitionsOf } from '../test/support/store-reads.js';
import { startCassandra } from '../test/support/cassandra-server.js';
import { describeShape, METRIC, writeBatches, type DatasetShape } from './dataset.js';
import { pool, readPartitions, sumDriverRows, sumLeanRows, type PageSum } from './floor-read.js';
import { median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const SERIES = Number(args.get('series') ?? 100);
const POINTS = Number(args.get('points') ?? 10_000);
const INGEST_SERIES = Number(args.get('ingest-series') ?? 20);
const RUNS = Number(args.get('runs') ?? 5);
const FETCH = Number(args.get('fetch') ?? 5000);
const CONCURRENCY = Number(args.get('concurrency') ?? 20);
const BATCH_POINTS = 10_000;
const WRITES_IN_FLIGHT = 4;
const STEP_MS = 10_000;
const HOUR_MS = 3_600_000;
const kps = (points: number, ms: number) => `${Math.round(points / ms).toLocaleString('en')} k points/s`;

const server = await startCassandra({ heap: '1g' });
const clientOptions = {
  contactPoints: [server.contactPoint],
  localDataCenter: server.localDataCenter,
  protocolOptions: { maxVersion: 4 },
  socketOptions: { readTimeout: 120_000 },
};
const admin = new cassandra.Client(clientOptions);

try {
  await admin.connect();
  const storeOn = (keyspace: string, options: Partial<CassandraStoreOptions> = {}) =>
    CassandraStore.open({
      contactPoints: [server.contactPoint],
      localDataCenter: server.localDataCenter,
      keyspace,
      writeConsistency: 'ONE',
      fetchSize: FETCH,
      concurrency: CONCURRENCY,
      ...options,
    });
  /** A store on an emptied keyspace. */
  const storeFor = async (keyspace: string, rowWidth?: number) => {
    const exists = await admin.execute(
      'SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?',
      [keyspace],
      { prepare: true },
    );
    await Promise.all(exists.rows.map((r) => admin.execute(`TRUNCATE ${keyspace}.${String(r.get('table_name'))}`)));
    return storeOn(keyspace, rowWidth !== undefined ? { rowWidth } : {});
  };
  const writeAll = async (store: CassandraStore, shape: DatasetShape) => {
    const batches = [...writeBatches(shape, BATCH_POINTS)];
    const started = performance.now();
    await pool(batches, WRITES_IN_FLIGHT, (series) => store.write({ series }));
    return performance.now() - started;
  };

  console.log(
    `command: npm run bench:cassandra -- --series ${SERIES} --points ${POINTS} --ingest-series ${INGEST_SERIES} --runs ${RUNS} --fetch ${FETCH} --concurrency ${CONCURRENCY}`,
  );
  console.log(
    `node: Cassandra on ${server.contactPoint}${server.pid ? ` (pid ${server.pid}, CQL-ready in ${server.bootMs} ms, heap 1g)` : ' (reused)'}, write consistency ONE`,
  );

  // Ingest: a fresh (truncated) keyspace per run, batches of 10,000 points, 4 write calls in flight.
  const ingestShape = { series: INGEST_SERIES, points: POINTS, stepMs: STEP_MS };
  const ingest: number[] = [];
  if (INGEST_SERIES > 0) {
    console.log(
      `\ningest: ${describeShape(ingestShape)}, batches of ${BATCH_POINTS}, ${WRITES_IN_FLIGHT} in flight; one warm-up run, then ${RUNS}`,
    );
    for (let r = 0; r <= RUNS; r++) {
      const store = await storeFor('kg_bench_ingest');
      const ms = await writeAll(store, ingestShape);
      await store.close();
      if (r > 0) ingest.push(ms);
      console.log(`  run ${r === 0 ? 'warm-up' : r}: ${kps(INGEST_SERIES * POINTS, ms)}`);
    }
    console.log(`  median: ${kps(INGEST_SERIES * POINTS, median(ingest))}`);
  }

  // Reads: the same data in 3-week rows (few big partitions) and in 1-hour rows (many small ones).
  const readShape = { series: SERIES, points: POINTS, stepMs: STEP_MS };
  const floorClient = new cassandra.Client(clientOptions);
  await floorClient.connect();
  const results: string[] = [];
  for (const [label, keyspace, rowWidth] of [
    ['3-week rows', 'kg_bench_read', undefined],
    ['1-hour rows', 'kg_bench_read_hourly', HOUR_MS],
  ] as const) {
    const store = await storeFor(keyspace, rowWidth);
    const writeMs = await writeAll(store, readShape);
    // The same keyspace through the driver's own decoding: the store as it read before the lean page decoder.
    const stockStore = await storeOn(keyspace, { scanDecoder: 'driver' });
    installLeanPageHook();
    const leanClient = new cassandra.Client({
      ...clientOptions,
      encoding: leanPagesEncoding(keyspace) as cassandra.ClientOptions['encoding'],
    });
    await leanClient.connect();
    const spec = await store.spec();
    const keys = await partitionsOf(store, METRIC, 0, Number.MAX_SAFE_INTEGER);
    const total = SERIES * POINTS;
    console.log(
      `\nread, ${label}: ${describeShape(readShape)} in ${keys.length} partitions (written in ${Math.round(writeMs)} ms, ${kps(total, writeMs)}); ${CONCURRENCY} partitions at a time, fetch size ${FETCH}`,
    );
    const viaStore = (through: CassandraStore) => async () => {
      let points = 0;
      let sum = 0;
      await pool(keys, CONCURRENCY, async (key) => {
        for await (const slice of through.scan(key, 0, Number.MAX_SAFE_INTEGER)) {
          const values = slice.values as Float64Array;
          for (let i = 0; i < values.length; i++) sum += values[i]!;
          points += values.length;
        }
      });
      return { points, sum };
    };
    const bare = (client: cassandra.Client, read: (rows: unknown) => PageSum) => () =>
      readPartitions(client, keyspace, spec, keys, { concurrency: CONCURRENCY, fetchSize: FETCH, read });
    const viaDriver = bare(floorClient, sumDriverRows);
    // The same loop over the frame's bytes: what the lean page hook leaves for any reader to do.
    const viaLeanDriver = bare(leanClient, sumLeanRows);

    const readers = [
      ['store', viaStore(store)],
      ['stock store', viaStore(stockStore)],
      ['driver', viaDriver],
      ['lean driver', viaLeanDriver],
    ] as const;
    const wall: Record<string, number[]> = {};
    const cpuOf: Record<string, number[]> = {};
    const ratios: number[] = [];
    for (let r = 0; r <= RUNS; r++) {
      // Rotate which goes first, so none always reads right after another warmed Cassandra's caches.
      const order = readers.map((_, i) => readers[(i + r) % readers.length]!);
      const times: Record<string, number> = {};
      const cpu: Record<string, number> = {};
      const sums: number[] = [];
      for (const [name, read] of order) {
        const started = performance.now();
        const cpuBefore = process.cpuUsage();
        const { points, sum } = await read();
        times[name] = performance.now() - started;
        const used = process.cpuUsage(cpuBefore);
        cpu[name] = (used.user + used.system) / 1000;
        if (points !== total) throw new Error(`${name} read ${points} points, ${total} were written`);
        sums.push(sum);
      }
      for (const sum of sums) {
        if (sum !== sums[0] && Math.abs(sum - sums[0]!) > 1e-6 * Math.abs(sums[0]!))
          throw new Error(`the reads disagree: ${sums.join(' vs ')}`);
      }
      if (r > 0) {
        for (const [name] of readers) {
          (wall[name] ??= []).push(times[name]!);
          (cpuOf[name] ??= []).push(cpu[name]!);
        }
        ratios.push(times['store']! / times['driver']!);
      }
      console.log(
        `  run ${r === 0 ? 'warm-up' : r}: store.scan ${Math.round(times['store']!)} ms (CPU ${Math.round(cpu['store']!)} ms), ` +
          `bare driver ${Math.round(times['driver']!)} ms (CPU ${Math.round(cpu['driver']!)} ms), ratio ${(times['store']! / times['driver']!).toFixed(3)}; ` +
          `store.scan with the driver's decoding ${Math.round(times['stock store']!)} ms (CPU ${Math.round(cpu['stock store']!)} ms), ` +
          `bare driver with lean pages ${Math.round(times['lean driver']!)} ms (CPU ${Math.round(cpu['lean driver']!)} ms)`,
      );
    }
    if (store.scanPages.driver > 0 || stockStore.scanPages.lean > 0) {
      throw new Error(
        `a store decoded pages the other way: lean ${JSON.stringify(store.scanPages)}, driver ${JSON.stringify(stockStore.scanPages)}`,
      );
    }
    const s = median(wall['store']!);
    const f = median(wall['driver']!);
    const c = (name: string) => median(cpuOf[name]!);
    const perMillion = (name: string) => `${Math.round(c(name) / (total / 1e6))} ms`;
    const summary =
      `${label}: ${keys.length} partitions, ${total.toLocaleString('en')} points: store.scan ${Math.round(s)} ms (${kps(total, s)}), ` +
      `bare driver ${Math.round(f)} ms (${kps(total, f)}), ratio of medians ${(s / f).toFixed(3)}, median of per-run ratios ${median(ratios).toFixed(3)}; ` +
      `this process's CPU: store ${Math.round(c('store'))} ms, driver ${Math.round(c('driver'))} ms (${(c('store') / c('driver')).toFixed(3)}); ` +
      `store.scan with the driver's decoding ${Math.round(median(wall['stock store']!))} ms, bare driver with lean pages ${Math.round(median(wall['lean driver']!))} ms; ` +
      `CPU per million rows: store.scan ${perMillion('store')} (with the driver's decoding ${perMillion('stock store')}), ` +
      `bare driver ${perMillion('driver')} (with lean pages ${perMillion('lean driver')})`;
    console.log(`  median: ${summary}`);
    await stockStore.close();
    await leanClient.shutdown();
    results.push(summary);
    await store.close();
  }
  await floorClient.shutdown();

  console.log(`\nsummary (medians of ${RUNS} runs)`);
  if (ingest.length > 0) console.log(`  ingest through store.write: ${kps(INGEST_SERIES * POINTS, median(ingest))}`);
  for (const line of results) console.log(`  read, ${line}`);
  console.log(`peak RSS of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
} finally {
  await admin.shutdown();
  await server.stop();
}
