/**
 * A time shift: a query reads the window moved by it and answers its points moved back onto the asked window, so a
 * series of last week can be drawn beside this week's (Grafana's per-panel "time shift", PromQL's `offset`). Calendar
 * units (days and longer) count in the query's zone, so a day back keeps the wall-clock time across a DST change.
 */
import { DateTime, FixedOffsetZone, type DurationLikeObject, type Zone } from 'luxon';
import { TimeParseError } from './time.js';

export interface TimeShift {
  /** The shift as the client wrote it. */
  readonly text: string;
  /** Where the window's times go: `ms` moved by the shift. */
  readonly forward: (ms: number) => number;
  /** Where a point read from the moved window is answered: `ms` moved back by the shift. */
  readonly back: (ms: number) => number;
}

/** `-7d`, `+1h`, `-1M`, `-1d12h`: a sign, then amounts with units ms s m h d w M Q y (Grafana's date math units). */
const SHIFT = /^([+-])((?:\d+(?:ms|[smhdwMQy]))+)$/;
const PART = /(\d+)(ms|[smhdwMQy])/g;

const UNIT: Readonly<Record<string, keyof DurationLikeObject>> = {
  ms: 'milliseconds',
  s: 'seconds',
  m: 'minutes',
  h: 'hours',
  d: 'days',
  w: 'weeks',
  M: 'months',
  Q: 'quarters',
  y: 'years',
};

/** Units of one length whatever the calendar: a shift of only these moves every time by the same milliseconds. */
const FIXED_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Reads `text`. The sign is required: Grafana's panel shift `1d` means a day back while date math's `+1d` means a day
 * forward, so an unsigned shift would be read one way by some users and the other way by the rest.
 */
export function parseTimeShift(text: string, zone: Zone = FixedOffsetZone.utcInstance): TimeShift {
  const match = SHIFT.exec(text.trim());
  if (match === null) {
    const hint = /^\d/.test(text.trim()) ? `; "-${text.trim()}" reads the window that much earlier` : '';
    throw new TimeParseError(
      `is not a time shift: a sign, then amounts with units ms s m h d w M Q y, such as -7d, -1M or +1h${hint}`,
    );
  }
  const sign = match[1] === '-' ? -1 : 1;
  const parts = [...match[2]!.matchAll(PART)].map(([, amount, unit]) => ({
    amount: sign * Number(amount),
    unit: unit!,
  }));
  if (parts.every((part) => FIXED_MS[part.unit] !== undefined)) {
    const offset = parts.reduce((sum, part) => sum + part.amount * FIXED_MS[part.unit]!, 0);
    return { text, forward: (ms) => ms + offset, back: (ms) => ms - offset };
  }
  const duration: DurationLikeObject = {};
  for (const { amount, unit } of parts) duration[UNIT[unit]!] = (duration[UNIT[unit]!] ?? 0) + amount;
  return {
    text,
    forward: (ms) => DateTime.fromMillis(ms, { zone }).plus(duration).toMillis(),
    back: (ms) => DateTime.fromMillis(ms, { zone }).minus(duration).toMillis(),
  };
}
