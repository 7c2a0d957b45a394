/**
 * Decoding Cassandra pages of data_points into slices, in one process, no I/O: 400 pages of 5,000 rows (2,000,000
 * cells) laid out as a CQL RESULT frame lays them out, decoded through `ScanRows.slices` (the lean page decoder) and,
 * as the baseline, through `SliceBuilder.add` one cell at a time (the path of the driver's rows and of the embedded
 * store). Medians of several runs after a warm-up.
 *
 *   npm run bench:page-decode [-- --runs 9]
 */
import { ScanRows } from '../src/store/cassandra/scan-rows.js';
import { encodeDouble, encodeLong } from '../src/store/format/index.js';
import { SliceBuilder } from '../src/store/slice-builder.js';
import type { RowKey, RowSpec } from '../src/store/store.js';
import { median, parseArgs } from './measure.js';

const RUNS = Number(parseArgs(process.argv.slice(2)).get('runs') ?? 9);
const ROWS = 5000;
const PAGES = 400;
const SPEC: RowSpec = { unit: 'MILLISECONDS', width: 1_814_400_000 };
const keyOf = (dataType: string): RowKey => ({
  metric: 'bench.decode',
  rowTime: Date.UTC(2026, 0, 1),
  dataType,
  tags: { host: 'h00' },
});

/** One page: `ROWS` rows of [bytes] column1 (4 bytes, 10 s apart) and [bytes] value. */
function page(valueAt: (i: number) => Uint8Array): Buffer {
  const cells = Array.from({ length: ROWS }, (_, i) => valueAt(i));
  const buf = Buffer.alloc(cells.reduce((n, v) => n + 12 + v.length, 0));
  let p = 0;
  cells.forEach((value, i) => {
    p = buf.writeInt32BE(4, p);
    p = buf.writeUInt32BE(i * 10_000, p);
    p = buf.writeInt32BE(value.length, p);
    buf.set(value, p);
    p += value.length;
  });
  return buf;
}

/** Deterministic values with a fractional part, as bench/vs-kairosdb.ts writes them. */
const doubles = page((i) => encodeDouble(((i * 104729) % 10007) / 100));
const longs = page((i) => encodeLong((i * 104729) % 10007));

function lean(dataType: string, buf: Buffer): number {
  const builder = new SliceBuilder(keyOf(dataType), SPEC);
  let points = 0;
  for (let k = 0; k < PAGES; k++)
    for (const slice of ScanRows.framed(buf, 0, ROWS).slices(builder)) points += slice.timestamps.length;
  return points + (builder.flush()?.timestamps.length ?? 0);
}

function cellByCell(dataType: string, buf: Buffer): number {
  const builder = new SliceBuilder(keyOf(dataType), SPEC);
  let points = 0;
  for (let k = 0; k < PAGES; k++) {
    let p = 0;
    for (let i = 0; i < ROWS; i++) {
      const column = buf.readUInt32BE(p + 4);
      p += 8;
      const end = p + buf.readInt32BE(p) + 4;
      const done = builder.add(column, buf, p + 4, end);
      p = end;
      if (done !== undefined) points += done.timestamps.length;
    }
  }
  return points + (builder.flush()?.timestamps.length ?? 0);
}

const cases: [string, () => number][] = [
  ['doubles, lean page decoder', () => lean('kairos_double', doubles)],
  ['doubles, SliceBuilder.add per cell', () => cellByCell('kairos_double', doubles)],
  ['longs, lean page decoder', () => lean('kairos_long', longs)],
  ['longs, SliceBuilder.add per cell', () => cellByCell('kairos_long', longs)],
];
console.log(`command: npm run bench:page-decode -- --runs ${RUNS}`);
console.log(
  `node ${process.version}; ${PAGES} pages of ${ROWS} rows = ${(PAGES * ROWS).toLocaleString('en-US')} cells; medians of ${RUNS} runs after a warm-up`,
);
for (const [name, run] of cases) {
  if (run() !== PAGES * ROWS) throw new Error(`${name}: decoded the wrong number of points`);
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    run();
    times.push(performance.now() - t0);
  }
  const ms = median(times);
  console.log(
    `${name.padEnd(36)} ${ms.toFixed(1).padStart(6)} ms  ${((ms * 1e6) / (PAGES * ROWS)).toFixed(1).padStart(5)} ns per cell  (runs ${times.map((t) => t.toFixed(0)).join(' ')})`,
  );
}
