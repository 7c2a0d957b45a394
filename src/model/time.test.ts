/**
 * Times as clients send them: epoch ms, ISO-8601 text, and relative times counted on a UTC calendar from the
 * request's one "now", the same arithmetic as KairosDB's start_relative.
 */
import { describe, expect, it } from 'vitest';
import { DateTime, IANAZone } from 'luxon';
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
    expect([parseTime(1714557600000, NOW), parseTime(' 1714557600000 ', NOW), parseTime(10n, NOW)]).toEqual([
      1714557600000, 1714557600000, 10,
    ]);
    expect([parseTime('2024-05-01T10:00:00', NOW), parseTime('2024-05-01T12:00:00+02:00', NOW)]).toEqual([
      1714557600000, 1714557600000,
    ]);
  });

  it.each([
    [1.5, 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    [9e15, 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    ['-8640000000000001', 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    ['99999999999999999999', 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    // luxon's arithmetic gives NaN past its range; a time that far away is out of range, not malformed.
    ['now-99999999y', 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    ['now+300000y', 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000'],
    [
      'now-99999999999999999999ms',
      'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000',
    ],
    [
      'now-6x',
      'is not epoch milliseconds, ISO-8601 text or a relative time such as now-6h or now-1d/d: steps are +N<unit>, -N<unit> or /<unit>, units ms s m h d w M Q y',
    ],
    [
      'now/2d',
      'is not epoch milliseconds, ISO-8601 text or a relative time such as now-6h or now-1d/d: steps are +N<unit>, -N<unit> or /<unit>, units ms s m h d w M Q y',
    ],
    ['yesterday', 'is not epoch milliseconds, ISO-8601 text or a relative time such as now-6h or now-1d/d'],
    [
      1714557600,
      'looks like epoch seconds (2024-05-01T10:00:00.000Z as seconds): send epoch milliseconds (1714557600000), or ISO-8601 text for a time in the first months of 1970',
    ],
    [
      '1714557600',
      'looks like epoch seconds (2024-05-01T10:00:00.000Z as seconds): send epoch milliseconds (1714557600000), or ISO-8601 text for a time in the first months of 1970',
    ],
    [
      -1000000000,
      'looks like epoch seconds (1938-04-24T22:13:20.000Z as seconds): send epoch milliseconds (-1000000000000), or ISO-8601 text for a time in the first months of 1970',
    ],
    [true, 'must be epoch milliseconds, ISO-8601 text or a relative time such as now-6h'],
  ])('refuses %j: it %s', (value, reason) => {
    expect(() => parseTime(value, NOW)).toThrow(new TimeParseError(reason));
  });
});

/**
 * Grafana's date math against the same instants computed step by step with luxon: every case in UTC and in zones
 * whose midnight and week differ from UTC's, on clocks around a DST change and a month's and a year's end.
 */
describe("parseTime: Grafana's date math with rounding", () => {
  const CLOCKS = [
    NOW,
    Date.UTC(2024, 2, 31, 0, 30), // 02:30 in Berlin, the night clocks went forward
    Date.UTC(2024, 9, 27, 0, 30), // the night they went back
    Date.UTC(2023, 11, 31, 23, 59, 59, 999), // a year's last millisecond in UTC, already 2024 east of it
    Date.UTC(2024, 0, 1, 3), // Monday 1 January: a week's first day
  ];
  const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'];
  type Step = (t: DateTime, roundUp: boolean) => DateTime;
  const start =
    (unit: Parameters<DateTime['startOf']>[0]): Step =>
    (t, up) =>
      up ? t.endOf(unit) : t.startOf(unit);
  const CASES: [string, Step[]][] = [
    ['now', []],
    ['now/d', [start('day')]],
    ['now-1d/d', [(t) => t.minus({ days: 1 }), start('day')]],
    ['now/w', [start('week')]],
    ['now-1w/w', [(t) => t.minus({ weeks: 1 }), start('week')]],
    ['now/M', [start('month')]],
    ['now-1M/M', [(t) => t.minus({ months: 1 }), start('month')]],
    ['now/y', [start('year')]],
    ['now-1y/y', [(t) => t.minus({ years: 1 }), start('year')]],
    ['now/Q', [start('quarter')]],
    ['now/h', [start('hour')]],
    ['now-5m/m', [(t) => t.minus({ minutes: 5 }), start('minute')]],
    ['now/s', [start('second')]],
    ['now-7d', [(t) => t.minus({ days: 7 })]],
    ['now-1d/d+6h', [(t) => t.minus({ days: 1 }), start('day'), (t) => t.plus({ hours: 6 })]],
    ['now/d-1h', [start('day'), (t) => t.minus({ hours: 1 })]],
    ['now-d', [(t) => t.minus({ days: 1 })]],
    ['now - 2h / h', [(t) => t.minus({ hours: 2 }), start('hour')]],
  ];
  const table = CLOCKS.flatMap((clock) =>
    ZONES.flatMap((zone) =>
      CASES.flatMap(([text, steps]) => [false, true].map((roundUp) => ({ clock, zone, text, steps, roundUp }))),
    ),
  );

  it(`agrees with luxon on ${table.length} expressions, clocks, zones and rounding directions`, () => {
    const wrong = table.flatMap(({ clock, zone, text, steps, roundUp }) => {
      const expected = steps
        .reduce<DateTime>((t, step) => step(t, roundUp), DateTime.fromMillis(clock, { zone }))
        .toMillis();
      const actual = parseTime(text, clock, { zone: IANAZone.create(zone), roundUp });
      return actual === expected
        ? []
        : [
            {
              clock: new Date(clock).toISOString(),
              zone,
              text,
              roundUp,
              expected: new Date(expected).toISOString(),
              actual: new Date(actual).toISOString(),
            },
          ];
    });
    expect(wrong).toEqual([]);
  });

  it.each([
    ['now/d', false, '2024-03-31T00:00:00.000Z'],
    ['now/d', true, '2024-03-31T23:59:59.999Z'],
    ['now-1d/d', false, '2024-03-30T00:00:00.000Z'],
    ['now-1d/d', true, '2024-03-30T23:59:59.999Z'],
    // Sunday 31 March 2024: ISO weeks start on Monday the 25th.
    ['now/w', false, '2024-03-25T00:00:00.000Z'],
    ['now-1M/M', false, '2024-02-01T00:00:00.000Z'],
    ['now-1M/M', true, '2024-02-29T23:59:59.999Z'],
  ])('reads %s (round up: %s) in UTC by default as %s', (text, roundUp, iso) => {
    expect(new Date(parseTime(text, NOW, { roundUp })).toISOString()).toBe(iso);
  });

  it("rounds on the zone's calendar: Berlin's midnight, and a day of 23 hours when clocks go forward", () => {
    const berlin = { zone: IANAZone.create('Europe/Berlin') };
    expect(new Date(parseTime('now/d', NOW, berlin)).toISOString()).toBe('2024-03-30T23:00:00.000Z');
    expect(new Date(parseTime('now/d', NOW, { ...berlin, roundUp: true })).toISOString()).toBe(
      '2024-03-31T21:59:59.999Z',
    );
  });
});
