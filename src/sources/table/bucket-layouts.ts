/**
 * How a bucket column's values stand for time: calendar days of a zone (a date, or its ISO text), or fixed widths
 * from the epoch (a day, an hour, a given width) numbered as the column's integer or timestamp type; each layout maps
 * a time to its bucket's index, an index to the column's value and back, and checks what the column can hold.
 */
import cassandra from 'cassandra-driver';
import type { IANAZone } from 'luxon';

const { LocalDate, Long } = cassandra.types;

export interface Bucket {
  /**
   * What the driver binds for the column: a string (text), a LocalDate (date), a number (int), a Long (bigint), a
   * Date (timestamp, the bucket start).
   */
  readonly value: unknown;
  readonly startMs: number;
  /** Exclusive. */
  readonly endMs: number;
}

/** Timestamps this module accepts: 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z. */
export const MIN_TIMESTAMP_MS = -62167219200000;

export const MAX_TIMESTAMP_MS = 253402300799999;

export const DAY_MS = 86_400_000;

export const HOUR_MS = 3_600_000;

const INT32_MIN = -(2 ** 31);

const INT32_MAX = 2 ** 31 - 1;

/** Day numbers (days since 1970-01-01) of 0000-01-01 and 9999-12-31, the dates YYYY-MM-DD can spell. */
const MIN_DAY = Math.floor(MIN_TIMESTAMP_MS / DAY_MS);

const MAX_DAY = Math.floor(MAX_TIMESTAMP_MS / DAY_MS);

/** No zone's offset is beyond these (tzdata: -12:00 to +14:00), so a date's midnights lie within 15 h of its UTC midnight. */
const OFFSET_REACH_MS = 15 * HOUR_MS;

const YYYY_MM_DD = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * What differs between kinds: a bucket is an integer index (a local day number, or a bucket number) that maps to a
 * time span and a column value. Indexes grow with time.
 */
export interface Layout {
  indexOf(timestampMs: number): number;
  /** Throws a RangeError if the bucket at index, holding timestampMs, cannot be a column value. */
  checkIndex(index: number, timestampMs: number): void;
  bucket(index: number): Bucket;
  value(index: number): unknown;
  indexOfValue(value: unknown): number | { readonly problem: string };
}

/** Calendar days in a zone, indexed by the day number of their date (days from 1970-01-01 to it, as if in UTC). */
export class CalendarLayout implements Layout {
  constructor(
    readonly kind: 'date-text' | 'date',
    readonly zone: IANAZone,
    readonly zoneName: string,
  ) {}

  indexOf(timestampMs: number): number {
    return localDay(this.zone, timestampMs);
  }

  checkIndex(index: number, timestampMs: number): void {
    if (index < MIN_DAY || index > MAX_DAY) {
      throw new RangeError(
        `timestamp ${timestampMs} falls on a day outside 0000-01-01 to 9999-12-31 in ${this.zoneName}, which a ${this.kind} bucket cannot name`,
      );
    }
  }

  bucket(index: number): Bucket {
    return { value: this.value(index), startMs: startOfDay(this.zone, index), endMs: startOfDay(this.zone, index + 1) };
  }

  value(index: number): unknown {
    const ymd = isoDate(index);
    if (this.kind === 'date-text') return ymd;
    // LocalDate.fromDate reads the process's local zone; the (y, m, d) constructor is zone-free.
    return new LocalDate(Number(ymd.slice(0, 4)), Number(ymd.slice(5, 7)), Number(ymd.slice(8, 10)));
  }

  indexOfValue(value: unknown): number | { readonly problem: string } {
    let day: number;
    if (this.kind === 'date-text') {
      const parsed = typeof value === 'string' ? parseIsoDate(value) : undefined;
      if (parsed === undefined) return { problem: 'is not a YYYY-MM-DD date' };
      day = parsed;
    } else {
      if (!(value instanceof LocalDate)) return { problem: 'is not a CQL date (a LocalDate)' };
      // The wire form is the day number plus 2^31; it holds for LocalDates beyond JavaScript's Date range too.
      day = value.toBuffer().readUInt32BE(0) - 2 ** 31;
      if (day < MIN_DAY || day > MAX_DAY) return { problem: 'is not a date from 0000-01-01 to 9999-12-31' };
    }
    if (startOfDay(this.zone, day + 1) <= startOfDay(this.zone, day))
      return { problem: `is a day that ${this.zoneName} skipped` };
    return day;
  }
}

/** Buckets of one width aligned to the epoch, indexed by bucket number (floor(ts / width)). */
export class WidthLayout implements Layout {
  constructor(
    readonly kind: 'epoch-day' | 'epoch-hour' | 'fixed',
    readonly widthMs: number,
    readonly columnType: 'int' | 'bigint' | 'timestamp',
  ) {}

  indexOf(timestampMs: number): number {
    return Math.floor(timestampMs / this.widthMs);
  }

  checkIndex(index: number, timestampMs: number): void {
    if (this.columnType === 'int' && (index < INT32_MIN || index > INT32_MAX)) {
      throw new RangeError(
        `timestamp ${timestampMs} is in ${this.kind} bucket ${index}, which does not fit an int column (-2147483648 to 2147483647)`,
      );
    }
  }

  bucket(index: number): Bucket {
    const startMs = index * this.widthMs;
    return { value: this.value(index), startMs, endMs: startMs + this.widthMs };
  }

