/**
 * Engine memory: the dataset written to a fresh embedded store, then aggregated through executeQuery in a fresh
 * process per query, sampling /proc/self/status. LMDB maps the data file, so pages the scan touches count in RSS
 * as RssFile; RssAnon is what the engine itself holds. VmHWM is the kernel's peak of both.
 *
 *   npm run bench:engine-rss [-- --series 100 --points 100000 --step 1000]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executeQuery, newQueryStats, unlimitedRequest } from '../src/engine/execute.js';
import type { AggregatorSpec } from '../src/model/query.js';
import { IndexLoaders } from '../src/sources/index-loaders.js';
import { KairosdbSource } from '../src/sources/kairosdb/kairosdb-source.js';
import { EmbeddedStore } from '../src/store/embedded/embedded-store.js';
import { tempDir } from '../test/support/temp-dir.js';
import { describeShape, METRIC, shapeFromArgs, START_MS, writeBatches } from './dataset.js';
import { parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const shape = shapeFromArgs(args);
const MINUTE = { sampling: { value: 1, unit: 'minutes' } };
const BARE_SCAN = 'bare scan, no engine (reference)';
const QUERIES: Record<string, AggregatorSpec[]> = {
  'avg per minute': [{ name: 'avg', params: MINUTE }],
  'percentile 0.99 per minute': [{ name: 'percentile', params: { ...MINUTE, percentile: 0.99 } }],
  'rate per minute, then max per hour': [
    { name: 'rate', params: MINUTE },
    { name: 'max', params: { sampling: { value: 1, unit: 'hours' } } },
  ],
};

interface Memory {
  vmHwmMb: number;
  peakRssAnonMb: number;
  peakRssFileMb: number;
  baselineAnonMb: number;
  baselineFileMb: number;
}

function status(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync('/proc/self/status', 'utf8').split('\n')) {
    const m = /^(VmHWM|VmRSS|RssAnon|RssFile):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]!] = Number(m[2]) / 1024;
  }
  return out;
}

/** The child: opens the store, runs one query (or a bare scan) while sampling its own memory, prints one JSON line. */
async function child(path: string, name: string): Promise<void> {
  const store = await EmbeddedStore.open({ path });
  const baseline = status();
  let peakAnon = baseline.RssAnon!;
  let peakFile = baseline.RssFile!;
  const sample = () => {
    const s = status();
    peakAnon = Math.max(peakAnon, s.RssAnon!);
    peakFile = Math.max(peakFile, s.RssFile!);
  };
  const timer = setInterval(sample, 10);
  const t = performance.now();
  const { read, pointsOut } = name === BARE_SCAN ? await bareScan(store) : await query(store, name);
  const ms = performance.now() - t;
  clearInterval(timer);
  sample();
  const memory: Memory = {
    vmHwmMb: status().VmHWM!,
    peakRssAnonMb: peakAnon,
    peakRssFileMb: peakFile,
    baselineAnonMb: baseline.RssAnon!,
    baselineFileMb: baseline.RssFile!,
  };
  console.log(JSON.stringify({ name, ms, read, pointsOut, ...memory }));
  await store.close();
}

/** The reference: every partition scanned and summed, no engine. */
async function bareScan(store: EmbeddedStore): Promise<{ read: number; pointsOut: number }> {
  let read = 0;
  let sum = 0;
  for (const rowTime of await store.rowTimes(METRIC, START_MS, START_MS + shape.points * shape.stepMs)) {
    for (const key of await store.rowKeys(METRIC, rowTime)) {
      for await (const slice of store.scan(key, START_MS, START_MS + shape.points * shape.stepMs)) {
        const values = slice.values as Float64Array;
        for (let i = 0; i < values.length; i++) sum += values[i]!;
        read += values.length;
      }
    }
  }
  return { read, pointsOut: Number.isNaN(sum) ? 0 : 1 };
}

async function query(store: EmbeddedStore, name: string): Promise<{ read: number; pointsOut: number }> {
  const out = await executeQuery(
    {
      metric: METRIC,
      range: { startMs: START_MS, endMs: START_MS + shape.points * shape.stepMs },
      tags: [],
      aggregators: QUERIES[name]!,
      groupBy: name.startsWith('rate') ? [{ name: 'tag', params: { tags: ['series'] } }] : [],
      timeZone: 'UTC',
      order: 'asc',
      excludeTags: false,
    },
    {
      source: new KairosdbSource('bench', store),
      index: new IndexLoaders(),
      budgets: { maxSeries: 1e6, maxPointsRead: 1e12, maxPointsReturned: 1e12, onExceed: 'error' },
      request: unlimitedRequest(),
      stats: newQueryStats(),
      nowMs: Date.now(),
    },
  );
  return { read: out.sampleSize, pointsOut: out.groups.reduce((n, g) => n + g.points.length, 0) };
}

async function main(): Promise<void> {
  const path = tempDir('kairograph-bench-rss-');
  console.log(
    `command: npm run bench:engine-rss -- --series ${shape.series} --points ${shape.points} --step ${shape.stepMs}`,
  );
  console.log(`dataset: ${describeShape(shape)}, written to a fresh embedded store (default 3-week rows)`);
  const store = await EmbeddedStore.open({ path });
  const t = performance.now();
  for (const series of writeBatches(shape, 100_000)) await store.write({ series });
  await store.close();
  const dataMb = statSync(join(path, 'data.mdb')).size / 2 ** 20;
  console.log(`written in ${((performance.now() - t) / 1000).toFixed(1)} s; data.mdb is ${dataMb.toFixed(0)} MB\n`);
  // The queries run as production runs: compiled JavaScript on plain Node. The tsx loader would add RSS of its own to
  // every query process, none of it the engine's (bench/RESULTS.md, "Engine memory").
  const build = fileURLToPath(new URL('../.tmp/bench-build/', import.meta.url));
  rmSync(build, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [
      fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)),
      '-p',
      'tsconfig.json',
      '--noEmit',
      'false',
      '--outDir',
      build,
    ],
    {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: 'inherit',
    },
  );
  const compiled = join(build, 'bench', 'engine-rss.js');
  for (const name of [BARE_SCAN, ...Object.keys(QUERIES)]) {
    // A fresh process per query, so VmHWM is that query's peak and nothing of the write is left in the heap.
    const line = execFileSync(
      process.execPath,
      [compiled, '--child', path, '--query', name, ...process.argv.slice(2)],
      { encoding: 'utf8' },
    );
    const r = JSON.parse(line.trim().split('\n').pop()!) as Memory & {
      name: string;
      ms: number;
      read: number;
      pointsOut: number;
    };
    console.log(
      `${r.name.padEnd(36)} ${(r.read / (r.ms / 1000) / 1e6).toFixed(1).padStart(5)} M points/s   peak RSS (VmHWM) ${r.vmHwmMb.toFixed(0)} MB;` +
        ` peak RssAnon ${r.peakRssAnonMb.toFixed(0)} MB (${r.baselineAnonMb.toFixed(0)} before the query), peak RssFile ${r.peakRssFileMb.toFixed(0)} MB (${r.baselineFileMb.toFixed(0)} before)` +
        `; ${r.pointsOut.toLocaleString('en')} points out`,
    );
  }
  rmSync(path, { recursive: true, force: true });
  rmSync(build, { recursive: true, force: true });
}

if (args.has('child')) await child(args.get('child')!, args.get('query')!);
else await main();
