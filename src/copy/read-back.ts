/**
 * The read-back check of `npm run copy`: per series (metric and tags), the count of its points in the range and exact,
 * order-free sums of them, read on both sides through the same read path (findSeries, then read).
 */
import { IndexLoaders } from '../sources/index-loaders.js';
import type { TimeRange } from '../model/query.js';
import { encodeTagString } from '../model/tag-string.js';
import type { Slice, Tags } from '../model/series.js';
import type { Source } from '../sources/source.js';

/** One series' points, summarised so that equal points give equal stats whatever order they were read in. */
interface SeriesStats {
  readonly metric: string;
  readonly tags: Tags;
  count: number;
  /** Long values, exactly. */
  readonly longSum: ExactIntegerSum;
  /** Double values, correctly rounded (fsum): the destination may hold them in other partitions, so in another order. */
  readonly doubleSum: ExactDoubleSum;
  /** String values: the sum of their FNV-1a hashes modulo 2^32. */
  stringDigest: number;
  /** Timestamps, exactly: a point moved in time changes it. */
  readonly timeSum: ExactIntegerSum;
}

export interface Mismatch {
  /** `metric{tag=value,...}` */
  readonly series: string;
  readonly source: string;
  readonly destination: string;
}

export interface ReadBack {
  /** Series of the source compared. */
  readonly series: number;
  /** Points of the source read. */
  readonly points: number;
  readonly mismatches: readonly Mismatch[];
}

const ALL_SERIES = (): boolean => true;

/** Compares every series `from` holds of `metrics` in `range` with the same series on `to`. */
export async function readBack(
  from: Source,
  to: Source,
  metrics: readonly string[],
  range: TimeRange,
  onSeries?: (points: number) => void,
): Promise<ReadBack> {
  let series = 0;
  let points = 0;
  const mismatches: Mismatch[] = [];
  for (const metric of metrics) {
    const source = await seriesStats(from, metric, range, onSeries);
    const destination = await seriesStats(to, metric, range);
    for (const [id, expected] of source) {
      series++;
      points += expected.count;
      const actual = destination.get(id) ?? emptyStats(metric, expected.tags);
      const [a, b] = [describeStats(expected), describeStats(actual)];
      if (a !== b) mismatches.push({ series: describeSeries(metric, expected.tags), source: a, destination: b });
    }
  }
  return { series, points, mismatches };
}

/** Stats of every series of `metric` on `source` with points in `range`, by canonical tag string. */
async function seriesStats(
  source: Source,
  metric: string,
  range: TimeRange,
  onSeries?: (points: number) => void,
): Promise<Map<string, SeriesStats>> {
  const plan = await source.findSeries(new IndexLoaders(), metric, range, ALL_SERIES);
  const stats = new Map<string, SeriesStats>();
  for (const key of plan.partitions) {
    const id = encodeTagString(key.tags);
    let entry = stats.get(id);
    if (entry === undefined) stats.set(id, (entry = emptyStats(metric, key.tags)));
    const before = entry.count;
    for await (const slice of source.read(key, range.startMs, range.endMs)) addSlice(entry, slice);
    onSeries?.(entry.count - before);
  }
  return stats;
}

/** `metric{name=value,...}`, tags in name order. */
export function describeSeries(metric: string, tags: Tags): string {
  const names = Object.keys(tags).sort();
  return `${metric}{${names.map((name) => `${name}=${tags[name]}`).join(',')}}`;
}

/** What is compared, as text: two series match when their descriptions are equal. */
function describeStats(stats: SeriesStats): string {
  const sums: string[] = [];
  if (stats.longSum.count > 0) sums.push(`long sum ${stats.longSum.value()}`);
  if (stats.doubleSum.count > 0) sums.push(`double sum ${stats.doubleSum.value()}`);
  if (stats.stringDigest !== 0) sums.push(`string digest ${stats.stringDigest.toString(16).padStart(8, '0')}`);
  return [`${stats.count} points`, ...sums, `time sum ${stats.timeSum.value()}`].join(', ');
}

function emptyStats(metric: string, tags: Tags): SeriesStats {
  return {
    metric,
    tags,
    count: 0,
    longSum: new ExactIntegerSum(),
    doubleSum: new ExactDoubleSum(),
    stringDigest: 0,
    timeSum: new ExactIntegerSum(),
  };
}

function addSlice(stats: SeriesStats, slice: Slice): void {
  const n = slice.timestamps.length;
  stats.count += n;
  for (let i = 0; i < n; i++) stats.timeSum.add(slice.timestamps[i]!);
  switch (slice.kind) {
    case 'long':
      for (let i = 0; i < n; i++) {
        if (slice.exact !== undefined) stats.longSum.addBig(slice.exact[i]!);
        else stats.longSum.add(slice.values[i]!);
      }
      break;
    case 'double':
      for (let i = 0; i < n; i++) stats.doubleSum.add(slice.values[i]!);
      break;
    case 'string':
      for (let i = 0; i < n; i++) stats.stringDigest = (stats.stringDigest + fnv1a(slice.values[i]!)) >>> 0;
      break;
    case 'complex':
      // Never copied (copy.ts refuses them); their real parts are summed so a check of such a series still means something.
      for (let i = 0; i < n; i++) stats.doubleSum.add(slice.values[i]!);
      break;
  }
}

const FOLD = 2 ** 52;

/** A sum of integers, exact at any size: in a double while that is exact, folded into a bigint past 2^52. */
export class ExactIntegerSum {
  count = 0;
  private small = 0;
  private big = 0n;

  add(value: number): void {
    this.count++;
    if (value > FOLD || value < -FOLD) {
      this.big += BigInt(value);
      return;
    }
    // Both at most 2^52 in size: their sum is at most 2^53, still exact.
    this.small += value;
    if (this.small > FOLD || this.small < -FOLD) {
      this.big += BigInt(this.small);
      this.small = 0;
    }
  }

  addBig(value: bigint): void {
    this.count++;
    this.big += value;
  }

  value(): bigint {
    return this.big + BigInt(this.small);
  }
}

/**
 * Shewchuk's exact sum of doubles (Python's math.fsum): the partials hold the exact sum, and `value` rounds it
 * correctly, so the result is the same in any order of addition.
 */
export class ExactDoubleSum {
  count = 0;
  private readonly partials: number[] = [];

  add(value: number): void {
    this.count++;
    let x = value;
    let i = 0;
    const partials = this.partials;
    for (let j = 0; j < partials.length; j++) {
      let y = partials[j]!;
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) partials[i++] = lo;
      x = hi;
    }
    partials.length = i;
    partials.push(x);
  }

  value(): number {
    const partials = this.partials;
    let n = partials.length;
    if (n === 0) return 0;
    let hi = partials[--n]!;
    let lo = 0;
    while (n > 0) {
      const x = hi;
      const y = partials[--n]!;
      hi = x + y;
      lo = y - (hi - x);
      if (lo !== 0) break;
    }
    // Half-way cases: round as the partials below decide, not to even.
    if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
      const y = lo * 2;
      const x = hi + y;
      if (y === x - hi) hi = x;
    }
    return hi;
  }
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
