/**
 * Moving off Heroic: 1,000,000 points (20 series at 10 s, 50,000 each, across a 2^31 − 1 ms partition boundary) in
 * Heroic's `metrics` table, copied into KairosDB's layout on the same Cassandra by the real CLI (`node dist/copy/main.js`,
 * as `npm run copy` runs it): uninterrupted runs into a fresh keyspace each, then one run SIGKILLed once half the
 * partitions are recorded and resumed. Every run must end with the CLI's own read-back equal, and the destination is
 * checked here too against the generated data (count and sum per series). The baseline, in the same run: the bare
 * driver reading the same 40 partitions (auto-paged, stock decoding), which is the least a copy must do.
 *
 *   npm run bench:heroic-copy [-- --runs 3]
 *   (KAIROGRAPH_CASSANDRA=127.0.0.1:<port> reuses a running node; otherwise one is booted)
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import cassandra from 'cassandra-driver';
import { loadConfig } from '../src/gateway/config.js';
import { IndexLoaders } from '../src/sources/index-loaders.js';
import { openHeroicSource } from '../src/sources/heroic/open-heroic-source.js';
import { baseOf, NG_WIDTH_MS } from '../src/sources/heroic/partitions.js';
import { KairosdbSource } from '../src/sources/kairosdb/kairosdb-source.js';
import type { SeriesWrite } from '../src/model/write-batch.js';
import { CassandraStore } from '../src/store/cassandra/cassandra-store.js';
import { startCassandra } from '../test/support/cassandra-server.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { median, parseArgs } from './measure.js';
import { clientSettings } from '../src/gateway/layer-options.js';

const args = parseArgs(process.argv.slice(2));
const RUNS = Number(args.get('runs') ?? 3);
const SERIES = 20;
const POINTS_PER_SERIES = 50_000;
const STEP_MS = 10_000;
const HEROIC_KS = 'kg_bench_heroic';
const KAIROS_KS = 'kg_bench_heroic_to_kairosdb';
const METRIC = 'bench.heroic';
/** Three days before an ng partition boundary: every series has points in two partitions. */
const BOUNDARY = baseOf('ng', Date.UTC(2024, 0, 1)) + NG_WIDTH_MS;
const START = BOUNDARY - 3 * 86_400_000;
const END = START + (POINTS_PER_SERIES - 1) * STEP_MS;
const value = (s: number, i: number) => s * 1000 + (i % 997) * 0.25;

const server = await startCassandra({ heap: '1g' });
const admin = new cassandra.Client({
  contactPoints: [server.contactPoint],
  localDataCenter: server.localDataCenter,
  protocolOptions: { maxVersion: 4 },
  socketOptions: { readTimeout: 120_000 },
});
await admin.connect();
const dir = tempDir();
const sourcesFile = join(dir, 'sources.json');
writeFileSync(
  sourcesFile,
  JSON.stringify({
    sources: [{ name: 'heroic', layout: 'heroic', keyspace: HEROIC_KS, catalogue: join(dir, 'catalogue') }],
  }),
);
const env = {
  ...process.env,
  STORE: 'cassandra',
  CASSANDRA_CONTACT_POINTS: server.contactPoint,
  CASSANDRA_LOCAL_DC: server.localDataCenter,
  CASSANDRA_KEYSPACE: KAIROS_KS,
  CASSANDRA_WRITE_CONSISTENCY: 'ONE',
  SOURCES_FILE: sourcesFile,
  DATA_DIR: dir,
  LOG_LEVEL: 'warn',
};

