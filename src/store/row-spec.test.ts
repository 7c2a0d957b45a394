/**
 * KairosDB's spec rules, as both stores apply them: defaults for a store without spec rows, and the validation of
 * stored spec text, with errors that name the bad value.
 */
import { describe, expect, it } from 'vitest';
import { initialRowTimeUnit, initialRowWidth, parseRowSpec } from './row-spec.js';

describe('row spec', () => {
  it('starts a store over existing metric names as LEGACY, otherwise with the configured unit', () => {
    expect(initialRowTimeUnit(true, 'SECONDS')).toBe('LEGACY');
    expect(initialRowTimeUnit(false, 'SECONDS')).toBe('SECONDS');
  });

  it('writes the configured width, or 21 days in the unit the spec stores', () => {
    expect(initialRowWidth('MILLISECONDS', 1234)).toBe('1234');
    expect(initialRowWidth('MILLISECONDS', undefined)).toBe('1814400000');
    expect(initialRowWidth('LEGACY', undefined)).toBe('1814400000');
    expect(initialRowWidth('SECONDS', undefined)).toBe('1814400');
  });

  it('reads stored spec text and rejects what is not a unit or a positive integer', () => {
    expect(parseRowSpec('SECONDS', '60')).toEqual({ unit: 'SECONDS', width: 60 });
    expect(() => parseRowSpec('HOURS', '60')).toThrow(new Error('spec row_time_unit is not a known unit: "HOURS"'));
    expect(() => parseRowSpec('LEGACY', '1e3', 'keyspace k')).toThrow(
      new Error('spec row_width of keyspace k is not a positive integer: "1e3"'),
    );
    for (const width of ['0', '-5', ' 7', '', '9007199254740993'])
      expect(() => parseRowSpec('LEGACY', width)).toThrow(/row_width is not a positive integer/);
  });
});
