/**
 * Growable columns of per-range state, indexed by slot: accumulators keep struct-of-arrays state so a range costs
 * a few numbers, not an object.
 */

export function growFloat64(column: Float64Array<ArrayBuffer>, slot: number): Float64Array<ArrayBuffer> {
  if (slot < column.length) return column;
  const grown = new Float64Array(Math.max(column.length * 2, slot + 1));
  grown.set(column);
  return grown;
}

export function growArray<T>(column: T[], slot: number, fill: T): T[] {
  while (column.length <= slot) column.push(fill);
  return column;
}
