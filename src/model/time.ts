/**
 * Reading points in time from clients: epoch ms as numbers or numeric strings, ISO-8601 text, and Grafana's date
 * math (`now-6h`, `now-1d/d`) in UTC or the query's zone; and the UTC calendar arithmetic of every relative time, KairosDB's start_relative too.
 */
import { DateTime, FixedOffsetZone, type DateTimeUnit, type DurationLikeObject, type Zone } from 'luxon';
import type { TimeUnit } from './time-units.js';
import { EPOCH_MS_RULE, isEpochMs, MAX_EPOCH_MS } from '../lib/epoch-ms.js';

/** A time as a client sent it; read with `parseTime` where the field name and the request's "now" are known. */
export type TimeInput = number | string;

/** Rejects with a reason that completes "… <reason>"; callers wrap it in an error naming their field. */
export class TimeParseError extends Error {}

export interface ParseTimeOptions {
  /** The calendar of relative times (steps of days and longer, rounding): the query's zone. Default UTC. */
  readonly zone?: Zone;
  /** Rounding goes up to the last millisecond of the unit (`now/d` as an end: 23:59:59.999), as Grafana's `to`. */
  readonly roundUp?: boolean;
}

/** Grafana's date math: `now`, then steps `+N<unit>`, `-N<unit>` (N defaults to 1) or `/<unit>`. */
const RELATIVE = /^now((?:\s*(?:[+-]\s*\d*|\/)\s*(?:ms|[smhdwMQy]))*)$/;
const STEP = /\s*([+-]|\/)\s*(\d*)\s*(ms|[smhdwMQy])/g;
const UNIT: Readonly<Record<string, DateTimeUnit>> = {
  ms: 'millisecond',
  s: 'second',
  m: 'minute',
  h: 'hour',
  d: 'day',
  w: 'week',
  M: 'month',
  Q: 'quarter',
  y: 'year',
};

const NOT_A_TIME = 'is not epoch milliseconds, ISO-8601 text or a relative time such as now-6h or now-1d/d';

/**
 * Epoch ms of `value`. `nowMs` anchors relative times. A 10-digit number is refused: as milliseconds it is a day in
 * January to April 1970, and as seconds (what Unix tools and Grafana's `${__from:date:seconds}` give) it is now.
 */
export function parseTime(value: unknown, nowMs: number, options: ParseTimeOptions = {}): number {
  if (typeof value === 'number') return epochMs(notSeconds(value));
  if (typeof value === 'bigint') return epochMs(notSeconds(Number(value)));
  if (typeof value !== 'string')
    throw new TimeParseError('must be epoch milliseconds, ISO-8601 text or a relative time such as now-6h');
  const text = value.trim();
  if (/^[+-]?\d+$/.test(text)) return epochMs(notSeconds(Number(text)));
  const relative = RELATIVE.exec(text);
  if (relative) return epochMs(dateMath(nowMs, relative[1]!, options));
  if (/^now\b/.test(text))
    throw new TimeParseError(`${NOT_A_TIME}: steps are +N<unit>, -N<unit> or /<unit>, units ms s m h d w M Q y`);
  const parsed = DateTime.fromISO(text, { zone: 'utc', setZone: true });
  if (!parsed.isValid) throw new TimeParseError(NOT_A_TIME);
  return epochMs(parsed.toMillis());
}

/**
 * Grafana's date math (its `dateMath.parse`), evaluated step by step from `nowMs` on the calendar of `zone`: adding
 * days keeps the wall-clock time across a DST change, rounding to a day goes to the zone's midnight. Weeks start on
 * Monday (ISO 8601; Grafana follows the browser's locale, luxon and KairosDB do not). NaN beyond luxon's range.
 */
function dateMath(
  nowMs: number,
  steps: string,
  { zone = FixedOffsetZone.utcInstance, roundUp = false }: ParseTimeOptions,
): number {
  let time = DateTime.fromMillis(nowMs, { zone });
  for (const [, op, amount, unit] of steps.matchAll(STEP)) {
    const luxonUnit = UNIT[unit!]!;
    if (op === '/') time = roundUp ? time.endOf(luxonUnit) : time.startOf(luxonUnit);
    else time = time.plus({ [luxonUnit]: (op === '-' ? -1 : 1) * (amount === '' ? 1 : Number(amount)) });
  }
  return time.toMillis();
}

/** 10 digits, what no epoch-ms time of the last 50 years has and every epoch-seconds time until 2286 has. */
function notSeconds(value: number): number {
  const magnitude = Math.abs(value);
  if (magnitude >= 1e9 && magnitude < 1e10 && Number.isInteger(value)) {
    const asSeconds = Math.abs(value * 1000) <= MAX_EPOCH_MS ? ` (${formatTime(value * 1000)} as seconds)` : '';
    throw new TimeParseError(
      `looks like epoch seconds${asSeconds}: send epoch milliseconds (${value * 1000}), or ISO-8601 text for a time in the first months of 1970`,
    );
  }
  return value;
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

/** `ms` as ISO-8601 UTC text (the points of large answers are written by JsonBytes.isoTime, to the same text). */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** The one time rule of every front end (src/lib/epoch-ms.ts). */
function epochMs(value: number): number {
  if (!isEpochMs(value)) throw new TimeParseError(EPOCH_MS_RULE);
  return value;
}
