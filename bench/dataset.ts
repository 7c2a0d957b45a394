/**
 * The engine benchmarks' dataset, the same on every run: `series` series of `points` doubles each, one every
 * `stepMs` from 2026-01-01, tagged host (10 hosts) and series. Values are a slowly rising counter with noise,
 * so sums are not exact and rates are not constant.
 */
import type { NumberSlice } from '../src/model/series.js';
import type { RowKey } from '../src/store/store.js';
import type { SeriesWrite } from '../src/model/write-batch.js';

export interface DatasetShape {
  readonly series: number;
  readonly points: number;
  readonly stepMs: number;
}

export const METRIC = 'bench.engine';
export const START_MS = Date.UTC(2026, 0, 1);

/** Reads --series, --points and --step from the command line over the defaults (10M points). */
export function shapeFromArgs(args: ReadonlyMap<string, string>): DatasetShape {
  return {
    series: Number(args.get('series') ?? 100),
    points: Number(args.get('points') ?? 100_000),
    stepMs: Number(args.get('step') ?? 1000),
  };
}

export function describeShape(shape: DatasetShape): string {
  const total = shape.series * shape.points;
  const hours = (shape.points * shape.stepMs) / 3_600_000;
  return `${shape.series} series × ${shape.points.toLocaleString('en')} doubles ${shape.stepMs} ms apart (${total.toLocaleString('en')} points, ${hours.toFixed(1)} h)`;
}

export function tagsOf(s: number): Record<string, string> {
  return { host: `host-${s % 10}`, series: `s${s}` };
}

export function timestampOf(shape: DatasetShape, i: number): number {
  return START_MS + i * shape.stepMs;
}

export function valueAt(s: number, i: number): number {
  const noise = (Math.imul(s * 7919 + i, 0x9e3779b1) >>> 0) / 4294967296;
  return i * 0.5 + s + noise;
}

/** Write batches of about `batchPoints` points, series by series; `long` rounds the values to integers. */
export function* writeBatches(
  shape: DatasetShape,
  batchPoints: number,
  type: 'double' | 'long' = 'double',
): Generator<SeriesWrite[]> {
  let batch: SeriesWrite[] = [];
  let inBatch = 0;
  for (let s = 0; s < shape.series; s++) {
    for (let from = 0; from < shape.points; from += batchPoints) {
      const n = Math.min(batchPoints, shape.points - from);
      const timestamps = Array.from({ length: n }, (_, k) => timestampOf(shape, from + k));
      const values = Array.from({ length: n }, (_, k) =>
        type === 'long' ? Math.round(valueAt(s, from + k)) : valueAt(s, from + k),
      );
      batch.push({ metric: METRIC, tags: tagsOf(s), type, ttlSeconds: 0, timestamps, values });
      inBatch += n;
      if (inBatch >= batchPoints) {
        yield batch;
        batch = [];
        inBatch = 0;
      }
    }
  }
  if (batch.length > 0) yield batch;
}

/** One series as the pages a scan would yield. */
export function slicesOf(shape: DatasetShape, s: number, key: RowKey, pageSize: number): NumberSlice[] {
  const slices: NumberSlice[] = [];
  for (let from = 0; from < shape.points; from += pageSize) {
    const n = Math.min(pageSize, shape.points - from);
    const timestamps = new Float64Array(n);
    const values = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      timestamps[k] = timestampOf(shape, from + k);
      values[k] = valueAt(s, from + k);
    }
    slices.push({ key, kind: 'double', timestamps, values });
  }
  return slices;
}
