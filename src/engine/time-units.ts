/**
 * KairosDB's time units (`TimeUnit.java`), time zones, and the calendar arithmetic the engine needs: anchors for
 * align_sampling, and the length of a sampling that starts at a given instant (`Util.getSamplingDuration`).
 */
import { DateTime, FixedOffsetZone, IANAZone, type DurationLikeObject, type Zone } from 'luxon';

export const TIME_UNITS = ['MILLISECONDS', 'SECONDS', 'MINUTES', 'HOURS', 'DAYS', 'WEEKS', 'MONTHS', 'YEARS'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

/** A sampling or range size: a whole number of one unit. */
export interface Duration {
  readonly value: number;
  readonly unit: TimeUnit;
}

/** Units of a fixed length in every zone. Days and longer are counted on the calendar of the zone. */
const FIXED_UNIT_MS: Readonly<Partial<Record<TimeUnit, number>>> = {
  MILLISECONDS: 1,
  SECONDS: 1000,
  MINUTES: 60_000,
  HOURS: 3_600_000,
};

const DAY_MS = 86_400_000;

/** Case-insensitive, as KairosDB's `TimeUnit.from`; undefined when the text names no unit. */
export function parseTimeUnit(text: string): TimeUnit | undefined {
  const upper = text.toUpperCase();
  return (TIME_UNITS as readonly string[]).includes(upper) ? (upper as TimeUnit) : undefined;
}

/**
 * An IANA zone id, or a Joda-style fixed offset such as `+05:30` (`DateTimeZone.forID` accepts both). The empty
 * string means UTC, as in KairosDB. Undefined when the name is not a zone.
 */
export function resolveZone(name: string): Zone | undefined {
  if (name === '' || name === 'UTC') return FixedOffsetZone.utcInstance;
  const offset = /^([+-])(\d{2}):?(\d{2})$/.exec(name);
  if (offset) {
    const minutes = Number(offset[2]) * 60 + Number(offset[3]);
    if (minutes >= 24 * 60) return undefined;
    return FixedOffsetZone.instance(offset[1] === '-' ? -minutes : minutes);
  }
  return IANAZone.isValidZone(name) ? IANAZone.create(name) : undefined;
}

/** The length in ms of a sampling when it has no calendar (fixed units, or days and weeks in a zone without DST). */
export function fixedLengthMs(duration: Duration, zone: Zone): number | undefined {
  const unitMs = FIXED_UNIT_MS[duration.unit];
  if (unitMs !== undefined) return duration.value * unitMs;
  if (zone.isUniversal && duration.unit === 'DAYS') return duration.value * DAY_MS;
  if (zone.isUniversal && duration.unit === 'WEEKS') return duration.value * 7 * DAY_MS;
  return undefined;
}

/**
 * Where align_sampling puts the first range (`RangeAggregator.alignRangeBoundary`), in the zone: years at Jan 1,
 * months at day 1, weeks at Monday (ISO), and every unit from seconds to days at midnight, not at the top of the
 * hour or minute; milliseconds at the whole second.
 */
export function alignedAnchor(ms: number, unit: TimeUnit, zone: Zone): number {
  const dt = DateTime.fromMillis(ms, { zone });
  switch (unit) {
    case 'YEARS':
      return dt.startOf('year').toMillis();
    case 'MONTHS':
      return dt.startOf('month').toMillis();
    case 'WEEKS':
      return dt.startOf('week').toMillis();
    case 'MILLISECONDS':
      return dt.startOf('second').toMillis();
    default:
      return dt.startOf('day').toMillis();
  }
}

/** `ms` plus `count` units in the zone: wall-clock arithmetic for days and longer (a DST day is 23 or 25 hours). */
export function plusUnits(ms: number, unit: TimeUnit, count: number, zone: Zone): number {
  const unitMs = FIXED_UNIT_MS[unit];
  if (unitMs !== undefined) return ms + count * unitMs;
  return DateTime.fromMillis(ms, { zone }).plus({ [LUXON_UNIT[unit]]: count }).toMillis();
}

/** The ms length of `duration` starting at `t0` in the zone: what rate and sampler scale by (`Util.getSamplingDuration`). */
export function durationFromMs(t0: number, duration: Duration, zone: Zone): number {
  return fixedLengthMs(duration, zone) ?? plusUnits(t0, duration.unit, duration.value, zone) - t0;
}

/** The nominal length of one unit, for estimating how many ranges lie between two instants. */
export const NOMINAL_UNIT_MS: Readonly<Record<TimeUnit, number>> = {
  MILLISECONDS: 1,
  SECONDS: 1000,
  MINUTES: 60_000,
  HOURS: 3_600_000,
  DAYS: DAY_MS,
  WEEKS: 7 * DAY_MS,
  MONTHS: 30.436875 * DAY_MS,
  YEARS: 365.2425 * DAY_MS,
};

const LUXON_UNIT: Record<TimeUnit, keyof DurationLikeObject> = {
  MILLISECONDS: 'milliseconds',
  SECONDS: 'seconds',
  MINUTES: 'minutes',
  HOURS: 'hours',
  DAYS: 'days',
  WEEKS: 'weeks',
  MONTHS: 'months',
  YEARS: 'years',
};
