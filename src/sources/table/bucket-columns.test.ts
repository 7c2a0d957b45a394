/**
 * A table bucket column's values: read back into the bucket they stand for (fromColumn) for every kind and column type,
 * shown in messages, bound with the driver as the wire expects, and the column types each kind takes. Apart from the
 * buckets' arithmetic over time (buckets.test.ts).
 */
import cassandra from 'cassandra-driver';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { berlin, bucket, D, H, T, T_DAY, utc } from '../../../test/support/table-buckets.js';
import { BUCKET_COLUMN_TYPES, BUCKET_KINDS, Buckets, type BucketSpec } from './buckets.js';
import { MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS } from './bucket-layouts.js';

const { LocalDate, Long, dataTypes } = cassandra.types;

describe('fromColumn', () => {
  /** One Buckets per kind and column type, in UTC and in zones with DST. */
  const SPECS: ReadonlyArray<readonly [string, Buckets]> = [
    ['date-text UTC', utc('date-text', 'text')],
    ['date-text Berlin', berlin('date-text', 'text')],
    ['date-text Havana', new Buckets({ kind: 'date-text', zone: 'America/Havana' }, 'text')],
    ['date UTC', utc('date', 'date')],
    ['date Berlin', berlin('date', 'date')],
    ['date Lord Howe', new Buckets({ kind: 'date', zone: 'Australia/Lord_Howe' }, 'date')],
    ['epoch-day int', utc('epoch-day', 'int')],
    ['epoch-day bigint', utc('epoch-day', 'bigint')],
    ['epoch-hour int', utc('epoch-hour', 'int')],
    ['epoch-hour bigint', utc('epoch-hour', 'bigint')],
    ['fixed 15 min int', utc('fixed', 'int', 900_000)],
    ['fixed 7 ms bigint', utc('fixed', 'bigint', 7)],
    ['fixed 1 h timestamp', utc('fixed', 'timestamp', H)],
  ];
  /** Timestamps a day inside the accepted range, so a zone cannot move them into year -1 or 10000; DST changes often. */
  const timestamp = fc.oneof(
    fc.integer({ min: MIN_TIMESTAMP_MS + 2 * D, max: MAX_TIMESTAMP_MS - 2 * D }),
    fc.integer({ min: -3 * D, max: 3 * D }),
    fc
      .constantFrom(1711839600000, 1711846800000, 1729980000000, 1730070000000, 1730606400000, 1710046800000)
      .chain((t) => fc.integer({ min: t - 2 * H, max: t + 2 * H })),
  );

  it.each(SPECS)('%s: fromColumn(of(t).value) is of(t), which holds t and is what between(t, t) gives', (_name, b) => {
    fc.assert(
      fc.property(timestamp, (t) => {
        const of = b.of(t);
        expect(of.startMs).toBeLessThanOrEqual(t);
        expect(of.endMs).toBeGreaterThan(t);
        expect(b.fromColumn(of.value)).toEqual(of);
        expect(b.between(t, t, 1)).toEqual([of]);
      }),
      { numRuns: 300 },
    );
  });

  it.each(SPECS)('%s: consecutive buckets tile time', (_name, b) => {
    fc.assert(
      fc.property(timestamp, fc.integer({ min: 0, max: 5 * b.maxWidthMs }), (t, span) => {
        const list = b.between(t, Math.min(t + span, MAX_TIMESTAMP_MS - 2 * D), 10_000);
        for (let i = 1; i < list.length; i++) expect(list[i]!.startMs).toBe(list[i - 1]!.endMs);
      }),
      { numRuns: 50 },
    );
  });

  it.each([
    // name, buckets, column value, error
    ['month 13', utc('date-text', 'text'), '2024-13-01', 'bucket value "2024-13-01" is not a YYYY-MM-DD date'],
    ['no zero padding', utc('date-text', 'text'), '2024-1-1', 'bucket value "2024-1-1" is not a YYYY-MM-DD date'],
    ['February 30', utc('date-text', 'text'), '2024-02-30', 'bucket value "2024-02-30" is not a YYYY-MM-DD date'],
    [
      'February 29 of a common year',
      utc('date-text', 'text'),
      '2023-02-29',
      'bucket value "2023-02-29" is not a YYYY-MM-DD date',
    ],
    ['a leading space', utc('date-text', 'text'), ' 2024-01-01', 'bucket value " 2024-01-01" is not a YYYY-MM-DD date'],
    ['a time', utc('date-text', 'text'), '2024-01-01T00', 'bucket value "2024-01-01T00" is not a YYYY-MM-DD date'],
    ['empty', utc('date-text', 'text'), '', 'bucket value "" is not a YYYY-MM-DD date'],
    ['a number', utc('date-text', 'text'), 19675, 'bucket value 19675 is not a YYYY-MM-DD date'],
    ['null', utc('date-text', 'text'), null, 'bucket value null is not a YYYY-MM-DD date'],
    [
      'a skipped day',
      new Buckets({ kind: 'date-text', zone: 'Pacific/Apia' }, 'text'),
      '2011-12-30',
      'bucket value "2011-12-30" is a day that Pacific/Apia skipped',
    ],
    [
      'a string for date',
      utc('date', 'date'),
      '2024-01-01',
      'bucket value "2024-01-01" is not a CQL date (a LocalDate)',
    ],
    [
      'a date past 9999',
      utc('date', 'date'),
      new LocalDate(10000, 1, 1),
      'bucket value LocalDate 10000-01-01 is not a date from 0000-01-01 to 9999-12-31',
    ],
    [
      'a date past Date',
      utc('date', 'date'),
      new (LocalDate as unknown as new (days: number) => cassandra.types.LocalDate)(2 ** 31 - 1),
      'bucket value LocalDate 2147483647 is not a date from 0000-01-01 to 9999-12-31',
    ],
    ['a fraction', utc('epoch-day', 'int'), 1.5, 'bucket value 1.5 is not an integer epoch day number'],
    ['a numeric string', utc('epoch-day', 'int'), '5', 'bucket value "5" is not an integer epoch day number'],
    ['NaN', utc('epoch-hour', 'int'), NaN, 'bucket value NaN is not an integer epoch hour number'],
    ['past int', utc('epoch-hour', 'int'), 2 ** 31, 'bucket value 2147483648 does not fit an int column'],
    [
      'past 9999',
      utc('epoch-day', 'bigint'),
      Long.fromNumber(2932897),
      'bucket value Long 2932897 is an epoch day outside 0000-01-01 to 9999-12-31',
    ],
    [
      'past 2^53',
      utc('epoch-hour', 'bigint'),
      Long.fromString('9007199254740993'),
      'bucket value Long 9007199254740993 is not an integer epoch hour number',
    ],
    [
      'an object',
      utc('fixed', 'bigint', 7),
      { low: 1, high: 0 },
      'bucket value of type Object is not an integer fixed bucket of 7 ms number',
    ],
    [
      'unaligned',
      utc('fixed', 'timestamp', H),
      new Date(5),
      'bucket value 1970-01-01T00:00:00.005Z is not the start of a fixed bucket of 3600000 ms (not a multiple of 3600000)',
    ],
    [
      'unaligned before 1970',
      utc('fixed', 'timestamp', H),
      new Date(-5),
      'bucket value 1969-12-31T23:59:59.995Z is not the start of a fixed bucket of 3600000 ms (not a multiple of 3600000)',
    ],
    [
      'an invalid Date',
      utc('fixed', 'timestamp', H),
      new Date(NaN),
      'bucket value Invalid Date is not the start of a fixed bucket of 3600000 ms (a Date)',
    ],
    [
      'a number for timestamp',
      utc('fixed', 'timestamp', H),
      0,
      'bucket value 0 is not the start of a fixed bucket of 3600000 ms (a Date)',
    ],
  ] as const)('refuses %s', (_name, buckets, value, error) => {
    expect(buckets.fromColumn(value)).toEqual({ error });
  });

  it('reads a bigint column decoded as BigInt (encoding.useBigIntAsLong) and an int read into a Long', () => {
    expect(utc('epoch-day', 'bigint').fromColumn(19675n)).toEqual(bucket(Long.fromNumber(19675), T_DAY, T_DAY + D));
    expect(utc('epoch-day', 'int').fromColumn(Long.fromNumber(19675))).toEqual(bucket(19675, T_DAY, T_DAY + D));
  });
});

