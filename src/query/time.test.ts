/**
 * Times as clients send them: epoch ms, ISO-8601 text, and relative times counted on a UTC calendar from the
 * request's one "now", the same arithmetic as KairosDB's start_relative.
 */
import { describe, expect, it } from 'vitest';
import { parseTime, TimeParseError } from './time.js';

/** 2024-03-31T12:00:00Z: a month back is February's last day, in a leap year. */
const NOW = Date.UTC(2024, 2, 31, 12);

describe('parseTime', () => {
  it.each([
    ['now', NOW],
    ['now-6h', NOW - 6 * 3_600_000],
    ['now - 30m', NOW - 30 * 60_000],
    ['now+1500ms', NOW + 1500],
    ['now-7d', Date.UTC(2024, 2, 24, 12)],
    ['now-2w', Date.UTC(2024, 2, 17, 12)],
    ['now-1M', Date.UTC(2024, 1, 29, 12)],
    ['now-1y', Date.UTC(2023, 2, 31, 12)],
    ['now-0s', NOW],
  ])('reads %s from the request clock on a UTC calendar', (text, expected) => {
    expect(parseTime(text, NOW)).toBe(expected);
  });

  it('reads epoch ms as numbers and numeric strings, and ISO-8601 text with or without an offset', () => {
    expect([parseTime(1714557600000, NOW), parseTime(' 1714557600000 ', NOW), parseTime(10n, NOW)]).toEqual([1714557600000, 1714557600000, 10]);
    expect([parseTime('2024-05-01T10:00:00', NOW), parseTime('2024-05-01T12:00:00+02:00', NOW)]).toEqual([1714557600000, 1714557600000]);
  });

  it.each([
    [1.5, 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    [9e15, 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    ['-8640000000000001', 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    ['99999999999999999999', 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    // luxon's arithmetic gives NaN past its range; a time that far away is out of range, not malformed.
    ['now-99999999y', 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    ['now+300000y', 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    ['now-99999999999999999999ms', 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    ['now-6x', 'is not epoch milliseconds, ISO-8601 text or a relative time such as now-6h'],
    [true, 'must be epoch milliseconds, ISO-8601 text or a relative time such as now-6h'],
  ])('refuses %j: it %s', (value, reason) => {
    expect(() => parseTime(value, NOW)).toThrow(new TimeParseError(reason));
  });
});
