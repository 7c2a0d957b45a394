/**
 * What a series is at every layer: a metric and its tags, stored in partitions (the series in one period of its
 * source), whose points come as columnar slices. The data model is KairosDB's (docs/architecture.md, decision 1);
 * how a layout lays a partition out, and what it calls its types, is its own.
 */

export type Tags = Readonly<Record<string, string>>;

/** The kind of values a slice carries. Number kinds keep `long` apart so answers can keep the written type. */
export type SliceKind = 'long' | 'double' | 'string' | 'complex';

/**
 * What a partition's slices hold: one slice kind, or `legacy`: longs and doubles mixed, a slice per run of one kind
 * (KairosDB ≤ 0.9.3's rows, whose columns carry the kind point by point).
 */
export type PartitionKind = SliceKind | 'legacy';

/** One partition: one series in one period of its source. Slices carry it; KairosDB's row key is exactly this. */
export interface PartitionKey {
  readonly metric: string;
  /**
   * Epoch ms where the partition's period starts (KairosDB's row time, Heroic's base, a table's bucket start): every
   * point of it lies in [rowTime, rowTime + the source's width).
   */
  readonly rowTime: number;
  /**
   * How the layout stores the partition's values, in the layout's own words (`kairos_long`, `kairos_legacy`,
   * `heroic_double`, a table column's CQL type): a metric and tag set has a series of each.
   */
  readonly dataType: string;
  readonly tags: Tags;
}

/** A partition as a source found it (SeriesPlan): its key, and what its slices hold. */
export interface Partition extends PartitionKey {
  readonly kind: PartitionKind;
}

interface SliceBase {
  /** The partition the points came from. */
  readonly key: PartitionKey;
  /** Epoch ms, in scan order (ascending unless the scan asked for `desc`). `values` has the same length. */
  readonly timestamps: Float64Array;
}

/**
 * Long or double points. `values` is the numeric view the engine aggregates; for longs outside ±2^53
 * `exact` carries the precise 64-bit values (it is absent when every value is a safe integer).
 */
export interface NumberSlice extends SliceBase {
  readonly kind: 'long' | 'double';
  readonly values: Float64Array;
  readonly exact?: BigInt64Array;
}

interface StringSlice extends SliceBase {
  readonly kind: 'string';
  readonly values: readonly string[];
}

/** `kairos_complex` points: `values` holds the real parts. */
interface ComplexSlice extends SliceBase {
  readonly kind: 'complex';
  readonly values: Float64Array;
  readonly imaginary: Float64Array;
}

/**
 * A columnar batch of consecutive points of one partition. Reads yield slices, never per-point objects.
 * A `legacy` partition's read yields one slice per run of one kind.
 * A slice's arrays are never written again once it is yielded: consumers may keep it (an answer's PointList does).
 */
export type Slice = NumberSlice | StringSlice | ComplexSlice;
