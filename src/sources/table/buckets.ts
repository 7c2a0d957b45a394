// Time buckets of a user's `table` source (docs/table-layout.md): the partition-key column that cuts an
// entity's rows by time (a day as text or CQL date, an epoch day or hour, a fixed width), moving between timestamps,
// the value the driver binds or returns, and the bucket's time span. Pure: luxon for zones, driver types as values.
import cassandra from 'cassandra-driver';
import { IANAZone } from 'luxon';
import {
  MIN_TIMESTAMP_MS,
  MAX_TIMESTAMP_MS,
  DAY_MS,
  HOUR_MS,
  CalendarLayout,
  WidthLayout,
  longestDayMs,
  article,
  type Bucket,
  type Layout,
} from './bucket-layouts.js';

export const BUCKET_KINDS = ['date-text', 'date', 'epoch-day', 'epoch-hour', 'fixed'] as const;
export type BucketKind = (typeof BUCKET_KINDS)[number];

export interface BucketSpec {
  readonly kind: BucketKind;
  /** IANA zone of the calendar kinds' days; default 'UTC'. The epoch and fixed kinds are UTC by definition. */
  readonly zone: string;
  /** Kind 'fixed' only: the bucket width, a positive safe integer of milliseconds. */
  readonly widthMs?: number;
}

/**
 * The CQL types a bucket column of each kind may have, as system_schema.columns spells them (it says `text` for a
 * column declared varchar; `varchar` is kept for hand-written configs). ascii holds YYYY-MM-DD as well as text does.
 */
export const BUCKET_COLUMN_TYPES: Readonly<Record<BucketKind, readonly string[]>> = {
  'date-text': ['text', 'varchar', 'ascii'],
  date: ['date'],
  'epoch-day': ['int', 'bigint'],
  'epoch-hour': ['int', 'bigint'],
  fixed: ['int', 'bigint', 'timestamp'],
};

export class Buckets {
  /** The longest bucket in ms (a zoned day can be 23, 24, 25 h or, in a few zones' history, more; 'fixed' its width). */
  readonly maxWidthMs: number;
  readonly #spec: BucketSpec;
  readonly #layout: Layout;

  constructor(spec: BucketSpec, columnType: string) {
    const kind = spec.kind;
    if (!(BUCKET_KINDS as readonly string[]).includes(kind)) {
      throw new Error(`unknown bucket kind ${JSON.stringify(kind)} (expected one of ${BUCKET_KINDS.join(', ')})`);
    }
    const zone = spec.zone ?? 'UTC';
    if (typeof zone !== 'string' || !IANAZone.isValidZone(zone)) {
      throw new Error(
        `unknown time zone ${JSON.stringify(zone)} for a ${kind} bucket (expected an IANA name such as "Europe/Berlin")`,
      );
    }
    const columnTypes = BUCKET_COLUMN_TYPES[kind];
    if (!columnTypes.includes(columnType)) {
      throw new Error(
        `${article(kind)} ${kind} bucket column must be of CQL type ${orList(columnTypes)}, not ${JSON.stringify(columnType)}`,
      );
    }
    if (kind !== 'fixed' && spec.widthMs !== undefined) {
      throw new Error(`widthMs is for fixed buckets only, not ${kind}: ${spec.widthMs}`);
    }
    if (kind === 'fixed' && (spec.widthMs === undefined || !Number.isSafeInteger(spec.widthMs) || spec.widthMs <= 0)) {
      throw new Error(`a fixed bucket needs widthMs, a positive safe integer of milliseconds: ${spec.widthMs}`);
    }
    const utc = canonicalZone(zone) === 'UTC';
    if (!utc && kind !== 'date-text' && kind !== 'date') {
      const why = kind === 'fixed' ? 'aligned to the epoch, not to a calendar' : 'UTC by definition';
      throw new Error(
        `${article(kind)} ${kind} bucket is ${why}, so its zone must be UTC, not ${JSON.stringify(zone)}`,
      );
    }
    this.#spec = { kind, zone, ...(spec.widthMs !== undefined ? { widthMs: spec.widthMs } : {}) };
    if (kind === 'date-text' || kind === 'date') {
      const calendar = new CalendarLayout(kind, IANAZone.create(zone), zone);
      this.#layout = calendar;
      this.maxWidthMs = utc ? DAY_MS : longestDayMs(calendar);
    } else {
      const widthMs = kind === 'epoch-day' ? DAY_MS : kind === 'epoch-hour' ? HOUR_MS : spec.widthMs!;
      this.#layout = new WidthLayout(kind, widthMs, columnType as 'int' | 'bigint' | 'timestamp');
      this.maxWidthMs = widthMs;
    }
  }

