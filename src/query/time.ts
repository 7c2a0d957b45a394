/**
 * Reading points in time from clients: epoch ms as numbers or numeric strings, ISO-8601 text, and Grafana-style
 * relative times (`now-6h`); and the UTC calendar arithmetic of every relative time, KairosDB's start_relative too.
 */
import { DateTime, type DurationLikeObject } from 'luxon';
import type { TimeUnit } from '../engine/time-units.js';
import { EPOCH_MS_RULE, isEpochMs } from '../epoch-ms.js';

/** A time as a client sent it; read with `parseTime` where the field name and the request's "now" are known. */
export type TimeInput = number | string;

/** Rejects with a reason that completes "… <reason>"; callers wrap it in an error naming their field. */
export class TimeParseError extends Error {}

const RELATIVE = /^now(?:\s*([+-])\s*(\d+)\s*(ms|s|m|h|d|w|M|y))?$/;
const UNIT: Readonly<Record<string, TimeUnit>> = {
  ms: 'MILLISECONDS',
  s: 'SECONDS',
  m: 'MINUTES',
  h: 'HOURS',
  d: 'DAYS',
  w: 'WEEKS',
  M: 'MONTHS',
  y: 'YEARS',
};

/** Epoch ms of `value`. `nowMs` anchors relative times. */
export function parseTime(value: unknown, nowMs: number): number {
  if (typeof value === 'number') return epochMs(value);
  if (typeof value === 'bigint') return epochMs(Number(value));
  if (typeof value !== 'string') throw new TimeParseError('must be epoch milliseconds, ISO-8601 text or a relative time such as now-6h');
  const text = value.trim();
  if (/^[+-]?\d+$/.test(text)) return epochMs(Number(text));
  const relative = RELATIVE.exec(text);
  if (relative) {
    const [, sign, amount, unit] = relative;
    if (sign === undefined) return nowMs;
    // luxon answers NaN past its range (now-99999999y): a time too far away, which the one rule refuses.
    return epochMs(plusUtc(nowMs, sign === '-' ? -Number(amount) : Number(amount), UNIT[unit!]!));
  }
  const parsed = DateTime.fromISO(text, { zone: 'utc', setZone: true });
  if (!parsed.isValid) throw new TimeParseError('is not epoch milliseconds, ISO-8601 text or a relative time such as now-6h');
  return epochMs(parsed.toMillis());
}

/**
 * `nowMs` plus `amount` units (negative: back) on a UTC calendar, as KairosDB's RelativeTime counts with a UTC
 * java.util.Calendar whatever the query's zone: a month back from Mar 31 is Feb 28 or 29. NaN beyond luxon's range.
 */
export function plusUtc(nowMs: number, amount: number, unit: TimeUnit): number {
  return DateTime.fromMillis(nowMs, { zone: 'utc' })
    .plus({ [LUXON_UNIT[unit]]: amount })
    .toMillis();
}

const LUXON_UNIT: Readonly<Record<TimeUnit, keyof DurationLikeObject>> = {
  MILLISECONDS: 'milliseconds',
  SECONDS: 'seconds',
  MINUTES: 'minutes',
  HOURS: 'hours',
  DAYS: 'days',
  WEEKS: 'weeks',
  MONTHS: 'months',
  YEARS: 'years',
};

export function formatTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** The one time rule of every front end (src/epoch-ms.ts). */
function epochMs(value: number): number {
  if (!isEpochMs(value)) throw new TimeParseError(EPOCH_MS_RULE);
  return value;
}
