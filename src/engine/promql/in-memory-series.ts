/**
 * A SeriesAccess over series held in memory, for tests and the script runner: series are added with their samples
 * (appended in time order) and selected by matchers.
 */
import { labelsKey, type Labels, labelValue } from './labels.js';
import { matches } from './matcher.js';
import type { Matcher } from './matcher.js';
import type { SampleChunk, SelectedSeries, SelectHints, SeriesAccess } from './series-access.js';

interface StoredSeries {
  readonly labels: Labels;
  readonly timestampsMs: number[];
  readonly values: number[];
}

export class InMemorySeries implements SeriesAccess {
  private readonly series = new Map<string, StoredSeries>();

  /** `chunkSize` splits each series' samples into chunks of that many, to exercise the engine across chunk edges. */
  constructor(private readonly chunkSize = Number.POSITIVE_INFINITY) {
    if (!(chunkSize >= 1)) throw new Error(`chunkSize must be at least 1: ${chunkSize}`);
  }

  /** Adds samples to a series, creating it; a sample at a time already held replaces that one. */
  add(labels: Labels, timestampsMs: readonly number[], values: readonly number[]): void {
    const key = labelsKey(labels);
    let stored = this.series.get(key);
    if (stored === undefined) this.series.set(key, (stored = { labels, timestampsMs: [], values: [] }));
    for (let i = 0; i < timestampsMs.length; i++) {
      const t = timestampsMs[i]!;
      const last = stored.timestampsMs.length - 1;
      if (last >= 0 && stored.timestampsMs[last]! >= t) {
        const at = stored.timestampsMs.findIndex((x) => x >= t);
        if (stored.timestampsMs[at] === t) stored.values[at] = values[i]!;
        else {
          stored.timestampsMs.splice(at, 0, t);
          stored.values.splice(at, 0, values[i]!);
        }
      } else {
        stored.timestampsMs.push(t);
        stored.values.push(values[i]!);
      }
    }
  }

  clear(): void {
    this.series.clear();
  }

  async *select(matchers: readonly Matcher[], hints: SelectHints): AsyncIterable<SelectedSeries> {
    for (const stored of this.series.values()) {
      if (!matchers.every((m) => matches(m, labelValue(stored.labels, m.name)))) continue;
      const from = lowerBound(stored.timestampsMs, hints.startMs);
      const to = lowerBound(stored.timestampsMs, hints.endMs + 1);
      if (from === to) continue;
      const chunks: SampleChunk[] = [];
      for (let at = from; at < to; at += Math.min(this.chunkSize, to - at)) {
        const end = Math.min(to, at + this.chunkSize);
        chunks.push({
          timestampsMs: Float64Array.from(stored.timestampsMs.slice(at, end)),
          values: Float64Array.from(stored.values.slice(at, end)),
        });
      }
      yield { labels: stored.labels, chunks };
    }
  }
}

function lowerBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
