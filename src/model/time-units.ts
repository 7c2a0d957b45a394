/**
 * KairosDB's time units (`TimeUnit.java`), time zones, and the calendar arithmetic the engine needs: anchors for
 * align_sampling (luxon), unit arithmetic in a zone, and the length of a sampling that starts at a given instant
 * (`Util.getSamplingDuration`).
 */
import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';

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
  return clockOf(zone).plus(ms, unit, count);
}

const HOUR_MS = 3_600_000;
const clocks = new WeakMap<Zone, ZoneClock>();

/** One clock per zone, shared by every query: its cache holds facts about the zone, never about data. */
function clockOf(zone: Zone): ZoneClock {
  let clock = clocks.get(zone);
  if (clock === undefined) clocks.set(zone, (clock = new ZoneClock(zone)));
  return clock;
}

/**
 * Calendar arithmetic on the wall clock of one zone, as luxon's DateTime.plus does it (a test holds them equal),
 * but with the zone's offsets cached per hour: luxon asks Intl for every offset, which is too slow for rate's
 * per-point unit length and for ranges found series after series.
 */
class ZoneClock {
  /** Offset in ms of each hour the zone keeps one offset through; NaN for an hour with a transition. */
  private readonly hours = new Map<number, number>();

  constructor(private readonly zone: Zone) {}

  offsetMs(ms: number): number {
    const hour = Math.floor(ms / HOUR_MS);
    let offset = this.hours.get(hour);
    if (offset === undefined) {
      const first = this.zone.offset(hour * HOUR_MS);
      offset = first === this.zone.offset(hour * HOUR_MS + HOUR_MS - 1) ? first * 60_000 : Number.NaN;
      if (this.hours.size >= 100_000) this.hours.clear();
      this.hours.set(hour, offset);
    }
    return Number.isNaN(offset) ? this.zone.offset(ms) * 60_000 : offset;
  }

  /** Days and weeks move the date; months and years move the month and keep the day where the month has it. */
  plus(ms: number, unit: TimeUnit, count: number): number {
    const offset = this.offsetMs(ms);
    const wall = new Date(ms + offset);
    let year = wall.getUTCFullYear();
    let month = wall.getUTCMonth();
    let day = wall.getUTCDate();
    if (unit === 'YEARS' || unit === 'MONTHS') {
      month += unit === 'YEARS' ? count * 12 : count;
      const carry = Math.floor(month / 12);
      year += carry;
      month -= carry * 12;
      day = Math.min(day, daysInMonth(year, month));
    } else {
      day += unit === 'WEEKS' ? count * 7 : count;
    }
    const target = new Date(0);
    // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
    target.setUTCFullYear(year, month, day);
    target.setUTCHours(wall.getUTCHours(), wall.getUTCMinutes(), wall.getUTCSeconds(), wall.getUTCMilliseconds());
    return this.instantOf(target.getTime(), offset);
  }

  /**
   * The instant a wall-clock time names. Where the wall time occurs twice (clocks going back) the offset it had
   * before the arithmetic wins; where it does not occur (clocks going forward) it moves forward by the gap.
   */
  private instantOf(wall: number, preferred: number): number {
    const guess = wall - preferred;
    const second = this.offsetMs(guess);
    if (second === preferred) return guess;
    const retry = guess - (second - preferred);
    const third = this.offsetMs(retry);
    if (third === second) return retry;
    return wall - Math.min(second, third);
  }
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in a month (0-11) of the proleptic Gregorian calendar. */
function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 1 && leap ? 29 : MONTH_DAYS[month]!;
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
