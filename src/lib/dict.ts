/**
 * Records keyed by strings that clients choose (tag names, tag groups, tag filters' results, REST JSON objects): one
 * way to make them, with a null prototype, so `__proto__`, `constructor` or `toString` are ordinary keys to write
 * and to read, and the records still serialize with JSON.stringify and list with Object.keys/entries.
 */

/**
 * An empty record without a prototype. Assignment defines an own property for every key (on a plain object
 * `o.__proto__ = v` replaces the prototype instead), and reading a key that is absent gives undefined (on a plain
 * object `o.constructor` finds Object's). Object.fromEntries alone fixes the first but not the second.
 */
export function dict<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** A null-prototype record of `entries`, in their order; a key given twice keeps its last value. */
export function dictOf<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  const out = dict<V>();
  for (const [key, value] of entries) out[key] = value;
  return out;
}
