/**
 * Metric names of a source under a prefix, as both front ends list them: the prefix checked against the source's key
 * limits first (`field` names it in the error), at most `limit` names when one is given.
 */
import { checkMetricPrefix } from '../sources/key-limits.js';
import type { Source } from '../sources/source.js';

export async function metricNames(source: Source, prefix: string, field: string, limit?: number): Promise<string[]> {
  checkMetricPrefix(source.limits, prefix, field);
  return source.metricNames(prefix, limit);
}
