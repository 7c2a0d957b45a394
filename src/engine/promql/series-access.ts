/**
 * The seam between the PromQL engine and storage: find the series matching a selector and read their float samples
 * over a time range. The engine asks once per selector with the exact range it needs; implementations may stream.
 */
import type { Labels } from './labels.js';
import type { Matcher } from './matcher.js';

/** One series' samples in a range, times ascending; a staleness marker (values.ts STALE_NAN) ends a run. */
export interface SelectedSeries {
  readonly labels: Labels;
  readonly timestampsMs: Float64Array;
  readonly values: Float64Array;
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
   * Every series whose labels satisfy all matchers, with its samples in [startMs, endMs]; each series is handed over
   * and released before the next is asked for, so an implementation that reads lazily holds one series at a time.
   * Series that have no sample in the range may be left out.
   */
  select(matchers: readonly Matcher[], hints: SelectHints, signal?: AbortSignal): AsyncIterable<SelectedSeries>;
}
