/**
 * Heroic's partition maths in both schemas: the widths of the reference, bases, columns and timestamps, and what is
 * refused with its reason.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CPU_TS, SCHEMAS, YEAR_2500_MS } from '../../../test/support/heroic-keys.js';
import {
  baseOf,
  columnOf,
  LEGACY_WIDTH_MS,
  NG_WIDTH_MS,
  timestampOf,
  widthOf,
  type HeroicSchema,
} from './partitions.js';

describe('partition maths', () => {
  it('has the widths of the reference: ng 2^31 - 1, legacy 2^32', () => {
    expect(NG_WIDTH_MS).toBe(2 ** 31 - 1);
    expect(LEGACY_WIDTH_MS).toBe(2 ** 32);
    expect(widthOf('ng')).toBe(NG_WIDTH_MS);
    expect(widthOf('legacy')).toBe(LEGACY_WIDTH_MS);
    expect(widthOf('bigtable')).toBe(2 ** 32);
    expect(() => widthOf('toString' as HeroicSchema)).toThrow(
      new RangeError('unknown Heroic schema: "toString" (expected "ng", "legacy" or "bigtable")'),
    );
  });

  it.each([
    // schema, ts, base, column
    ['ng', CPU_TS, 1599875317015, 124682985],
    ['legacy', CPU_TS, 1597727834112, 124682240],
    ['ng', 0, 0, 0],
    ['legacy', 0, 0, -(2 ** 31)],
    ['ng', NG_WIDTH_MS - 1, 0, NG_WIDTH_MS - 1],
    ['ng', NG_WIDTH_MS, NG_WIDTH_MS, 0],
    ['legacy', 2 ** 31 - 1, 0, -1],
    ['legacy', 2 ** 31, 0, 0],
    ['legacy', 2 ** 32 - 1, 0, 2 ** 31 - 1],
    ['legacy', 2 ** 32, 2 ** 32, -(2 ** 31)],
  ] as const)('%s: ts %d is in the partition at %d, column %d', (schema, ts, base, column) => {
    expect(baseOf(schema, ts)).toBe(base);
    expect(columnOf(schema, base, ts)).toBe(column);
    expect(timestampOf(schema, base, column)).toBe(ts);
  });

  it('rejects what is out of scope or out of the partition, with the reason', () => {
    expect(() => baseOf('ng', -1)).toThrow(
      new RangeError('timestamp must be a non-negative safe integer of milliseconds: -1'),
    );
    expect(() => baseOf('legacy', 1.5)).toThrow(
      new RangeError('timestamp must be a non-negative safe integer of milliseconds: 1.5'),
    );
    expect(() => baseOf('ng', 2 ** 53)).toThrow(
      new RangeError('timestamp must be a non-negative safe integer of milliseconds: 9007199254740992'),
    );
    expect(() => columnOf('ng', 0, -5)).toThrow(
      new RangeError('timestamp must be a non-negative safe integer of milliseconds: -5'),
    );
    expect(() => columnOf('ng', NG_WIDTH_MS, NG_WIDTH_MS - 1)).toThrow(
      new RangeError('timestamp 2147483646 is outside the ng partition at base 2147483647 (2147483647 to 4294967293)'),
    );
    expect(() => columnOf('legacy', 0, 2 ** 32)).toThrow(
      new RangeError('timestamp 4294967296 is outside the legacy partition at base 0 (0 to 4294967295)'),
    );
    expect(() => columnOf('ng', 2 ** 31, 2 ** 31)).toThrow(
      new RangeError('ng base must be a non-negative safe integer multiple of 2147483647: 2147483648'),
    );
    expect(() => timestampOf('legacy', NG_WIDTH_MS, 0)).toThrow(
      new RangeError('legacy base must be a non-negative safe integer multiple of 4294967296: 2147483647'),
    );
    expect(() => timestampOf('ng', 0, 2 ** 31)).toThrow(
      new RangeError('column must be a signed 32-bit integer: 2147483648'),
    );
    expect(() => timestampOf('legacy', 0, 0.5)).toThrow(new RangeError('column must be a signed 32-bit integer: 0.5'));
  });

  const timestamp = fc.oneof(
    fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    fc.integer({ min: 0, max: YEAR_2500_MS }),
    // Either side of partition boundaries of both widths.
    fc
      .tuple(
        fc.constantFrom(NG_WIDTH_MS, LEGACY_WIDTH_MS),
        fc.integer({ min: 1, max: 8000 }),
        fc.integer({ min: -2, max: 2 }),
      )
      .map(([w, k, d]) => k * w + d),
  );

  it.each(SCHEMAS)('%s: base, column and timestamp round-trip and the column is a signed int32', (schema) => {
    fc.assert(
      fc.property(timestamp, (ts) => {
        const base = baseOf(schema, ts);
        const column = columnOf(schema, base, ts);
        expect(base % widthOf(schema)).toBe(0);
        expect(base).toBeLessThanOrEqual(ts);
        expect(ts - base).toBeLessThan(widthOf(schema));
        expect(column | 0).toBe(column);
        if (schema === 'ng') expect(column).toBe(ts % NG_WIDTH_MS);
        expect(timestampOf(schema, base, column)).toBe(ts);
      }),
    );
  });

  it.each(SCHEMAS)('%s: signed column order is time order within a partition', (schema) => {
    const width = widthOf(schema);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Math.floor(YEAR_2500_MS / width) }),
        fc.integer({ min: 0, max: width - 1 }),
        fc.integer({ min: 0, max: width - 1 }),
        (k, a, b) => {
          const base = k * width;
          const [ca, cb] = [columnOf(schema, base, base + a), columnOf(schema, base, base + b)];
          expect(Math.sign(ca - cb)).toBe(Math.sign(a - b));
          expect(baseOf(schema, base + a)).toBe(base);
        },
      ),
    );
  });
});
