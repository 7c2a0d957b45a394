/**
 * The tap in front of a row group's range aggregator when the results cache is on: it feeds the ranges the cache
 * answered and the points read from the store to the rest of the pipeline in order, and builds the complete ranges it
 * just read into extents to keep (row-group-buckets.ts decides which).
 */
import type { BucketObserver } from './aggregators/aggregator.js';
import type { BucketTap } from './pipeline.js';
import type { PointKind } from './point-list.js';
import type { Extra, PointSink } from './points.js';
import type { CachedExtent, Hit } from './bucket-cache.js';

/**
 * What the range stage emits and observes while the live ranges are read; at the end, the cached and the live
 * ranges in the query's order, point for point what the stage would have emitted reading everything.
 */
export class Tap implements BucketTap, BucketObserver {
  /** Emitted ranges in emission order: start, and where its points begin in the columns below. */
  private readonly starts: number[] = [];
  private readonly firstOutput: number[] = [];
  private readonly ts: number[] = [];
  private readonly nums: number[] = [];
  private readonly kinds: PointKind[] = [];
  private readonly extras: Extra[] = [];
  /** Raw points per range start. */
  readonly counts = new Map<number, number>();
  /** Per series rank: triples [first start, last start, last end] of runs of adjacent ranges with its points. */
  private readonly runs = new Map<number, number[]>();

  constructor(
    private readonly rest: PointSink,
    private readonly hits: readonly Hit[],
    private readonly asc: boolean,
  ) {}

  segment(startMs: number, endMs: number, rank: number, points: number): void {
    this.counts.set(startMs, (this.counts.get(startMs) ?? 0) + points);
    let runs = this.runs.get(rank);
    if (runs === undefined) this.runs.set(rank, (runs = []));
    const n = runs.length;
    // A series arrives in ascending time, so its ranges come in order, each possibly several times.
    if (n > 0 && runs[n - 2] === startMs) return;
    if (n > 0 && runs[n - 1] === startMs) {
      runs[n - 2] = startMs;
      runs[n - 1] = endMs;
    } else runs.push(startMs, startMs, endMs);
  }

  emitting(startMs: number): void {
    this.starts.push(startMs);
    this.firstOutput.push(this.ts.length);
  }

  point(ts: number, kind: PointKind, num: number, extra: Extra): void {
    this.ts.push(ts);
    this.nums.push(num);
    this.kinds.push(kind);
    this.extras.push(extra);
  }

  end(): void {
    // Live ranges in ascending order (the stage emitted them in the query's order), merged with the cached parts.
    const live = this.starts.length;
    const liveAt = (j: number) => (this.asc ? j : live - 1 - j);
    const sources: number[] = [];
    const indices: number[] = [];
    let j = 0;
    this.hits.forEach((hit, h) => {
      while (j < live && this.starts[liveAt(j)]! < hit.from) {
        sources.push(-1);
        indices.push(liveAt(j++));
      }
      const starts = hit.entry.starts;
      for (let b = lowerBound(starts, hit.from); b < starts.length && starts[b]! < hit.to; b++) {
        sources.push(h);
        indices.push(b);
      }
    });
    for (; j < live; j++) {
      sources.push(-1);
      indices.push(liveAt(j));
    }
    const n = sources.length;
    for (let k = 0; k < n; k++) {
      const at = this.asc ? k : n - 1 - k;
      const source = sources[at]!;
      const i = indices[at]!;
      if (source < 0) {
        const last = i + 1 < live ? this.firstOutput[i + 1]! : this.ts.length;
        for (let p = this.firstOutput[i]!; p < last; p++)
          this.rest.point(this.ts[p]!, this.kinds[p]!, this.nums[p]!, this.extras[p]);
      } else {
        const e = this.hits[source]!.entry;
        for (let p = e.firstOutput[i]!; p < e.firstOutput[i + 1]!; p++)
          this.rest.point(e.ts[p]!, e.kinds[p]!, e.nums[p]!, e.extras[p]);
      }
    }
    this.rest.end();
  }

