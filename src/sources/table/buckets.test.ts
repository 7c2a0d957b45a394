/**
 * The table layout's buckets over time: the bucket of a timestamp and the buckets of a range for every kind, in UTC
 * and in zones with DST, with their bounds, and the widest bucket a kind and zone can give. A bucket column's values
 * (read back, shown, bound, the column types a kind takes) are in bucket-columns.test.ts.
 */
import cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { berlin, bucket, D, H, T, T_DAY, utc } from '../../../test/support/table-buckets.js';
import { Buckets } from './buckets.js';
import { MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS, type Bucket } from './bucket-layouts.js';

const { LocalDate, Long } = cassandra.types;

describe('of', () => {
  it.each([
    // name, buckets, timestamp, expected bucket
    ['date-text UTC', utc('date-text', 'text'), T, bucket('2023-11-14', T_DAY, T_DAY + D)],
    ['date-text UTC at UTC midnight', utc('date-text', 'text'), T_DAY, bucket('2023-11-14', T_DAY, T_DAY + D)],
    [
      'date-text UTC 1 ms before UTC midnight',
      utc('date-text', 'text'),
      T_DAY - 1,
      bucket('2023-11-13', T_DAY - D, T_DAY),
    ],
    ['date-text UTC before 1970', utc('date-text', 'text'), -1, bucket('1969-12-31', -D, 0)],
    [
      'date-text UTC, first day',
      utc('date-text', 'ascii'),
      MIN_TIMESTAMP_MS,
      bucket('0000-01-01', MIN_TIMESTAMP_MS, MIN_TIMESTAMP_MS + D),
    ],
    [
      'date-text UTC, last day',
      utc('date-text', 'varchar'),
      MAX_TIMESTAMP_MS,
      bucket('9999-12-31', MAX_TIMESTAMP_MS + 1 - D, MAX_TIMESTAMP_MS + 1),
    ],
    ['date-text Berlin', berlin('date-text', 'text'), T, bucket('2023-11-14', T_DAY - H, T_DAY + 23 * H)],
    [
      'date-text Berlin at local midnight',
      berlin('date-text', 'text'),
      T_DAY - H,
      bucket('2023-11-14', T_DAY - H, T_DAY + 23 * H),
    ],
    [
      'date-text Berlin 1 ms before local midnight',
      berlin('date-text', 'text'),
      T_DAY - H - 1,
      bucket('2023-11-13', T_DAY - 25 * H, T_DAY - H),
    ],
    [
      'date-text Berlin at UTC midnight (01:00 local)',
      berlin('date-text', 'text'),
      T_DAY,
      bucket('2023-11-14', T_DAY - H, T_DAY + 23 * H),
    ],
    // 2024-03-31 is 23 h (02:00 CET becomes 03:00 CEST), 2024-10-27 is 25 h (03:00 CEST becomes 02:00 CET).
    [
      'date-text Berlin, spring change',
      berlin('date-text', 'text'),
      1711846800000,
      bucket('2024-03-31', 1711839600000, 1711922400000),
    ],
    [
      'date-text Berlin, day after spring change',
      berlin('date-text', 'text'),
      1711922400000,
      bucket('2024-04-01', 1711922400000, 1712008800000),
    ],
    [
      'date-text Berlin, autumn change',
      berlin('date-text', 'text'),
      1730070000000 - 1,
      bucket('2024-10-27', 1729980000000, 1730070000000),
    ],
    ['date-text Berlin before 1970', berlin('date-text', 'text'), -1, bucket('1970-01-01', -H, 23 * H)],
    ['date UTC', utc('date', 'date'), T, bucket(new LocalDate(2023, 11, 14), T_DAY, T_DAY + D)],
    ['date UTC before 1970', utc('date', 'date'), -D - 1, bucket(new LocalDate(1969, 12, 30), -2 * D, -D)],
    [
      'date Berlin',
      berlin('date', 'date'),
      T_DAY - H - 1,
      bucket(new LocalDate(2023, 11, 13), T_DAY - 25 * H, T_DAY - H),
    ],
    [
      'date Berlin, spring change',
      berlin('date', 'date'),
      1711839600000,
      bucket(new LocalDate(2024, 3, 31), 1711839600000, 1711922400000),
    ],
    [
      'date Berlin, autumn change',
      berlin('date', 'date'),
      1729980000000,
      bucket(new LocalDate(2024, 10, 27), 1729980000000, 1730070000000),
    ],
    // Havana goes back from 01:00 to 00:00 on 2024-11-03, so that day starts at its first midnight.
    [
      'date Havana, midnight twice',
      new Buckets({ kind: 'date', zone: 'America/Havana' }, 'date'),
      1730606400000,
      bucket(new LocalDate(2024, 11, 3), 1730606400000, 1730696400000),
    ],
    // And jumps from 00:00 to 01:00 on 2024-03-10, so that day starts at 01:00.
    [
      'date-text Havana, no midnight',
      new Buckets({ kind: 'date-text', zone: 'America/Havana' }, 'text'),
      1710046800000,
      bucket('2024-03-10', 1710046800000, 1710129600000),
    ],
    ['epoch-day int', utc('epoch-day', 'int'), T, bucket(19675, T_DAY, T_DAY + D)],
    ['epoch-day bigint', utc('epoch-day', 'bigint'), T, bucket(Long.fromNumber(19675), T_DAY, T_DAY + D)],
    ['epoch-day int before 1970', utc('epoch-day', 'int'), -1, bucket(-1, -D, 0)],
    ['epoch-day bigint before 1970', utc('epoch-day', 'bigint'), -D - 1, bucket(Long.fromNumber(-2), -2 * D, -D)],
    ['epoch-day Etc/UTC', new Buckets({ kind: 'epoch-day', zone: 'Etc/UTC' }, 'int'), 0, bucket(0, 0, D)],
    ['epoch-hour int', utc('epoch-hour', 'int'), T, bucket(472222, 1699999200000, 1700002800000)],
    ['epoch-hour bigint before 1970', utc('epoch-hour', 'bigint'), -1, bucket(Long.fromNumber(-1), -H, 0)],
    ['fixed 15 min int', utc('fixed', 'int', 900_000), T, bucket(1888888, 1699999200000, 1700000100000)],
    [
      'fixed 15 min bigint',
      utc('fixed', 'bigint', 900_000),
      T,
      bucket(Long.fromNumber(1888888), 1699999200000, 1700000100000),
    ],
    [
      'fixed 1 h timestamp',
      utc('fixed', 'timestamp', H),
      T,
      bucket(new Date(1699999200000), 1699999200000, 1700002800000),
    ],
    ['fixed 1 h timestamp before 1970', utc('fixed', 'timestamp', H), -1, bucket(new Date(-H), -H, 0)],
    ['fixed 7 ms int before 1970', utc('fixed', 'int', 7), -7, bucket(-1, -7, 0)],
    ['fixed 7 ms int before 1970', utc('fixed', 'int', 7), -8, bucket(-2, -14, -7)],
  ] as const)('%s', (_name, buckets, ts, expected) => {
    expect(buckets.of(ts)).toEqual(expected);
  });

  it.each([
    // name, buckets, timestamp, message
    [
      'not an integer',
      utc('epoch-day', 'int'),
      1.5,
      'timestamp must be an integer of milliseconds from 0000-01-01 to 9999-12-31 UTC: 1.5',
    ],
    [
      'NaN',
      utc('date-text', 'text'),
      NaN,
      'timestamp must be an integer of milliseconds from 0000-01-01 to 9999-12-31 UTC: NaN',
    ],
    [
      'before year 0',
      utc('date', 'date'),
      MIN_TIMESTAMP_MS - 1,
      'timestamp must be an integer of milliseconds from 0000-01-01 to 9999-12-31 UTC: -62167219200001',
    ],
    [
      'year 10000 in Berlin',
      berlin('date-text', 'text'),
      MAX_TIMESTAMP_MS,
      'timestamp 253402300799999 falls on a day outside 0000-01-01 to 9999-12-31 in Europe/Berlin, which a date-text bucket cannot name',
    ],
    [
      'a fixed 1 s bucket number past int in 2038',
      utc('fixed', 'int', 1000),
      2 ** 31 * 1000,
      'timestamp 2147483648000 is in fixed bucket 2147483648, which does not fit an int column (-2147483648 to 2147483647)',
    ],
  ] as const)('refuses %s', (_name, buckets, ts, message) => {
    expect(() => buckets.of(ts)).toThrow(new RangeError(message));
  });
});

