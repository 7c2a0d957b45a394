/**
 * The aggregators that fold a group into one value: sum, avg, min, max, count, group, stddev, stdvar, quantile.
 * Sums are compensated; avg falls back to an incremental mean when the sum would overflow, as Prometheus's does.
 */
import { kahanInc, quantile } from '../functions/float-math.js';
import type { FoldAggregator } from './aggregation-types.js';

function sum(values: readonly number[]): number {
  let s = 0;
  let c = 0;
  for (const v of values) [s, c] = kahanInc(v, s, c);
  return s + c;
}

function avg(values: readonly number[]): number {
  let s = values[0]!;
  let c = 0;
  let mean = 0;
  let incremental = false;
  for (let i = 1; i < values.length; i++) {
    const v = values[i]!;
    const count = i + 1;
    if (!incremental) {
      const [ns, nc] = kahanInc(v, s, c);
      if (Number.isFinite(ns) || Number.isNaN(ns)) {
        s = ns;
        c = nc;
        continue;
      }
      incremental = true;
      mean = s / (count - 1);
      c /= count - 1;
    }
    const q = (count - 1) / count;
    [mean, c] = kahanInc(v / count, q * mean, q * c);
  }
  return incremental ? mean + c : s / values.length + c / values.length;
}

/** Welford's running variance, seeded like Prometheus's: NaN when the first value is NaN or infinite. */
function variance(values: readonly number[]): number {
  const first = values[0]!;
  let value = Number.isFinite(first) ? 0 : Number.NaN;
  let mean = first;
  let count = 1;
  for (let i = 1; i < values.length; i++) {
    const v = values[i]!;
    count++;
    const delta = v - mean;
    mean += delta / count;
    value += delta * (v - mean);
  }
  return value / count;
}

function extreme(values: readonly number[], better: (candidate: number, current: number) => boolean): number {
  let result = values[0]!;
  for (let i = 1; i < values.length; i++) if (better(values[i]!, result) || Number.isNaN(result)) result = values[i]!;
  return result;
}

export const FOLD_AGGREGATIONS: readonly FoldAggregator[] = [
  { name: 'sum', kind: 'fold', reduce: sum },
  { name: 'avg', kind: 'fold', reduce: avg },
  { name: 'min', kind: 'fold', reduce: (vs) => extreme(vs, (a, b) => a < b) },
  { name: 'max', kind: 'fold', reduce: (vs) => extreme(vs, (a, b) => a > b) },
  { name: 'count', kind: 'fold', reduce: (vs) => vs.length },
  { name: 'group', kind: 'fold', reduce: () => 1 },
  { name: 'stdvar', kind: 'fold', reduce: variance },
  { name: 'stddev', kind: 'fold', reduce: (vs) => Math.sqrt(variance(vs)) },
  { name: 'quantile', kind: 'fold', param: 'scalar', reduce: (vs, q) => quantile(q, [...vs]) },
];
