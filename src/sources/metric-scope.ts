/** How one metric of one source is named wherever work is kept per metric: loaders, write generations, the results cache. */

/**
 * One metric of one source, as the results cache and write generations key it: `<source>/<metric>`. Source names hold
 * no `/` (sources.ts) and metric names no U+0000, which cache keys put after it.
 */
export function metricScope(source: string, metric: string): string {
  return `${source}/${metric}`;
}
