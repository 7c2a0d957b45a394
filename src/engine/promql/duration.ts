/**
 * Prometheus's duration syntax (`1h30m`, `5m`, `500ms`): units from years down to milliseconds, each at most once
 * and largest first; a year is 365 days, as in Prometheus.
 */
import { PromqlError } from './promql-error.js';

const UNIT_MS: Readonly<Record<string, number>> = {
  y: 365 * 24 * 3600_000,
  w: 7 * 24 * 3600_000,
  d: 24 * 3600_000,
  h: 3600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
};
const ORDER = ['y', 'w', 'd', 'h', 'm', 's', 'ms'];

/** Milliseconds of a duration; `at` is where it starts in the query, for the error's position. */
export function parseDuration(text: string, at = 0): number {
  if (text === '0') return 0;
  let ms = 0;
  let lastUnit = -1;
  const parts = [...text.matchAll(/([0-9]+)(ms|s|m|h|d|w|y)/g)];
  if (parts.map((p) => p[0]).join('') !== text || parts.length === 0)
    throw new PromqlError('bad_data', `not a valid duration string: "${text}"`, at);
  for (const [, digits, unit] of parts) {
    const index = ORDER.indexOf(unit!);
    if (index <= lastUnit) throw new PromqlError('bad_data', `not a valid duration string: "${text}"`, at);
    lastUnit = index;
    ms += Number(digits) * UNIT_MS[unit!]!;
  }
  return ms;
}
