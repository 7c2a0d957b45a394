/**
 * Embedded store throughput: ingest (points/s through write batches) and scan (points/s streamed as slices),
 * each against a floor measured in the same run on the same data: bare LMDB puts of the same bytes, and a bare
 * LMDB range read of the same blocks.
 *
 *   npm run bench:embedded [-- --series 200 --points 10000 --runs 5]
 */
import { rmSync } from 'node:fs';
import { open } from 'lmdb';
import { partitionsOf } from '../test/support/store-reads.js';
import { tempDir } from '../test/support/temp-dir.js';
import { EmbeddedStore } from '../src/store/embedded/embedded-store.js';
import type { SeriesWrite } from '../src/store/store.js';

const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith('--') ? [[a.slice(2), all[i + 1]!]] : [])));
const SERIES = Number(args.get('series') ?? 200);
const POINTS = Number(args.get('points') ?? 10_000);
const RUNS = Number(args.get('runs') ?? 5);
const BATCH = 10_000;
const STEP_MS = 10_000;
const START_MS = Date.UTC(2026, 0, 1);

/** Deterministic: series s, point i has time START + i·10 s and a value from a fixed integer hash. */
function dataset(type: 'double' | 'long'): SeriesWrite[][] {
  const batches: SeriesWrite[][] = [];
  let batch: SeriesWrite[] = [];
  let inBatch = 0;
  for (let s = 0; s < SERIES; s++) {
    for (let from = 0; from < POINTS; from += BATCH) {
      const n = Math.min(BATCH, POINTS - from);
      const timestamps = Array.from({ length: n }, (_, k) => START_MS + (from + k) * STEP_MS);
      const values = timestamps.map((_, k) => {
        const h = Math.imul(s * 7919 + from + k, 0x9e3779b1) >>> 0;
        return type === 'double' ? (h % 100_000) / 100 : h % 1_000_000;
      });
      batch.push({ metric: 'bench.metric', tags: { host: `host-${s % 50}`, series: `s${s}` }, type, ttlSeconds: 0, timestamps, values });
      inBatch += n;
      if (inBatch >= BATCH) {
        batches.push(batch);
        batch = [];
        inBatch = 0;
      }
    }
  }
  if (batch.length) batches.push(batch);
  return batches;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const fmt = (pointsPerSecond: number) => `${(pointsPerSecond / 1e6).toFixed(2)} M points/s`;

async function runOnce(type: 'double' | 'long', batches: SeriesWrite[][]) {
  const total = SERIES * POINTS;
  const path = tempDir('kairograph-bench-');
  const store = await EmbeddedStore.open({ path });
  let t = performance.now();
  for (const series of batches) await store.write({ series });
  const ingestMs = performance.now() - t;

  const keys = await partitionsOf(store, 'bench.metric', 0, Number.MAX_SAFE_INTEGER);
  t = performance.now();
  let sum = 0;
  let read = 0;
  for (const key of keys) {
    for await (const slice of store.scan(key, 0, Number.MAX_SAFE_INTEGER)) {
      const values = slice.values as Float64Array;
      for (let i = 0; i < values.length; i++) sum += values[i]!;
      read += values.length;
    }
  }
  const scanMs = performance.now() - t;
  if (read !== total) throw new Error(`scanned ${read} points, wrote ${total}`);
  await store.close();

  // Floors on the same file: every block read back with a bare range scan, then the same bytes put again.
  const env = open({ path });
  const dataPoints = env.openDB<Buffer, Buffer>('data_points', { keyEncoding: 'binary', encoding: 'binary' });
  t = performance.now();
  const blocks: [Buffer, Buffer][] = [];
  let bytes = 0;
  for (const { key, value } of dataPoints.getRange({})) {
    bytes += value.length;
    blocks.push([key, value]);
  }
  const floorScanMs = performance.now() - t;
  const floorEnv = open({ path: tempDir('kairograph-bench-floor-') });
  const floorDb = floorEnv.openDB<Buffer, Buffer>('data_points', { keyEncoding: 'binary', encoding: 'binary' });
  t = performance.now();
  for (let i = 0; i < blocks.length; i += 500) {
    await floorEnv.childTransaction(() => {
      for (const [key, value] of blocks.slice(i, i + 500)) floorDb.putSync(key, value);
    });
    await floorEnv.flushed;
  }
  const floorIngestMs = performance.now() - t;
  await env.close();
  await floorEnv.close();
  rmSync(path, { recursive: true, force: true });
  return { ingest: total / (ingestMs / 1000), scan: total / (scanMs / 1000), floorIngest: total / (floorIngestMs / 1000), floorScan: total / (floorScanMs / 1000), bytesPerPoint: bytes / total, sum };
}

console.log(`command: npm run bench:embedded -- --series ${SERIES} --points ${POINTS} --runs ${RUNS}`);
console.log(`dataset: ${SERIES} series × ${POINTS} points (10 s apart, ${(SERIES * POINTS).toLocaleString('en')} points), batches of ${BATCH}, default 3-week rows; one warm-up run per type`);
for (const type of ['double', 'long'] as const) {
  const batches = dataset(type);
  // One discarded run first: the decoders are measured after the JIT has optimised them, as in a running server.
  await runOnce(type, batches);
  const runs: Awaited<ReturnType<typeof runOnce>>[] = [];
  for (let r = 0; r < RUNS; r++) runs.push(await runOnce(type, batches));
  const m = (k: 'ingest' | 'scan' | 'floorIngest' | 'floorScan' | 'bytesPerPoint') => median(runs.map((r) => r[k]));
  console.log(`\n${type} (median of ${RUNS} runs)`);
  console.log(`  ingest: ${fmt(m('ingest'))}   floor (bare LMDB puts of the same blocks): ${fmt(m('floorIngest'))}   ratio ${(m('floorIngest') / m('ingest')).toFixed(2)}`);
  console.log(`  scan:   ${fmt(m('scan'))}   floor (bare LMDB range read of the same blocks): ${fmt(m('floorScan'))}   ratio ${(m('floorScan') / m('scan')).toFixed(2)}`);
  console.log(`  stored: ${m('bytesPerPoint').toFixed(1)} bytes per point in blocks`);
}
console.log(`\npeak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
