/**
 * Reading points in time from clients: epoch ms as numbers or numeric strings, ISO-8601 text, and Grafana-style
 * relative times (`now-6h`). Calendar units in relative times are counted in UTC with luxon.
 */
import { DateTime, type DurationLikeObject } from 'luxon';

/** A time as a client sent it; read with `parseTime` where the field name and the request's "now" are known. */
export type TimeInput = number | string;

/** Rejects with a reason that completes "… <reason>"; callers wrap it in an error naming their field. */
export class TimeParseError extends Error {}

const RELATIVE = /^now(?:\s*([+-])\s*(\d+)\s*(ms|s|m|h|d|w|M|y))?$/;
const UNIT: Record<string, keyof DurationLikeObject> = {
  ms: 'milliseconds',
  s: 'seconds',
  m: 'minutes',
  h: 'hours',
  d: 'days',
  w: 'weeks',
  M: 'months',
  y: 'years',
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
    const now = DateTime.fromMillis(nowMs, { zone: 'utc' });
    const duration = { [UNIT[unit!]!]: Number(amount) };
    return (sign === '-' ? now.minus(duration) : now.plus(duration)).toMillis();
  }
  const parsed = DateTime.fromISO(text, { zone: 'utc', setZone: true });
  if (!parsed.isValid) throw new TimeParseError('is not epoch milliseconds, ISO-8601 text or a relative time such as now-6h');
  return epochMs(parsed.toMillis());
}

export function formatTime(ms: number): string {
  return new Date(ms).toISOString();
}

function epochMs(value: number): number {
  if (!Number.isSafeInteger(value)) throw new TimeParseError('must be a whole number of epoch milliseconds');
  // Date and ISO-8601 stop at ±8.64e15 ms; KairosDB's Long range is wider, but nothing beyond it is a real time.
  if (Math.abs(value) > 8.64e15) throw new TimeParseError('is outside the representable range of ±8.64e15 ms');
  return value;
}