describe('show', () => {
  it.each([
    // name, buckets, value, text
    ['date-text', utc('date-text', 'text'), '2024-01-01', '2024-01-01'],
    ['date', utc('date', 'date'), new LocalDate(2024, 1, 1), '2024-01-01'],
    ['int', utc('epoch-day', 'int'), -1, '-1'],
    ['bigint', utc('epoch-day', 'bigint'), Long.fromNumber(19675), '19675'],
    ['timestamp, as epoch ms like a timestamp tag', utc('fixed', 'timestamp', H), new Date(-H), '-3600000'],
  ] as const)('%s', (_name, buckets, value, text) => {
    expect(buckets.show(value)).toBe(text);
  });
});

describe('constructor', () => {
  it.each([
    // spec, column type, message
    [
      { kind: 'daily', zone: 'UTC' },
      'text',
      'unknown bucket kind "daily" (expected one of date-text, date, epoch-day, epoch-hour, fixed)',
    ],
    [
      { kind: 'date-text', zone: 'Mars/Olympus' },
      'text',
      'unknown time zone "Mars/Olympus" for a date-text bucket (expected an IANA name such as "Europe/Berlin")',
    ],
    [
      { kind: 'date', zone: '+01:00' },
      'date',
      'unknown time zone "+01:00" for a date bucket (expected an IANA name such as "Europe/Berlin")',
    ],
    [
      { kind: 'epoch-day', zone: 'Europe/Berlin' },
      'int',
      'an epoch-day bucket is UTC by definition, so its zone must be UTC, not "Europe/Berlin"',
    ],
    [
      { kind: 'epoch-hour', zone: 'America/New_York' },
      'bigint',
      'an epoch-hour bucket is UTC by definition, so its zone must be UTC, not "America/New_York"',
    ],
    [
      { kind: 'fixed', zone: 'Europe/Berlin', widthMs: H },
      'int',
      'a fixed bucket is aligned to the epoch, not to a calendar, so its zone must be UTC, not "Europe/Berlin"',
    ],
    [
      { kind: 'fixed', zone: 'UTC' },
      'int',
      'a fixed bucket needs widthMs, a positive safe integer of milliseconds: undefined',
    ],
    [
      { kind: 'fixed', zone: 'UTC', widthMs: 0 },
      'int',
      'a fixed bucket needs widthMs, a positive safe integer of milliseconds: 0',
    ],
    [
      { kind: 'fixed', zone: 'UTC', widthMs: -H },
      'int',
      'a fixed bucket needs widthMs, a positive safe integer of milliseconds: -3600000',
    ],
    [
      { kind: 'fixed', zone: 'UTC', widthMs: 1.5 },
      'int',
      'a fixed bucket needs widthMs, a positive safe integer of milliseconds: 1.5',
    ],
    [
      { kind: 'fixed', zone: 'UTC', widthMs: 2 ** 53 },
      'int',
      'a fixed bucket needs widthMs, a positive safe integer of milliseconds: 9007199254740992',
    ],
    [
      { kind: 'epoch-day', zone: 'UTC', widthMs: D },
      'int',
      'widthMs is for fixed buckets only, not epoch-day: 86400000',
    ],
    [
      { kind: 'date-text', zone: 'UTC' },
      'date',
      'a date-text bucket column must be of CQL type text, varchar or ascii, not "date"',
    ],
    [{ kind: 'date', zone: 'UTC' }, 'text', 'a date bucket column must be of CQL type date, not "text"'],
    [
      { kind: 'epoch-day', zone: 'UTC' },
      'timestamp',
      'an epoch-day bucket column must be of CQL type int or bigint, not "timestamp"',
    ],
    [
      { kind: 'fixed', zone: 'UTC', widthMs: H },
      'varint',
      'a fixed bucket column must be of CQL type int, bigint or timestamp, not "varint"',
    ],
  ])('%j %s', (spec, columnType, message) => {
    expect(() => new Buckets(spec as BucketSpec, columnType)).toThrow(new Error(message));
  });

  it('has a column type list for every kind', () => {
    expect(Object.keys(BUCKET_COLUMN_TYPES)).toEqual([...BUCKET_KINDS]);
  });
});