  value(index: number): unknown {
    if (this.columnType === 'int') return index;
    if (this.columnType === 'bigint') return Long.fromNumber(index);
    return new Date(index * this.widthMs);
  }

  indexOfValue(value: unknown): number | { readonly problem: string } {
    const what =
      this.kind === 'fixed'
        ? `fixed bucket of ${this.widthMs} ms`
        : this.kind === 'epoch-day'
          ? 'epoch day'
          : 'epoch hour';
    let index: number;
    if (this.columnType === 'timestamp') {
      if (!(value instanceof Date) || Number.isNaN(value.getTime()))
        return { problem: `is not the start of a ${what} (a Date)` };
      const ms = value.getTime();
      if (ms < MIN_TIMESTAMP_MS || ms > MAX_TIMESTAMP_MS) return { problem: 'is outside 0000-01-01 to 9999-12-31' };
      // Math.floor, not %: a negative start is aligned when its remainder is -0.
      if (ms - Math.floor(ms / this.widthMs) * this.widthMs !== 0)
        return { problem: `is not the start of a ${what} (not a multiple of ${this.widthMs})` };
      index = ms / this.widthMs;
    } else {
      const n = integerOf(value);
      if (n === undefined) return { problem: `is not an integer ${what} number` };
      if (this.columnType === 'int' && (n < INT32_MIN || n > INT32_MAX))
        return { problem: 'does not fit an int column' };
      index = n;
    }
    // Only buckets holding some accepted timestamp, so that every bucket's ends are safe integers.
    if (index < this.indexOf(MIN_TIMESTAMP_MS) || index > this.indexOf(MAX_TIMESTAMP_MS)) {
      return { problem: `is ${article(what)} ${what} outside 0000-01-01 to 9999-12-31` };
    }
    return index;
  }
}

/** The day number of ts's local date in zone. */
function localDay(zone: IANAZone, timestampMs: number): number {
  return Math.floor((timestampMs + zone.offset(timestampMs) * 60_000) / DAY_MS);
}

/**
 * The first instant of the local date `day`. Not luxon's startOf('day'): where midnight happens twice (America/Havana
 * 2024-11-03 goes back from 01:00 to 00:00) luxon picks the second, leaving the first hour of the day before its start.
 * Where midnight is skipped (Havana 2024-03-10 jumps to 01:00) the day starts at the jump.
 */
function startOfDay(zone: IANAZone, day: number): number {
  const midnightUtc = day * DAY_MS;
  const guess = midnightUtc - zone.offset(midnightUtc) * 60_000;
  if (localDay(zone, guess) === day && localDay(zone, guess - 1) < day) return guess;
  // Around a transition: the earliest instant on `day` or later, by bisection. This assumes local dates only grow with
  // time; a zone whose clocks went back across midnight would make a day two spans, which buckets cannot describe.
  let lo = midnightUtc - OFFSET_REACH_MS;
  let hi = midnightUtc + OFFSET_REACH_MS;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localDay(zone, mid) >= day) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Memoised per zone: scanning a zone's history takes tens of milliseconds. */
const longestDays = new Map<string, number>();

/** 1900-01-01 and 2100-01-01: before 1900, zones' moves off local mean time make days of up to 48 h (Alaska, 1867). */
const SCAN_FROM_MS = -2208988800000;

const SCAN_TO_MS = 4102444800000;

const SCAN_STEP_MS = 7 * DAY_MS;

/**
 * The longest day of a zone from 1900 to 2100: 25 h where DST moves by an hour, more where a zone changed its offset
 * (Asia/Magadan went back 2 h in 2014). Offsets are sampled weekly; each week whose offset changed is measured day by
 * day. Two changes that cancel out within one week would be missed (not checked against all of tzdata).
 */
export function longestDayMs(layout: CalendarLayout): number {
  const known = longestDays.get(layout.zone.name);
  if (known !== undefined) return known;
  const zone = layout.zone;
  let longest = DAY_MS;
  let before = zone.offset(SCAN_FROM_MS);
  for (let t = SCAN_FROM_MS; t < SCAN_TO_MS; t += SCAN_STEP_MS) {
    const after = zone.offset(t + SCAN_STEP_MS);
    if (after !== before) {
      const last = localDay(zone, t + SCAN_STEP_MS) + 1;
      for (let day = localDay(zone, t) - 1; day <= last; day++) {
        longest = Math.max(longest, startOfDay(zone, day + 1) - startOfDay(zone, day));
      }
    }
    before = after;
  }
  longestDays.set(layout.zone.name, longest);
  return longest;
}

/** YYYY-MM-DD of a day number from 0000-01-01 to 9999-12-31 (toISOString writes six-digit years outside it). */
function isoDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The day number of a strict, zero-padded YYYY-MM-DD that names a real date, or undefined. */
function parseIsoDate(text: string): number | undefined {
  const m = YYYY_MM_DD.exec(text);
  if (m === null) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC, which reads years 0 to 99 as 1900 to 1999; it rolls 2024-02-30 over, so compare back.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.getTime() / DAY_MS;
}

/** A safe integer from a number, a driver Long or a bigint, or undefined. */
function integerOf(value: unknown): number | undefined {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (value instanceof Long) n = value.toNumber();
  else if (typeof value === 'bigint') n = Number(value);
  // Long.toNumber and Number(bigint) round beyond 2^53; such a value is past any bucket anyway.
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

/** "a" or "an", for the messages that name a column's kind or type. */
export function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}
