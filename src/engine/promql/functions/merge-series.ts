/**
 * Merging series that share a label set once labels changed (after label functions, or after delayed `__name__`
 * removal): their steps must not overlap, else Prometheus's duplicate-labelset error.
 */
import { labelsKey } from '../labels.js';
import { PromqlError } from '../promql-error.js';
import type { StepSeries } from '../values.js';

export function mergeSameLabels(series: StepSeries[]): StepSeries[] {
  const byKey = new Map<string, StepSeries>();
  for (const s of series) {
    const key = labelsKey(s.labels);
    const seen = byKey.get(key);
    if (seen === undefined) {
      byKey.set(key, s);
      continue;
    }
    const merged: StepSeries = { ...seen, values: Float64Array.from(seen.values), has: Uint8Array.from(seen.has) };
    for (let i = 0; i < s.has.length; i++) {
      if (s.has[i] === 0) continue;
      if (merged.has[i] === 1)
        throw new PromqlError('execution', 'vector cannot contain metrics with the same labelset');
      merged.values[i] = s.values[i]!;
      merged.has[i] = 1;
    }
    byKey.set(key, merged);
  }
  return [...byKey.values()];
}
