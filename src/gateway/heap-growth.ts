/**
 * The old generation's growing factor, fixed for the gateway's allocation pattern. A scan allocates far more
 * short-lived page buffers and slices than the live heap holds; V8's dynamic factor then settles so low that the old
 * generation's limit sits less than the young generation's capacity above the live heap, and V8 starts incremental
 * marking again after every full collection: a large query spent a large part of its CPU in mark-compacts that freed
 * little. At a factor of 2 such a query runs hardly any, for a little more peak memory (the measurements are in
 * bench/RESULTS.md, "Kairograph against real KairosDB").
 */
import { setFlagsFromString } from 'node:v8';

/** The heap-growing percent the gateway runs with: a factor of 1 + GROWING_PERCENT / 100. */
const GROWING_PERCENT = 100;

/**
 * Sets V8's `--heap-growing-percent` unless node was started with one (in its options or NODE_OPTIONS), which wins.
 * V8 reads the flag each time it sets the next limit, so setting it at start-up takes effect from the first collection.
 */
export function fixHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env['NODE_OPTIONS'] ?? '',
): boolean {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg));
  if (given) return false;
  setFlagsFromString(`--heap-growing-percent=${GROWING_PERCENT}`);
  return true;
}