describe('bucket values bind with the driver', () => {
  // The encoder a prepared statement uses (protocol v4, default encoding options, as clientOptions builds them).
  // Exported by the driver's index.js, though its typings leave it out.
  const { Encoder } = cassandra as unknown as {
    Encoder: new (version: number, options: object) => { encode(value: unknown, type: number): Buffer };
  };
  const encoder = new Encoder(4, {});
  it.each([
    // name, buckets, timestamp, CQL type, wire bytes
    ['date-text', utc('date-text', 'text'), T, dataTypes.text, Buffer.from('2023-11-14').toString('hex')],
    // The date wire form is the day number plus 2^31: 19675 + 2^31 = 0x80004cdb.
    ['date Berlin', berlin('date', 'date'), T, dataTypes.date, '80004cdb'],
    ['date before 1970', utc('date', 'date'), -1, dataTypes.date, '7fffffff'],
    ['epoch-day int', utc('epoch-day', 'int'), -1, dataTypes.int, 'ffffffff'],
    ['epoch-day bigint', utc('epoch-day', 'bigint'), T, dataTypes.bigint, '0000000000004cdb'],
    ['epoch-hour bigint', utc('epoch-hour', 'bigint'), -1, dataTypes.bigint, 'ffffffffffffffff'],
    [
      'fixed timestamp',
      utc('fixed', 'timestamp', H),
      T,
      dataTypes.timestamp,
      (1699999200000).toString(16).padStart(16, '0'),
    ],
  ] as const)('%s', (_name, buckets, ts, type, hexBytes) => {
    expect(encoder.encode(buckets.of(ts).value, type).toString('hex')).toBe(hexBytes);
  });
});
