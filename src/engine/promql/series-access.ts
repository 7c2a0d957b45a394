/**
 * The seam between the PromQL engine and storage: find the series matching a selector and read their float samples
 * over a time range. The engine asks once per selector with the exact range it needs; implementations may stream.
 */
import type { Labels } from './labels.js';
import type { Matcher } from './matcher.js';

/** A run of one series' samples, times ascending: a slice as the stores read them. */
export interface SampleChunk {
  readonly timestampsMs: Float64Array;
  readonly values: Float64Array;
}

/**
 * One series and its samples in the asked range, in time order across chunks; a staleness marker (values.ts
 * STALE_NAN) ends a run. The engine reads the chunks of a series before asking for the next series, and holds no
 * more than a window of them, so an implementation that reads lazily keeps little in memory.
 */
export interface SelectedSeries {
  readonly labels: Labels;
  readonly chunks: AsyncIterable<SampleChunk> | Iterable<SampleChunk>;
}

export interface SelectHints {
  /** Inclusive bounds of the samples the engine will look at. */
  readonly startMs: number;
  readonly endMs: number;
  /** The selector's range (0 for instant selectors) and the query step: what a store may use to plan reads. */
  readonly rangeMs: number;
  readonly stepMs: number;
}

export interface SeriesAccess {
  /**
   * Every series whose labels satisfy all matchers, with its samples in [startMs, endMs]. Series without a sample
   * in the range may be left out. Aborting `signal` asks the implementation to stop reading.
   */
  select(matchers: readonly Matcher[], hints: SelectHints, signal?: AbortSignal): AsyncIterable<SelectedSeries>;
}
