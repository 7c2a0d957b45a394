/**
 * The old generation's growing factor, fixed for the gateway's allocation pattern. A scan allocates a few hundred
 * megabytes of short-lived page buffers and slices per 2M points over a live heap of about 55 MB (schema, driver,
 * code). V8's dynamic factor then settles near 1.4, which leaves the old generation's limit about 24 MB above the
 * live heap, less than the young generation's capacity: V8 starts incremental marking again after every full
 * collection, and a 2M-point query ran 7 to 10 mark-compacts, 30 to 40% of the gateway's CPU, each freeing 1 to 2 MB.
 * At a factor of 2 the same query runs none or one, the gateway's CPU per query falls from 0.56–0.68 s to 0.27–0.38 s,
 * and the peak RSS rises by about 15 MB (bench/RESULTS.md, "Kairograph against real KairosDB").
 */
import { setFlagsFromString } from 'node:v8';

/** The heap-growing percent the gateway runs with: a factor of 1 + GROWING_PERCENT / 100. */
export const GROWING_PERCENT = 100;

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