describe('between', () => {
  const days = (b: readonly Bucket[]): unknown[] => b.map((x) => [x.value, x.startMs, x.endMs]);

  it.each([
    // name, buckets, start, end, expected [value, startMs, endMs] list
    [
      'date-text UTC over a leap day',
      utc('date-text', 'text'),
      1709078400000 + 12 * H,
      1709251200000,
      [
        ['2024-02-28', 1709078400000, 1709164800000],
        ['2024-02-29', 1709164800000, 1709251200000],
        ['2024-03-01', 1709251200000, 1709337600000],
      ],
    ],
    [
      'date-text Berlin over the autumn change, ends inclusive',
      berlin('date-text', 'text'),
      1729893600000,
      1730070000000,
      [
        ['2024-10-26', 1729893600000, 1729980000000],
        ['2024-10-27', 1729980000000, 1730070000000],
        ['2024-10-28', 1730070000000, 1730156400000],
      ],
    ],
    [
      'date Berlin over the spring change',
      berlin('date', 'date'),
      1711839600000 - 1,
      1711922400000 - 1,
      [
        [new LocalDate(2024, 3, 30), 1711753200000, 1711839600000],
        [new LocalDate(2024, 3, 31), 1711839600000, 1711922400000],
      ],
    ],
    ['one instant', utc('date-text', 'text'), 0, 0, [['1970-01-01', 0, D]]],
    ['start after end', utc('date-text', 'text'), 1, 0, []],
    [
      'epoch-hour across 1970',
      utc('epoch-hour', 'int'),
      -H - 1,
      0,
      [
        [-2, -2 * H, -H],
        [-1, -H, 0],
        [0, 0, H],
      ],
    ],
    [
      'epoch-day bigint',
      utc('epoch-day', 'bigint'),
      -1,
      D,
      [
        [Long.fromNumber(-1), -D, 0],
        [Long.fromNumber(0), 0, D],
        [Long.fromNumber(1), D, 2 * D],
      ],
    ],
    [
      'fixed timestamp',
      utc('fixed', 'timestamp', 5),
      -6,
      4,
      [
        [new Date(-10), -10, -5],
        [new Date(-5), -5, 0],
        [new Date(0), 0, 5],
      ],
    ],
    // Samoa skipped 2011-12-30: the day holds no time, so it has no bucket.
    [
      'date-text Apia over its skipped day',
      new Buckets({ kind: 'date-text', zone: 'Pacific/Apia' }, 'text'),
      1325152800000,
      1325239200000,
      [
        ['2011-12-29', 1325152800000, 1325239200000],
        ['2011-12-31', 1325239200000, 1325325600000],
      ],
    ],
  ] as const)('%s', (_name, buckets, start, end, expected) => {
    expect(days(buckets.between(start, end, 10))).toEqual(expected);
  });

  it('allows exactly max buckets', () => {
    expect(utc('date-text', 'text').between(1704067200000, 1735689599999, 366)).toHaveLength(366);
    expect(berlin('date', 'date').between(1704067200000, 1735689599999, 367)).toHaveLength(367);
  });

  it.each([
    // name, buckets, start, end, max, message
    [
      'a leap year of days',
      utc('date-text', 'text'),
      1704067200000,
      1735689599999,
      365,
      '366 date-text buckets from 2024-01-01 to 2024-12-31 are over the limit of 365',
    ],
    [
      'a year in Berlin (DST does not change the count)',
      berlin('date', 'date'),
      1704067200000 - H,
      1735689599999 - H,
      100,
      '366 date buckets from 2024-01-01 to 2024-12-31 are over the limit of 100',
    ],
    ['epoch hours', utc('epoch-hour', 'bigint'), -H, H, 2, '3 epoch-hour buckets from -1 to 1 are over the limit of 2'],
    ['zero allowed', utc('epoch-day', 'int'), 0, 0, 0, '1 epoch-day buckets from 0 to 0 are over the limit of 0'],
    [
      'every millisecond of ten millennia, without building them',
      utc('fixed', 'timestamp', 1),
      MIN_TIMESTAMP_MS,
      MAX_TIMESTAMP_MS,
      1000,
      '315569520000000 fixed buckets from -62167219200000 to 253402300799999 are over the limit of 1000',
    ],
  ] as const)('refuses %s', (_name, buckets, start, end, max, message) => {
    expect(() => buckets.between(start, end, max)).toThrow(new RangeError(message));
  });

  it('refuses a bad max or timestamp', () => {
    expect(() => utc('date-text', 'text').between(0, 1, -1)).toThrow(
      new RangeError('max must be a non-negative integer: -1'),
    );
    expect(() => utc('date-text', 'text').between(0, 0.5, 1)).toThrow(
      new RangeError('timestamp must be an integer of milliseconds from 0000-01-01 to 9999-12-31 UTC: 0.5'),
    );
  });
});

describe('maxWidthMs', () => {
  it.each([
    // name, buckets, ms
    ['date-text UTC', utc('date-text', 'text'), D],
    ['date-text Etc/UTC', new Buckets({ kind: 'date-text', zone: 'Etc/UTC' }, 'text'), D],
    ['date-text Berlin', berlin('date-text', 'text'), 25 * H],
    ['date Berlin', berlin('date', 'date'), 25 * H],
    // Magadan went back from +12 to +10 on 2014-10-26; Casey from +11 to +8 several times since 2010.
    ['date Magadan', new Buckets({ kind: 'date', zone: 'Asia/Magadan' }, 'date'), 26 * H],
    ['date-text Casey', new Buckets({ kind: 'date-text', zone: 'Antarctica/Casey' }, 'text'), 27 * H],
    ['epoch-day', utc('epoch-day', 'int'), D],
    ['epoch-hour', utc('epoch-hour', 'bigint'), H],
    ['fixed', utc('fixed', 'timestamp', 900_000), 900_000],
  ] as const)('%s', (_name, buckets, ms) => {
    expect(buckets.maxWidthMs).toBe(ms);
  });
});