  /** The bucket holding ts. Throws a RangeError for a timestamp outside years 0000 to 9999, or a bucket the column cannot hold. */
  of(timestampMs: number): Bucket {
    checkTimestamp(timestampMs);
    const index = this.#layout.indexOf(timestampMs);
    this.#layout.checkIndex(index, timestampMs);
    return this.#layout.bucket(index);
  }

  /**
   * Every bucket overlapping [startMs, endMs] (both inclusive), in time order; none when startMs > endMs. Throws a
   * RangeError naming the count if it is over `max`, before building any.
   */
  between(startMs: number, endMs: number, max: number): Bucket[] {
    checkTimestamp(startMs);
    checkTimestamp(endMs);
    if (!Number.isSafeInteger(max) || max < 0) throw new RangeError(`max must be a non-negative integer: ${max}`);
    if (startMs > endMs) return [];
    const first = this.#layout.indexOf(startMs);
    const last = this.#layout.indexOf(endMs);
    const count = last - first + 1;
    if (count > max) {
      const from = this.show(this.#layout.value(first));
      const to = this.show(this.#layout.value(last));
      throw new RangeError(`${count} ${this.#spec.kind} buckets from ${from} to ${to} are over the limit of ${max}`);
    }
    // Indexes are monotonic in time, so the ends bound every index between.
    this.#layout.checkIndex(first, startMs);
    this.#layout.checkIndex(last, endMs);
    const buckets: Bucket[] = [];
    for (let i = first; i <= last; i++) {
      const bucket = this.#layout.bucket(i);
      // A calendar day a zone skipped (Pacific/Apia's 2011-12-30) holds no time and no rows.
      if (bucket.endMs > bucket.startMs) buckets.push(bucket);
    }
    return buckets;
  }

  /**
   * The bucket whose column value is `value` as the driver returns it from a SELECT (string, LocalDate, number, Long,
   * Date; a bigint too, for clients decoding bigint as BigInt), or an error when it is not a bucket of this spec.
   */
  fromColumn(value: unknown): Bucket | { readonly error: string } {
    const index = this.#layout.indexOfValue(value);
    if (typeof index !== 'number') return { error: `bucket value ${describe(value)} ${index.problem}` };
    return this.#layout.bucket(index);
  }

  /** The value as text, for messages and tags: the date, the decimal number, a timestamp's epoch ms. */
  show(value: unknown): string {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'bigint') return String(value);
    if (value instanceof Date) return String(value.getTime());
    if (value instanceof LocalDate || value instanceof Long) return value.toString();
    return describe(value);
  }
}

const { LocalDate, Long } = cassandra.types;

function checkTimestamp(timestampMs: number): void {
  if (!Number.isInteger(timestampMs) || timestampMs < MIN_TIMESTAMP_MS || timestampMs > MAX_TIMESTAMP_MS) {
    throw new RangeError(
      `timestamp must be an integer of milliseconds from 0000-01-01 to 9999-12-31 UTC: ${timestampMs}`,
    );
  }
}

/** The zone's canonical IANA name: Etc/UTC, GMT and utc are all UTC. */
function canonicalZone(zone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
}

/** A bucket value for an error message: strings quoted, so "" and " 1" show. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (value instanceof LocalDate) return `LocalDate ${value.toString()}`;
  if (value instanceof Long) return `Long ${value.toString()}`;
  if (value === null || value === undefined) return String(value);
  return `of type ${typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value}`;
}

function orList(items: readonly string[]): string {
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