try {
  await fill();
  console.log(
    `node ${process.version}, Cassandra ${server.contactPoint} (${server.pid ? 'booted' : 'reused'}); ${SERIES} series x ${POINTS_PER_SERIES} points = ${SERIES * POINTS_PER_SERIES} points, 2 ng partitions each`,
  );
  const build = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');

  const bare: number[] = [];
  for (let r = 0; r < RUNS; r++) bare.push(await bareRead());
  const copies: { ms: number; peakKb: number }[] = [];
  for (let r = 0; r < RUNS; r++) {
    await admin.execute(`DROP KEYSPACE IF EXISTS ${KAIROS_KS}`);
    const state = join(dir, `run-${r}.state`);
    const run = await copyRun(state);
    if (run.code !== 0) throw new Error(`copy run ${r} exited ${run.code}: ${run.stderr}`);
    await checkDestination();
    copies.push({ ms: run.ms, peakKb: run.peakKb });
    console.log(
      `  copy run ${r + 1}: ${(run.ms / 1000).toFixed(2)} s, peak RSS ${(run.peakKb / 1024).toFixed(0)} MB; ${run.stdout.trim().split('\n').at(-1)}`,
    );
  }

  await admin.execute(`DROP KEYSPACE IF EXISTS ${KAIROS_KS}`);
  const state = join(dir, 'killed.state');
  const partitions = SERIES * 2;
  const killed = await copyRun(state, Math.ceil(partitions / 2));
  const recorded = readFileSync(state, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{"done"')).length;
  const resumed = await copyRun(state);
  if (resumed.code !== 0) throw new Error(`the resumed run exited ${resumed.code}: ${resumed.stderr}`);
  await checkDestination();
  const lines = resumed.stdout.trim().split('\n');

  const copyMs = median(copies.map((c) => c.ms));
  const bareMs = median(bare);
  console.log('');
  console.log(`| what (${SERIES * POINTS_PER_SERIES} points, median of ${RUNS}) | time | peak RSS |`);
  console.log('|---|---|---|');
  console.log(`| bare driver: read the 40 Heroic partitions (baseline) | ${(bareMs / 1000).toFixed(2)} s | |`);
  console.log(
    `| npm run copy --from heroic --to kairosdb, whole run (read, write, read-back of both sides) | ${(copyMs / 1000).toFixed(2)} s (${(copyMs / bareMs).toFixed(1)}x the bare read) | ${(median(copies.map((c) => c.peakKb)) / 1024).toFixed(0)} MB |`,
  );
  console.log(
    `| killed (SIGKILL) after ${recorded} of ${partitions} partitions recorded | ${(killed.ms / 1000).toFixed(2)} s | ${(killed.peakKb / 1024).toFixed(0)} MB |`,
  );
  console.log(
    `| resumed to the end | ${(resumed.ms / 1000).toFixed(2)} s | ${(resumed.peakKb / 1024).toFixed(0)} MB |`,
  );
  console.log(`| killed + resumed | ${((killed.ms + resumed.ms) / 1000).toFixed(2)} s | |`);
  console.log('');
  console.log(
    `resumed run: ${lines.filter((l) => l.startsWith('resuming') || l.startsWith('copied')).join(' / ') || lines.at(-1)}`,
  );
  console.log(
    `resumed run's stderr: ${resumed.stderr
      .split('\n')
      .filter((l) => l.startsWith('resuming'))
      .join(' ')}`,
  );
  console.log('destination checked after every run: 20 series, 50,000 points each, sums equal to the generated ones');
} finally {
  await admin.execute(`DROP KEYSPACE IF EXISTS ${KAIROS_KS}`).catch(() => {});
  await admin.execute(`DROP KEYSPACE IF EXISTS ${HEROIC_KS}`).catch(() => {});
  await admin.shutdown();
  await server.stop();
  removeTempDirs();
}
process.exit(0);

/** Heroic's table, created as Heroic's configure does, filled through the heroic source's writer (Heroic's bytes). */
async function fill(): Promise<void> {
  await admin.execute(`DROP KEYSPACE IF EXISTS ${HEROIC_KS}`);
  const config = loadConfig({
    CASSANDRA_CONTACT_POINTS: server.contactPoint,
    CASSANDRA_LOCAL_DC: server.localDataCenter,
    CASSANDRA_WRITE_CONSISTENCY: 'ONE',
  });
  const heroic = openHeroicSource(
    clientSettings(config),
    {
      name: 'fill',
      layout: 'heroic',
      schema: 'ng',
      cassandra: { contactPoints: [server.contactPoint], localDataCenter: server.localDataCenter, keyspace: HEROIC_KS },
      configure: true,
      catalogue: { kind: 'static', series: [{ key: METRIC, tags: {}, resource: {} }] },
    },
    undefined,
  );
  try {
    const started = performance.now();
    const CHUNK = 5000;
    for (let s = 0; s < SERIES; s++) {
      const writes: Promise<void>[] = [];
      for (let from = 0; from < POINTS_PER_SERIES; from += CHUNK) {
        const count = Math.min(CHUNK, POINTS_PER_SERIES - from);
        const series: SeriesWrite = {
          metric: METRIC,
          tags: { host: `h${String(s).padStart(2, '0')}` },
          type: 'double',
          ttlSeconds: 0,
          timestamps: Array.from({ length: count }, (_, k) => START + (from + k) * STEP_MS),
          values: Array.from({ length: count }, (_, k) => value(s, from + k)),
        };
        writes.push(heroic.write({ series: [series] }));
      }
      await Promise.all(writes);
    }
    console.log(`filled Heroic's table in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await heroic.close();
  }
}

/** The baseline: every row of the 40 partitions through the bare driver, auto-paged, with the stock decoding. */
async function bareRead(): Promise<number> {
  const keys = await admin.execute(`SELECT DISTINCT metric_key FROM ${HEROIC_KS}.metrics`);
  const started = performance.now();
  let rows = 0;
  await Promise.all(
    keys.rows.map(async (row) => {
      await new Promise<void>((resolve, reject) =>
        admin.eachRow(
          `SELECT data_timestamp_offset, data_value FROM ${HEROIC_KS}.metrics WHERE metric_key = ?`,
          [row['metric_key']],
          { prepare: true, fetchSize: 5000, autoPage: true },
          () => rows++,
          (error) => (error ? reject(error) : resolve()),
        ),
      );
    }),
  );
  if (rows !== SERIES * POINTS_PER_SERIES) throw new Error(`the bare read found ${rows} rows`);
  return performance.now() - started;
}

/** The CLI as `npm run copy` runs it; SIGKILLed once `killAfter` partitions are recorded in its state file. */
async function copyRun(
  state: string,
  killAfter?: number,
): Promise<{ code: number | null; ms: number; peakKb: number; stdout: string; stderr: string }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      'dist/copy/main.js',
      '--from',
      'heroic',
      '--to',
      'kairosdb',
      '--metric',
      METRIC,
      '--from-time',
      String(START),
      '--to-time',
      String(END),
      '--state',
      state,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let peakKb = 0;
  const watch = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    } catch {
      // The process has ended.
    }
    if (killAfter !== undefined) {
      let done = 0;
      try {
        done = readFileSync(state, 'utf8')
          .split('\n')
          .filter((line) => line.startsWith('{"done"')).length;
      } catch {
        // Not written yet.
      }
      if (done >= killAfter) child.kill('SIGKILL');
    }
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearInterval(watch);
  return { code, ms: performance.now() - started, peakKb, stdout, stderr };
}

/** The destination against the generated data: every series, its count and sum, read through the KairosDB layout. */
async function checkDestination(): Promise<void> {
  const store = await CassandraStore.open({
    contactPoints: [server.contactPoint],
    localDataCenter: server.localDataCenter,
    keyspace: KAIROS_KS,
  });
  try {
    const source = new KairosdbSource('check', store);
    const plan = await source.findSeries(new IndexLoaders(), METRIC, { startMs: START, endMs: END }, () => true);
    const bySeries = new Map<string, { count: number; sum: number }>();
    for (const key of plan.partitions) {
      const totals = bySeries.get(key.tags['host']!) ?? { count: 0, sum: 0 };
      for await (const slice of source.read(key, START, END)) {
        totals.count += slice.timestamps.length;
        for (const v of slice.values as Float64Array) totals.sum += v;
      }
      bySeries.set(key.tags['host']!, totals);
    }
    for (let s = 0; s < SERIES; s++) {
      let sum = 0;
      for (let i = 0; i < POINTS_PER_SERIES; i++) sum += value(s, i);
      const got = bySeries.get(`h${String(s).padStart(2, '0')}`);
      if (got?.count !== POINTS_PER_SERIES || got.sum !== sum)
        throw new Error(
          `series ${s}: expected ${POINTS_PER_SERIES} points summing to ${sum}, found ${JSON.stringify(got)}`,
        );
    }
    if (bySeries.size !== SERIES) throw new Error(`expected ${SERIES} series, found ${bySeries.size}`);
  } finally {
    await store.close();
  }
}
