/**
 * The `*_over_time` family and its kin over each window of a range argument: aggregates over time, changes/resets,
 * Holt's double exponential smoothing, and the experimental ts_of_* and mad_over_time.
 */
import { formatG } from '../format-float.js';
import { PromqlError } from '../promql-error.js';
import { kahanInc, quantile } from './float-math.js';
import type { RangeFunction, Window } from './function-types.js';

function windowValues(w: Window): number[] {
  return Array.from(w.values.subarray(w.from, w.to));
}

function sumOverTime(w: Window): number {
  let s = 0;
  let c = 0;
  for (let i = w.from; i < w.to; i++) [s, c] = kahanInc(w.values[i]!, s, c);
  return Number.isFinite(s) ? s + c : s;
}

function avgOverTime(w: Window): number {
  let s = w.values[w.from]!;
  let c = 0;
  let mean = 0;
  let incremental = false;
  for (let i = w.from + 1; i < w.to; i++) {
    const v = w.values[i]!;
    const count = i - w.from + 1;
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
  const n = w.to - w.from;
  return incremental ? mean + c : s / n + c / n;
}

function varianceOverTime(w: Window): number {
  let count = 0;
  let mean = 0;
  let cMean = 0;
  let aux = 0;
  let cAux = 0;
  for (let i = w.from; i < w.to; i++) {
    const v = w.values[i]!;
    count++;
    const delta = v - (mean + cMean);
    [mean, cMean] = kahanInc(delta / count, mean, cMean);
    [aux, cAux] = kahanInc(delta * (v - (mean + cMean)), aux, cAux);
  }
  return (aux + cAux) / count;
}

/** The index of the extreme value; a NaN is replaced by any later value, as Prometheus compares. */
function extremeIndex(w: Window, better: (a: number, b: number) => boolean): number {
  let best = w.from;
  for (let i = w.from; i < w.to; i++)
    if (better(w.values[i]!, w.values[best]!) || Number.isNaN(w.values[best]!)) best = i;
  return best;
}

const isMax = (a: number, b: number): boolean => a > b;
const isMin = (a: number, b: number): boolean => a < b;

function holtWinters(w: Window, sf: number, tf: number): number | undefined {
  if (!(sf > 0 && sf < 1))
    throw new PromqlError('execution', `invalid smoothing factor. Expected: 0 < sf < 1, got: ${sf.toFixed(6)}`);
  if (!(tf > 0 && tf < 1))
    throw new PromqlError('execution', `invalid trend factor. Expected: 0 < tf < 1, got: ${tf.toFixed(6)}`);
  const n = w.to - w.from;
  if (n < 2) return undefined;
  const v = (i: number): number => w.values[w.from + i]!;
  let s0 = 0;
  let s1 = v(0);
  let b = v(1) - v(0);
  for (let i = 1; i < n; i++) {
    const x = sf * v(i);
    // The trend is smoothed from the second step on; the first keeps the initial difference.
    if (i > 1) b = tf * (s1 - s0) + (1 - tf) * b;
    const y = (1 - sf) * (s1 + b);
    s0 = s1;
    s1 = x + y;
  }
  return s1;
}

const m = ['matrix'] as const;
const range = (
  name: string,
  evalWindow: RangeFunction['evalWindow'],
  extra: Partial<RangeFunction> = {},
): RangeFunction => ({
  name,
  kind: 'range',
  argTypes: m,
  returnType: 'vector',
  evalWindow,
  ...extra,
});

export const OVER_TIME_FUNCTIONS: readonly RangeFunction[] = [
  range('avg_over_time', avgOverTime),
  range('sum_over_time', sumOverTime),
  range('count_over_time', (w) => w.to - w.from),
  range('min_over_time', (w) => w.values[extremeIndex(w, isMin)]!),
  range('max_over_time', (w) => w.values[extremeIndex(w, isMax)]!),
  range('last_over_time', (w) => w.values[w.to - 1]!, { keepsName: true }),
  range('first_over_time', (w) => w.values[w.from]!, { keepsName: true }),
  range('present_over_time', () => 1),
  range('absent_over_time', () => 1),
  range('stdvar_over_time', varianceOverTime),
  range('stddev_over_time', (w) => Math.sqrt(varianceOverTime(w))),
  range(
    'quantile_over_time',
    (w, [q], ctx) => {
      if (Number.isNaN(q!) || q! < 0 || q! > 1)
        ctx.annotations.add(
          'warning',
          `quantile value should be between 0 and 1, got ${formatG(q!)}`,
          ctx.args[0]!.pos,
        );
      return quantile(q!, windowValues(w));
    },
    { argTypes: ['scalar', 'matrix'] },
  ),
  range('changes', (w) => {
    let changes = 0;
    for (let i = w.from + 1; i < w.to; i++) {
      const a = w.values[i - 1]!;
      const b = w.values[i]!;
      if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) changes++;
    }
    return changes;
  }),
  range('resets', (w) => {
    let resets = 0;
    for (let i = w.from + 1; i < w.to; i++) if (w.values[i]! < w.values[i - 1]!) resets++;
    return resets;
  }),
  range('double_exponential_smoothing', (w, [sf, tf]) => holtWinters(w, sf!, tf!), {
    argTypes: ['matrix', 'scalar', 'scalar'],
    experimental: true,
  }),
  range(
    'mad_over_time',
    (w) => {
      const values = windowValues(w);
      if (values.some(Number.isNaN)) return Number.NaN;
      const median = quantile(0.5, values);
      return quantile(
        0.5,
        values.map((v) => Math.abs(v - median)),
      );
    },
    { experimental: true },
  ),
  range('ts_of_min_over_time', (w) => w.timestampsMs[extremeIndex(w, isMin)]! / 1000, { experimental: true }),
  range('ts_of_max_over_time', (w) => w.timestampsMs[extremeIndex(w, isMax)]! / 1000, { experimental: true }),
  range('ts_of_first_over_time', (w) => w.timestampsMs[w.from]! / 1000, { experimental: true }),
  range('ts_of_last_over_time', (w) => w.timestampsMs[w.to - 1]! / 1000, { experimental: true }),
];
