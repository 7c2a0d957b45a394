/** The time column's codec: bounds and decoded times for every type and unit, as a table, and round trips. */
import cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { TimeColumn } from './time-column.js';

const { Long, TimeUuid } = cassandra.types;
const text = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

describe('TimeColumn', () => {
  it.each([
    // type, unit, fromMs, toMs, bound from, bound to
    ['timestamp', undefined, 1500, 2500, '1970-01-01T00:00:01.500Z', '1970-01-01T00:00:02.500Z'],
    ['bigint', 'milliseconds', 1500, 2500, '1500', '2500'],
    ['bigint', 'seconds', 1500, 2500, '2', '2'],
    ['bigint', 'seconds', -1500, -500, '-1', '-1'],
    ['bigint', 'microseconds', 1500, 2500, '1500000', '2500999'],
    [
      'bigint',
      'microseconds',
      8_640_000_000_000_000,
      8_640_000_000_000_000,
      '8640000000000000000',
      '8640000000000000999',
    ],
    ['timeuuid', undefined, 1500, 2500, '1970-01-01T00:00:01.500Z', '1970-01-01T00:00:02.500Z'],
  ] as const)('binds a %s (%s) range [%d, %d] as [%s, %s]', (type, unit, fromMs, toMs, from, to) => {
    const time = new TimeColumn(type, unit);
    expect([text(time.from(fromMs)), text(time.to(toMs))]).toEqual([from, to]);
  });

  it('compares a timeuuid with the UUIDs of its milliseconds, and other types with the bound value', () => {
    expect([new TimeColumn('timeuuid').marker('from'), new TimeColumn('timeuuid').marker('to')]).toEqual([
      'minTimeuuid(?)',
      'maxTimeuuid(?)',
    ]);
    expect([new TimeColumn('bigint').marker('from'), new TimeColumn('timestamp').marker('to')]).toEqual(['?', '?']);
  });

  it.each([
    ['bigint', 'milliseconds', Long.fromString('1700000000123'), 1_700_000_000_123],
    ['bigint', 'seconds', Long.fromString('-3'), -3000],
    ['bigint', 'microseconds', Long.fromString('1700000000123999'), 1_700_000_000_123],
    ['bigint', 'microseconds', Long.fromString('-1'), -1],
    ['bigint', 'microseconds', Long.fromString('-1000'), -1],
    ['bigint', 'microseconds', Long.fromString('-1001'), -2],
    ['timestamp', undefined, new Date(-5), -5],
    ['timeuuid', undefined, TimeUuid.fromDate(new Date(1_700_000_000_456)), 1_700_000_000_456],
  ] as const)('reads a %s (%s) cell %s as %d ms (microseconds floored)', (type, unit, cell, ms) => {
    expect(new TimeColumn(type, unit).ms(cell)).toBe(ms);
  });

  it.each([
    ['timestamp', undefined],
    ['bigint', 'milliseconds'],
    ['bigint', 'microseconds'],
    ['timeuuid', undefined],
  ] as const)('stores a %s (%s) time that reads back as the same ms', (type, unit) => {
    const time = new TimeColumn(type, unit);
    for (const ms of [0, 1, -1, 1_700_000_000_123, -86_400_001]) expect(time.ms(time.value(ms))).toBe(ms);
  });

  it('makes a new timeuuid per write, and keeps a seconds column to whole seconds', () => {
    const time = new TimeColumn('timeuuid');
    expect(String(time.value(1000))).not.toBe(String(time.value(1000)));
    const seconds = new TimeColumn('bigint', 'seconds');
    expect([seconds.holds(2000), seconds.holds(2001), new TimeColumn('bigint').holds(2001)]).toEqual([
      true,
      false,
      true,
    ]);
    expect([String(seconds.value(-2000)), String(seconds.value(7000))]).toEqual(['-2', '7']);
  });
});
