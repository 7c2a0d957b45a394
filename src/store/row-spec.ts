/**
 * KairosDB's readRowSpec rules (reference §1), shared by both stores: the spec a store without spec rows writes,
 * and what the stored rows must hold to be used.
 */
import { DEFAULT_ROW_WIDTH_MS, type RowSpec, type RowTimeUnit } from './store.js';

/** Metric names without a spec are data of KairosDB ≤1.2, whose columns are LEGACY; otherwise the configured unit. */
export function initialRowTimeUnit(hasMetricNames: boolean, configured: RowTimeUnit): RowTimeUnit {
  return hasMetricNames ? 'LEGACY' : configured;
}

/** The configured width, else KairosDB's default in the number the unit stores (seconds with unit SECONDS). */
export function initialRowWidth(unit: string, configured: number | undefined): string {
  return String(configured ?? (unit === 'SECONDS' ? DEFAULT_ROW_WIDTH_MS / 1000 : DEFAULT_ROW_WIDTH_MS));
}

/** The spec rows' text as a RowSpec; `owner` names the store's data in errors (e.g. `keyspace kairosdb`). */
export function parseRowSpec(unit: string, width: string, owner?: string): RowSpec {
  const of = owner === undefined ? '' : ` of ${owner}`;
  if (unit !== 'MILLISECONDS' && unit !== 'SECONDS' && unit !== 'LEGACY')
    throw new Error(`spec row_time_unit${of} is not a known unit: ${JSON.stringify(unit)}`);
  const number = Number(width);
  if (!/^\d+$/.test(width) || !Number.isSafeInteger(number) || number <= 0) {
    throw new Error(`spec row_width${of} is not a positive integer: ${JSON.stringify(width)}`);
  }
  return { unit, width: number };
}
