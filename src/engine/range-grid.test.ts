// Ranges of range aggregators: fixed units as integer arithmetic, calendar units in the zone, always anchored.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { InputError } from '../model/errors.js';
import { BOUNDARY_BEYOND_RULE, RangeGrid } from './range-grid.js';
import { alignedAnchor, resolveZone, TIME_UNITS, type TimeUnit } from '../model/time-units.js';

const utc = resolveZone('UTC')!;
const berlin = resolveZone('Europe/Berlin')!;

describe('RangeGrid', () => {
  it('counts fixed ranges from the anchor, before it too', () => {
    const grid = new RangeGrid(1000, { value: 7, unit: 'MILLISECONDS' }, utc);
    expect([grid.locate(1000), grid.lo, grid.hi]).toEqual([0, 1000, 1007]);
    expect([grid.locate(1013), grid.lo, grid.hi]).toEqual([1, 1007, 1014]);
    expect([grid.locate(999), grid.lo, grid.hi]).toEqual([-1, 993, 1000]);
  });

  it('counts months in the zone from the anchor, so Jan 31 + 2 months is Mar 31', () => {
    const anchor = Date.UTC(2024, 0, 31);
    const grid = new RangeGrid(anchor, { value: 1, unit: 'MONTHS' }, utc);
    expect(grid.locate(Date.UTC(2024, 2, 30))).toBe(1);
    expect([grid.lo, grid.hi]).toEqual([Date.UTC(2024, 1, 29), Date.UTC(2024, 2, 31)]);
  });

  it('gives a range start as a point time only within ±8.64e15 ms, and names the field of one beyond', () => {
    const lastYear = Date.UTC(275760, 0, 1);
    const yearly = new RangeGrid(lastYear, { value: 1, unit: 'YEARS' }, utc);
    // The end of the last year has no time (luxon: NaN), yet points in that year still find their range.
    expect([yearly.locate(8_640_000_000_000_000), yearly.lo, yearly.pointTimeOf(0, 'aggregators[0].sampling')]).toEqual(
      [0, lastYear, lastYear],
    );
    expect(yearly.startOf(1)).toBeNaN();
    expect(() => yearly.pointTimeOf(1, 'aggregators[0].sampling')).toThrow(
      new InputError('aggregators[0].sampling', { value: 1, unit: 'years' }, BOUNDARY_BEYOND_RULE),
    );
    // A fixed width past the end is a finite number, and no time either.
    const hourly = new RangeGrid(8_640_000_000_000_000 - 10, { value: 1, unit: 'HOURS' }, utc);
    expect(() => hourly.pointTimeOf(1, 'f')).toThrow(
      'f puts a range boundary outside -8640000000000000 to 8640000000000000 epoch ms, where no time can be computed or answered (got {"value":1,"unit":"hours"})',
    );
  });

  it('makes the DST day 23 hours long in Berlin', () => {
    const midnight = DateTime.fromISO('2024-03-31T00:00', { zone: 'Europe/Berlin' }).toMillis();
    const grid = new RangeGrid(midnight, { value: 1, unit: 'DAYS' }, berlin);
    grid.locate(midnight + 3_600_000);
    expect(grid.hi - grid.lo).toBe(23 * 3_600_000);
  });

  it('places every time in the range whose bounds hold it, for every unit and zone', () => {
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', '+05:30'].map(
      (z) => resolveZone(z)!,
    );
    fc.assert(
      fc.property(
        fc.integer({ min: -2e12, max: 4e12 }),
        fc.integer({ min: -2e12, max: 4e12 }),
        fc.constantFrom<TimeUnit>(...TIME_UNITS),
        fc.integer({ min: 1, max: 13 }),
        fc.constantFrom(...zones),
        fc.boolean(),
        (start, t, unit, value, zone, align) => {
          const anchor = align ? alignedAnchor(start, unit, zone) : start;
          const grid = new RangeGrid(anchor, { value, unit }, zone);
          const k = grid.locate(t);
          expect(grid.lo).toBe(grid.startOf(k));
          expect(grid.hi).toBe(grid.startOf(k + 1));
          expect(grid.lo <= t && t < grid.hi).toBe(true);
        },
      ),
    );
  });
});

describe('alignedAnchor', () => {
  it('aligns days, hours, minutes and seconds to midnight in the zone, and milliseconds to the second', () => {
    const t = Date.UTC(2024, 6, 4, 13, 37, 42, 123);
    expect(alignedAnchor(t, 'MINUTES', utc)).toBe(Date.UTC(2024, 6, 4));
    expect(alignedAnchor(t, 'HOURS', berlin)).toBe(Date.UTC(2024, 6, 3, 22));
    expect(alignedAnchor(t, 'MILLISECONDS', utc)).toBe(Date.UTC(2024, 6, 4, 13, 37, 42));
    expect(alignedAnchor(t, 'WEEKS', utc)).toBe(Date.UTC(2024, 6, 1));
    expect(alignedAnchor(t, 'MONTHS', utc)).toBe(Date.UTC(2024, 6, 1));
    expect(alignedAnchor(t, 'YEARS', utc)).toBe(Date.UTC(2024, 0, 1));
  });
});
