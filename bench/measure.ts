/**
 * What every benchmark shares: `--name value` arguments, and the statistics they report (medians, percentiles).
 */

export function parseArgs(argv: readonly string[]): Map<string, string> {
  return new Map(argv.flatMap((a, i) => (a.startsWith('--') ? [[a.slice(2), argv[i + 1] ?? '']] : [])));
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The smallest value with at least `p` of the values at or below it (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}
