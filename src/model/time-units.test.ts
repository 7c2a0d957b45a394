// Calendar arithmetic with cached offsets must agree with luxon's, across every kind of zone transition.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { durationFromMs, plusUnits, resolveZone, type TimeUnit } from './time-units.js';

const LUXON = { DAYS: 'days', WEEKS: 'weeks', MONTHS: 'months', YEARS: 'years' } as const;

describe('plusUnits', () => {
  it('agrees with luxon DateTime.plus in zones with DST, half-hour DST, fixed offsets and historic offsets', () => {
    const zones = [
      'Europe/Berlin',
      'America/New_York',
      'Australia/Lord_Howe',
      'America/Sao_Paulo',
      'Asia/Kolkata',
      'Europe/Amsterdam',
      'Pacific/Apia',
      '+05:30',
      'UTC',
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: -3e12, max: 5e12 }),
        fc.constantFrom<keyof typeof LUXON>('DAYS', 'WEEKS', 'MONTHS', 'YEARS'),
        fc.integer({ min: -40, max: 40 }),
        fc.constantFrom(...zones),
        (ms, unit, count, name) => {
          const zone = resolveZone(name)!;
          expect(plusUnits(ms, unit as TimeUnit, count, zone)).toBe(
            DateTime.fromMillis(ms, { zone })
              .plus({ [LUXON[unit]]: count })
              .toMillis(),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('lands on the transitions themselves the way luxon does', () => {
    const zone = resolveZone('America/New_York')!;
    // Every minute around the 2024 spring-forward and fall-back, plus one day.
    for (const start of [Date.UTC(2024, 2, 10, 5), Date.UTC(2024, 10, 3, 4)]) {
      for (let ms = start; ms < start + 4 * 3_600_000; ms += 60_000) {
        expect(plusUnits(ms - 86_400_000, 'DAYS', 1, zone)).toBe(
          DateTime.fromMillis(ms - 86_400_000, { zone })
            .plus({ days: 1 })
            .toMillis(),
        );
      }
    }
  });
});

describe('durationFromMs', () => {
  it('is calendar-aware from days up: a New York day around spring forward is 23 hours, a February 29 days', () => {
    const ny = resolveZone('America/New_York')!;
    expect(durationFromMs(Date.UTC(2024, 2, 9, 17), { value: 1, unit: 'DAYS' }, ny)).toBe(23 * 3_600_000);
    expect(durationFromMs(Date.UTC(2024, 1, 10), { value: 1, unit: 'MONTHS' }, resolveZone('UTC')!)).toBe(
      29 * 86_400_000,
    );
    expect(durationFromMs(0, { value: 3, unit: 'HOURS' }, ny)).toBe(3 * 3_600_000);
  });
});
