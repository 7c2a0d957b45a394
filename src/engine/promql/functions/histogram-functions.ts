/**
 * Histogram functions over classic histograms (float series with an `le` bucket label): histogram_quantile and
 * histogram_fraction (and the experimental histogram_quantiles). The functions of native histograms only answer nothing,
 * with a warning: native histograms are not read.
 */
import { dropLabels, type Labels, labelsKey, labelValue, METRIC_NAME, setLabel } from '../labels.js';
import { formatG } from '../format-float.js';
import type { Vector } from '../values.js';
import type { FunctionContext, StepFunction } from './function-types.js';

interface Bucket {
  upperBound: number;
  count: number;
}

/** Go's strconv.ParseFloat for bucket bounds: decimals, Inf/Infinity and NaN in any case, with a sign. */
function parseBound(text: string): number | undefined {
  if (/^[+-]?(inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(text)) return Number.NaN;
  if (/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(text)) return Number(text);
  return undefined;
}

/** The input grouped into histograms by all labels but `le`; samples with a bad bound are warned about and left out. */
function bucketsOf(vector: Vector, ctx: FunctionContext, argIndex: number): { labels: Labels; buckets: Bucket[] }[] {
  const groups = new Map<string, { labels: Labels; buckets: Bucket[] }>();
  for (const s of vector) {
    const le = labelValue(s.labels, 'le');
    const upperBound = parseBound(le);
    if (upperBound === undefined) {
      const name = labelValue(s.labels, METRIC_NAME);
      const forName = name === '' ? '' : ` for metric name ${JSON.stringify(name)}`;
      ctx.annotations.add(
        'warning',
        `bucket label "le" is missing or has a malformed value of ${JSON.stringify(le)}${forName}`,
        ctx.args[argIndex]!.pos,
      );
      continue;
    }
    const labels = dropLabels(s.labels, ['le']);
    const key = labelsKey(labels);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { labels, buckets: [] }));
    group.buckets.push({ upperBound, count: s.value });
  }
  return [...groups.values()];
}

/** Sorted by bound, equal bounds added up; undefined unless the last bound is +Inf. */
function prepared(buckets: Bucket[]): Bucket[] | undefined {
  buckets.sort((a, b) => a.upperBound - b.upperBound);
  if (buckets[buckets.length - 1]!.upperBound !== Infinity) return undefined;
  const out: Bucket[] = [];
  for (const b of buckets) {
    const last = out[out.length - 1];
    if (last !== undefined && last.upperBound === b.upperBound) last.count += b.count;
    else out.push({ ...b });
  }
  return out;
}

function almostEqual(a: number, b: number, epsilon: number): boolean {
  if (a === b) return true;
  const absSum = Math.abs(a) + Math.abs(b);
  const diff = Math.abs(a - b);
  if (a === 0 || b === 0 || absSum < 2.2250738585072014e-308) return diff < epsilon * 2.2250738585072014e-308;
  return diff / Math.min(absSum, Number.MAX_VALUE) < epsilon;
}

/** Counts must not fall with the bound; tiny float noise is evened out, real dips forced up (and reported). */
function monotonic(buckets: Bucket[]): boolean {
  let forced = false;
  let previous = buckets[0]!.count;
  for (let i = 1; i < buckets.length; i++) {
    const current = buckets[i]!.count;
    if (current === previous) continue;
    if (almostEqual(previous, current, 1e-12)) buckets[i]!.count = previous;
    else if (current < previous) {
      buckets[i]!.count = previous;
      forced = true;
    } else previous = current;
  }
  return forced;
}

function bucketQuantile(q: number, raw: Bucket[]): [number, boolean] {
  if (Number.isNaN(q)) return [Number.NaN, false];
  if (q < 0) return [-Infinity, false];
  if (q > 1) return [Infinity, false];
  const buckets = prepared(raw);
  if (buckets === undefined) return [Number.NaN, false];
  const forced = monotonic(buckets);
  if (buckets.length < 2) return [Number.NaN, forced];
  const observations = buckets[buckets.length - 1]!.count;
  if (observations === 0) return [Number.NaN, forced];
  let rank = q * observations;
  let b = 0;
  while (b < buckets.length - 1 && !(buckets[b]!.count >= rank)) b++;
  if (b === buckets.length - 1) return [buckets[buckets.length - 2]!.upperBound, forced];
  if (b === 0 && buckets[0]!.upperBound <= 0) return [buckets[0]!.upperBound, forced];
  let start = 0;
  let count = buckets[b]!.count;
  if (b > 0) {
    start = buckets[b - 1]!.upperBound;
    count -= buckets[b - 1]!.count;
    rank -= buckets[b - 1]!.count;
  }
  return [start + (buckets[b]!.upperBound - start) * (rank / count), forced];
}

