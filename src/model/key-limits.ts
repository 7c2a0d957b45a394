/**
 * The largest names and series a source's keys can hold: every front end refuses larger ones before any source
 * call, with the same errors (sources/key-limits.ts checks them).
 */

/**
 * The largest user strings a source's keys can hold, in UTF-8 bytes, derived from how its store or layout lays out
 * each key it writes or looks up.
 */
export interface KeyLimits {
  /** Names the store or layout in messages, as a possessive: "the embedded store's", "the heroic layout's". */
  readonly store: string;
  /** The longest metric name (and metric-name prefix) every key holding one can take. */
  readonly maxMetricBytes: number;
  /** The longest typed data_points row key (metric, row time, data type, tag string). */
  readonly maxRowKeyBytes: number;
  /** The longest row_keys clustering (data type plus tags as a frozen map), where a store limits it apart. */
  readonly maxRowKeysTagsBytes?: number;
  /**
   * Set where it holds doubles only (Heroic's table), naming its layout as a possessive ("the heroic layout's"): it
   * takes doubles and the longs a double holds exactly, and no strings.
   */
  readonly doublesOnly?: string;
  /** The earliest time it holds, where it cannot hold all (Heroic's partitions start at 0). */
  readonly minTimestampMs?: number;
}
