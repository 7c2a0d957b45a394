/**
 * Embedded store throughput: ingest (points/s through write batches) and scan (points/s streamed as slices),
 * each against a floor measured in the same run on the same data: bare LMDB puts of the same bytes, and a bare
 * LMDB range read of the same blocks.
 *
 *   npm run bench:embedded [-- --series 100 --points 10000 --step 10000 --runs 5]
 */
import { open } from 'lmdb';
import { EmbeddedStore } from '../src/store/embedded/embedded-store.js';
import type { SeriesWrite } from '../src/model/write-batch.js';
import { partitionsOf } from '../test/support/store-reads.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { describeShape, METRIC, shapeFromArgs, writeBatches } from './dataset.js';
import { median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const shape = shapeFromArgs(new Map([['series', '100'], ['points', '10000'], ['step', '10000'], ...args]));
const RUNS = Number(args.get('runs') ?? 5);
const BATCH = 10_000;
const TOTAL = shape.series * shape.points;

const fmt = (pointsPerSecond: number) => `${(pointsPerSecond / 1e6).toFixed(2)} M points/s`;

async function runOnce(batches: readonly SeriesWrite[][]) {
  const path = tempDir('kairograph-bench-');
  const store = await EmbeddedStore.open({ path });
  let t = performance.now();
  for (const series of batches) await store.write({ series });
  const ingestMs = performance.now() - t;

  const keys = await partitionsOf(store, METRIC, 0, Number.MAX_SAFE_INTEGER);
  t = performance.now();
  let read = 0;
  for (const key of keys) {
    for await (const slice of store.scan(key, 0, Number.MAX_SAFE_INTEGER)) read += slice.timestamps.length;
  }
  const scanMs = performance.now() - t;
  if (read !== TOTAL) throw new Error(`scanned ${read} points, wrote ${TOTAL}`);
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
  // Both scratch files: the store's, and the floor's copy.
  removeTempDirs();
  const perSecond = (ms: number) => TOTAL / (ms / 1000);
  return {
    ingest: perSecond(ingestMs),
    scan: perSecond(scanMs),
    floorIngest: perSecond(floorIngestMs),
    floorScan: perSecond(floorScanMs),
    bytesPerPoint: bytes / TOTAL,
  };
}

console.log(
  `command: npm run bench:embedded -- --series ${shape.series} --points ${shape.points} --step ${shape.stepMs} --runs ${RUNS}`,
);
console.log(`dataset: ${describeShape(shape)}, batches of ${BATCH}, default 3-week rows; one warm-up run per type`);
for (const type of ['double', 'long'] as const) {
  const batches = [...writeBatches(shape, BATCH, type)];
  // One discarded run first: the decoders are measured after the JIT has optimised them, as in a running server.
  await runOnce(batches);
  const runs: Awaited<ReturnType<typeof runOnce>>[] = [];
  for (let r = 0; r < RUNS; r++) runs.push(await runOnce(batches));
  const m = (k: keyof (typeof runs)[number]) => median(runs.map((r) => r[k]));
  console.log(`\n${type} (median of ${RUNS} runs)`);
  console.log(
    `  ingest: ${fmt(m('ingest'))}   floor (bare LMDB puts of the same blocks): ${fmt(m('floorIngest'))}   ratio ${(m('floorIngest') / m('ingest')).toFixed(2)}`,
  );
  console.log(
    `  scan:   ${fmt(m('scan'))}   floor (bare LMDB range read of the same blocks): ${fmt(m('floorScan'))}   ratio ${(m('floorScan') / m('scan')).toFixed(2)}`,
  );
  console.log(`  stored: ${m('bytesPerPoint').toFixed(1)} bytes per point in blocks`);
}
console.log(`\npeak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