function bucketFraction(lower: number, upper: number, raw: Bucket[]): number {
  const buckets = prepared(raw);
  if (buckets === undefined) return Number.NaN;
  const count = buckets[buckets.length - 1]!.count;
  if (count === 0 || Number.isNaN(lower) || Number.isNaN(upper)) return Number.NaN;
  if (lower >= upper) return 0;
  let rank = 0;
  let lowerRank = 0;
  let upperRank = 0;
  let lowerSet = false;
  let upperSet = false;
  let lowerBound = buckets[0]!.upperBound <= 0 ? -Infinity : 0;
  for (const [i, b] of buckets.entries()) {
    if (i > 0) lowerBound = buckets[i - 1]!.upperBound;
    const interpolate = (v: number): number =>
      lowerBound === -Infinity ? b.count : rank + ((b.count - rank) * (v - lowerBound)) / (b.upperBound - lowerBound);
    if (!lowerSet && lowerBound >= lower) [lowerRank, lowerSet] = [rank, true];
    if (!upperSet && lowerBound >= upper) [upperRank, upperSet] = [rank, true];
    if (lowerSet && upperSet) break;
    if (!lowerSet && lowerBound < lower && b.upperBound > lower) [lowerRank, lowerSet] = [interpolate(lower), true];
    if (!upperSet && lowerBound < upper && b.upperBound > upper) [upperRank, upperSet] = [interpolate(upper), true];
    if (lowerSet && upperSet) break;
    rank = b.count;
  }
  if (!lowerSet || lowerRank > count) lowerRank = count;
  if (!upperSet || upperRank > count) upperRank = count;
  return (upperRank - lowerRank) / count;
}

const MONOTONICITY =
  'input to histogram_quantile needed to be fixed for monotonicity (see https://prometheus.io/docs/prometheus/latest/querying/functions/#histogram_quantile)';

function monotonicityInfo(ctx: FunctionContext, labels: Labels, argIndex: number): void {
  const name = labelValue(labels, METRIC_NAME);
  ctx.annotations.add(
    'info',
    `${MONOTONICITY}${name === '' ? '' : ` for metric name ${JSON.stringify(name)}`}`,
    ctx.args[argIndex]!.pos,
  );
}

/** Go's %g with `.0` added to whole numbers, as OpenMetrics writes quantile labels. */
function openMetricsFloat(value: number): string {
  const text = formatG(value);
  return /^[-+]?[0-9]+$/.test(text) ? `${text}.0` : text;
}

/**
 * A function of native histograms only. Prometheus answers nothing for float samples; native histograms are not
 * read here at all, so the answer says why it is empty.
 */
function nativeOnly(name: string): StepFunction {
  return {
    name,
    kind: 'step',
    argTypes: ['vector'],
    returnType: 'vector',
    evalStep: (_, ctx) => {
      ctx.annotations.add(
        'warning',
        `native histograms are not supported: ${name}() reads only native histograms and answers nothing here`,
        ctx.call.pos,
      );
      return [];
    },
  };
}

export const HISTOGRAM_FUNCTIONS: readonly StepFunction[] = [
  {
    name: 'histogram_quantile',
    kind: 'step',
    argTypes: ['scalar', 'vector'],
    returnType: 'vector',
    evalStep: ([q, vector], ctx) => {
      const phi = q as number;
      if (Number.isNaN(phi) || phi < 0 || phi > 1)
        ctx.annotations.add(
          'warning',
          `quantile value should be between 0 and 1, got ${formatG(phi)}`,
          ctx.args[0]!.pos,
        );
      return bucketsOf(vector as Vector, ctx, 1).map(({ labels, buckets }) => {
        const [value, forced] = bucketQuantile(phi, buckets);
        const name = labelValue(labels, METRIC_NAME);
        if (forced)
          ctx.annotations.add(
            'info',
            `${MONOTONICITY}${name === '' ? '' : ` for metric name ${JSON.stringify(name)}`}`,
            ctx.args[1]!.pos,
          );
        return { labels, value, dropName: true };
      });
    },
  },
  {
    name: 'histogram_fraction',
    kind: 'step',
    argTypes: ['scalar', 'scalar', 'vector'],
    returnType: 'vector',
    evalStep: ([lower, upper, vector], ctx) =>
      bucketsOf(vector as Vector, ctx, 2).map(({ labels, buckets }) => ({
        labels,
        value: bucketFraction(lower as number, upper as number, buckets),
        dropName: true,
      })),
  },
  {
    name: 'histogram_quantiles',
    kind: 'step',
    argTypes: ['vector', 'string', 'scalar', 'scalar'],
    variadic: 9,
    experimental: true,
    returnType: 'vector',
    evalStep: ([vector, label, ...qs], ctx) => {
      qs.forEach((q, i) => {
        const phi = q as number;
        if (Number.isNaN(phi) || phi < 0 || phi > 1)
          ctx.annotations.add(
            'warning',
            `quantile value should be between 0 and 1, got ${formatG(phi)}`,
            ctx.args[i + 2]!.pos,
          );
      });
      const histograms = bucketsOf(vector as Vector, ctx, 0);
      return qs.flatMap((q) =>
        histograms.map(({ labels, buckets }) => {
          const [value, forced] = bucketQuantile(q as number, [...buckets]);
          if (forced) monotonicityInfo(ctx, labels, 0);
          return { labels: setLabel(labels, label as string, openMetricsFloat(q as number)), value, dropName: true };
        }),
      );
    },
  },
  nativeOnly('histogram_count'),
  nativeOnly('histogram_sum'),
  nativeOnly('histogram_avg'),
  nativeOnly('histogram_stddev'),
  nativeOnly('histogram_stdvar'),
];
