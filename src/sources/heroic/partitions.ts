/**
 * Heroic's partitions in either schema: how wide they are, the base of a timestamp, and the move between timestamps
 * and (base, data_timestamp_offset) (docs/heroic-layout.md). Pure numbers, apart from the keys' bytes (row-key.ts):
 * a point's column needs no key, and a key needs only the width and the base check from here.
 */

/** The Cassandra key forms, and `bigtable`: Heroic's Bigtable rows (bigtable-key.ts), periods of 2^32 ms. */
export type HeroicSchema = 'ng' | 'legacy' | 'bigtable';

/** ng's MAX_WIDTH is Integer.MAX_VALUE, not 2^32: partitions are one millisecond short of 2^31. */
export const NG_WIDTH_MS = 2147483647;
export const LEGACY_WIDTH_MS = 4294967296;

export function widthOf(schema: HeroicSchema): number {
  const width = WIDTH_MS.get(schema);
  if (width === undefined)
    throw new RangeError(`unknown Heroic schema: ${JSON.stringify(schema)} (expected "ng", "legacy" or "bigtable")`);
  return width;
}

/** Partition base of a timestamp (ms >= 0). */
export function baseOf(schema: HeroicSchema, timestampMs: number): number {
  const width = widthOf(schema);
  checkTimestamp(timestampMs);
  // Exact in doubles: both operands are safe integers.
  return timestampMs - (timestampMs % width);
}

/**
 * The `data_timestamp_offset` int column of a timestamp in the partition at `base` (ng: ts - base; legacy:
 * ts - base - 2^31). Throws a RangeError when the timestamp is not in that partition.
 */
export function columnOf(schema: HeroicSchema, base: number, timestampMs: number): number {
  const width = widthOf(schema);
  checkTimestamp(timestampMs);
  checkBase(schema, base);
  const offset = timestampMs - base;
  if (offset < 0 || offset >= width) {
    throw new RangeError(
      `timestamp ${timestampMs} is outside the ${schema} partition at base ${base} (${base} to ${base + width - 1})`,
    );
  }
  // Legacy shifts offsets into the whole signed int range so that signed column order is time order; Bigtable's
  // qualifiers are unsigned, so its offsets stay as they are.
  return schema === 'legacy' ? offset - LEGACY_SHIFT : offset;
}

/**
 * The timestamp of a column read from the partition at `base`. Any int32 column is accepted, as Heroic's reader
 * (`base + offset`) accepts it, though Heroic only writes ng columns in 0..2^31-2.
 */
export function timestampOf(schema: HeroicSchema, base: number, column: number): number {
  widthOf(schema);
  checkBase(schema, base);
  if (schema === 'bigtable') {
    if (!Number.isInteger(column) || column < 0 || column >= LEGACY_WIDTH_MS)
      throw new RangeError(`offset must be an unsigned 32-bit integer: ${column}`);
    return base + column;
  }
  if (!Number.isInteger(column) || column < INT32_MIN || column > INT32_MAX) {
    throw new RangeError(`column must be a signed 32-bit integer: ${column}`);
  }
  return schema === 'ng' ? base + column : base + column + LEGACY_SHIFT;
}

/** A Map, so that a schema named `toString` or `__proto__` from a config file is unknown, not inherited. */
const WIDTH_MS: ReadonlyMap<string, number> = new Map([
  ['ng', NG_WIDTH_MS],
  ['legacy', LEGACY_WIDTH_MS],
  ['bigtable', LEGACY_WIDTH_MS],
]);
const LEGACY_SHIFT = 2 ** 31;
const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

function checkTimestamp(timestampMs: number): void {
  // Java's % makes negative timestamps' bases lie above them; no Heroic data we read has them.
  if (!Number.isSafeInteger(timestampMs) || timestampMs < 0) {
    throw new RangeError(`timestamp must be a non-negative safe integer of milliseconds: ${timestampMs}`);
  }
}

export function checkBase(schema: HeroicSchema, base: number): void {
  const width = WIDTH_MS.get(schema)!;
  if (!Number.isSafeInteger(base) || base < 0 || base % width !== 0) {
    throw new RangeError(`${schema} base must be a non-negative safe integer multiple of ${width}: ${base}`);
  }
}