  /** Emitted ranges starting in [from, to), as emission indices in ascending order of start. */
  rangesIn(from: number, to: number): number[] {
    // The stage emitted them in the query's order: ascending, or descending.
    const n = this.starts.length;
    const at = (j: number) => (this.asc ? j : n - 1 - j);
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[at(mid)]! < from) lo = mid + 1;
      else hi = mid;
    }
    const found: number[] = [];
    for (let j = lo; j < n && this.starts[at(j)]! < to; j++) found.push(at(j));
    return found;
  }

  startOf(i: number): number {
    return this.starts[i]!;
  }

  /** Copies emitted range i into `out`. */
  copy(i: number, out: ExtentBuilder): void {
    const last = i + 1 < this.starts.length ? this.firstOutput[i + 1]! : this.ts.length;
    out.range(this.starts[i]!, this.counts.get(this.starts[i]!)!);
    for (let p = this.firstOutput[i]!; p < last; p++)
      out.point(this.ts[p]!, this.kinds[p]!, this.nums[p]!, this.extras[p]);
  }

  /** Each series' runs clipped to range starts in [from, to). */
  runsIn(from: number, to: number, each: (rank: number, first: number, last: number) => void): void {
    for (const [rank, runs] of this.runs) {
      for (let r = 0; r < runs.length; r += 3) {
        const first = Math.max(runs[r]!, from);
        const last = Math.min(runs[r + 1]!, to - 1);
        if (first <= last) each(rank, first, last);
      }
    }
  }
}

/** Collects an extent's ranges in ascending order and packs them into columns. */
export class ExtentBuilder {
  private readonly starts: number[] = [];
  private readonly counts: number[] = [];
  private readonly firstOutput: number[] = [];
  private readonly ts: number[] = [];
  private readonly nums: number[] = [];
  private readonly kinds: PointKind[] = [];
  private readonly extras: Extra[] = [];
  private extraBytes = 0;

  range(start: number, count: number): void {
    this.starts.push(start);
    this.counts.push(count);
    this.firstOutput.push(this.ts.length);
  }

  point(ts: number, kind: PointKind, num: number, extra: Extra): void {
    this.ts.push(ts);
    this.nums.push(num);
    this.kinds.push(kind);
    this.extras.push(extra);
    if (typeof extra === 'string') this.extraBytes += 2 * extra.length;
    else if (typeof extra === 'bigint') this.extraBytes += 16;
  }

  addLive(tap: Tap, i: number): void {
    tap.copy(i, this);
  }

  addCached(extent: CachedExtent, b: number): void {
    this.range(extent.starts[b]!, extent.counts[b]!);
    for (let p = extent.firstOutput[b]!; p < extent.firstOutput[b + 1]!; p++)
      this.point(extent.ts[p]!, extent.kinds[p]!, extent.nums[p]!, extent.extras[p]);
  }

  build(fromMs: number, toMs: number, readAtMs: number, series: Map<string, number[]>): CachedExtent {
    const packed = new Map<string, Float64Array>();
    let seriesBytes = 0;
    for (const [tagString, runs] of series) {
      packed.set(tagString, sortedPairs(runs));
      seriesBytes += 2 * tagString.length + 8 * runs.length + 64;
    }
    const ranges = this.starts.length;
    const points = this.ts.length;
    return {
      fromMs,
      toMs,
      readAtMs,
      starts: Float64Array.from(this.starts),
      counts: Float64Array.from(this.counts),
      firstOutput: Uint32Array.from([...this.firstOutput, points]),
      ts: Float64Array.from(this.ts),
      nums: Float64Array.from(this.nums),
      kinds: this.kinds,
      extras: this.extras,
      series: packed,
      // Typed columns, plus a pointer each in the two arrays, plus the strings and series; 512 for the objects.
      bytes: 512 + ranges * 20 + points * 32 + this.extraBytes + seriesBytes,
    };
  }
}

/** First index whose value is not below `value` (values ascending). */
export function lowerBound(values: Float64Array, value: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether runs [first, last] of range starts reach into [from, to). */
export function overlapsRuns(runs: Float64Array | undefined, from: number, to: number): boolean {
  if (runs === undefined) return false;
  for (let r = 0; r < runs.length; r += 2) if (runs[r]! < to && runs[r + 1]! >= from) return true;
  return false;
}

function sortedPairs(flat: number[]): Float64Array {
  const pairs: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  return Float64Array.from(pairs.flat());
}
