/**
 * A task's periods: its execution interval laid on a fixed UTC grid, so every gateway (and every restart) cuts time
 * into the same periods and a period is a key a claim can name. Units up to hours count from the epoch, days from UTC
 * midnight, weeks from Monday 00:00 UTC, months and years on the UTC calendar from 1970.
 */
import { DateTime } from 'luxon';
import { fixedLengthMs, resolveZone, type Duration } from '../model/time-units.js';

export interface Period {
  readonly startMs: number;
  /** Exclusive. */
  readonly endMs: number;
}

const DAY_MS = 86_400_000;
/** 1970-01-05, the first Monday after the epoch. */
const FIRST_MONDAY_MS = 4 * DAY_MS;

const UTC = resolveZone('UTC')!;

/** The period that holds `ms`. */
export function periodAt(ms: number, interval: Duration): Period {
  const length = fixedLengthMs(interval, UTC);
  if (length !== undefined) {
    const origin = interval.unit === 'WEEKS' ? FIRST_MONDAY_MS : 0;
    const startMs = origin + Math.floor((ms - origin) / length) * length;
    return { startMs, endMs: startMs + length };
  }
  const at = DateTime.fromMillis(ms, { zone: 'utc' });
  const months = interval.unit === 'YEARS' ? 12 * interval.value : interval.value;
  const index = Math.floor(((at.year - 1970) * 12 + at.month - 1) / months) * months;
  const start = DateTime.utc(1970, 1, 1).plus({ months: index });
  return { startMs: start.toMillis(), endMs: start.plus({ months }).toMillis() };
}

/** The period right after `period`. */
export function nextPeriod(period: Period, interval: Duration): Period {
  return periodAt(period.endMs, interval);
}

/** The key of a period in service_index: its start, zero-padded so text order is time order (from 1970 on). */
export function periodKey(period: Period): string {
  return period.startMs >= 0
    ? String(period.startMs).padStart(16, '0')
    : `-${String(-period.startMs).padStart(16, '0')}`;
}
