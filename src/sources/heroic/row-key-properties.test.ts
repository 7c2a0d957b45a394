/**
 * Properties of Heroic's metric_key blobs over any series and base: round trips, re-encoding to the same bytes, and
 * decoding random or damaged bytes without throwing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyChar, hex } from '../../../test/support/bytes.js';
import { SCHEMAS, series, YEAR_2500_MS } from '../../../test/support/heroic-keys.js';
import type { DecodedKey } from './key-bytes.js';
import { NG_WIDTH_MS, widthOf, type HeroicSchema } from './partitions.js';
import { decodeKey, encodeKey } from './row-key.js';

describe('encodeKey and decodeKey: properties', () => {
  const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');
  /** A string of exactly n UTF-8 bytes, starting with any code point (astral ones included). */
  const sizedText = fc
    .tuple(fc.constantFrom(126, 127, 128, 129, 16510, 16511, 16512, 16513, 20000), anyChar)
    .map(([n, ch]) => ch + 'x'.repeat(n - utf8Length(ch)));
  const shortText = fc.string({ unit: anyChar, maxLength: 12 });
  const text = fc.oneof(
    { arbitrary: shortText, weight: 12 },
    { arbitrary: fc.constant(''), weight: 2 },
    { arbitrary: sizedText, weight: 1 },
  );
  const map = fc.oneof(
    { arbitrary: fc.dictionary(text, text, { maxKeys: 6 }), weight: 8 },
    { arbitrary: fc.constant({}), weight: 2 },
  );
  const baseFor = (schema: HeroicSchema): fc.Arbitrary<number> =>
    fc
      .oneof(
        fc.integer({ min: 0, max: Math.floor(YEAR_2500_MS / widthOf(schema)) }),
        fc.constantFrom(0, 1, 2, 59, 60, 61),
      )
      .map((k) => k * widthOf(schema));

  it('ng: round-trips any series and base, and re-encodes to the same bytes', () => {
    fc.assert(
      fc.property(fc.record({ key: text, tags: map, resource: map }), baseFor('ng'), (s, base) => {
        const bytes = encodeKey('ng', s, base);
        const decoded = decodeKey('ng', bytes);
        expect(decoded).toEqual({
          series: { key: s.key, tags: { ...s.tags }, resource: { ...s.resource } },
          base,
          form: 'ng',
        });
        expect(hex(encodeKey('ng', (decoded as DecodedKey).series, base))).toBe(hex(bytes));
      }),
      { numRuns: 200 },
    );
  });

  it('ng: round-trips maps of sizes either side of the varint boundaries', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(127, 128, 16511, 16512),
        fc.constantFrom('tags', 'resource'),
        shortText,
        (n, which, value) => {
          const m: Record<string, string> = {};
          for (let i = 0; i < n; i++) m[`k${i}`] = value;
          const s = which === 'tags' ? series('m', m) : series('m', {}, m);
          const decoded = decodeKey('ng', encodeKey('ng', s, NG_WIDTH_MS)) as DecodedKey;
          expect(decoded.form).toBe('ng');
          expect(Object.keys(decoded.series[which])).toHaveLength(n);
          expect(decoded.series[which]['k16']).toBe(value);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('ng: a pre-resource key decodes to the same series without a resource', () => {
    fc.assert(
      fc.property(fc.record({ key: text, tags: map }), baseFor('ng'), (s, base) => {
        const current = encodeKey('ng', { ...s, resource: {} }, base);
        const baseBytes = encodeKey('ng', series(''), base).subarray(3);
        // Drop the resource map's single 00, which sits just before the base.
        const preResource = Buffer.concat([current.subarray(0, current.length - baseBytes.length - 1), baseBytes]);
        expect(decodeKey('ng', preResource)).toEqual({
          series: { key: s.key, tags: { ...s.tags }, resource: {} },
          base,
          form: 'ng-pre-resource',
        });
      }),
      { numRuns: 100 },
    );
  });

  it('legacy: round-trips any series Heroic could write, and re-encodes to the same bytes', () => {
    fc.assert(
      fc.property(fc.record({ key: text, tags: map }), baseFor('legacy'), (s, base) => {
        let bytes: Buffer;
        try {
          bytes = encodeKey('legacy', { ...s, resource: {} }, base);
        } catch (e) {
          // Two long strings pass the 32759-byte series component Heroic's composer could write.
          expect((e as Error).message).toMatch(/^legacy key's series component is \d+ bytes, over the 32759/);
          fc.pre(false);
          return;
        }
        const decoded = decodeKey('legacy', bytes);
        expect(decoded).toEqual({ series: { key: s.key, tags: { ...s.tags }, resource: {} }, base, form: 'legacy' });
        expect(hex(encodeKey('legacy', (decoded as DecodedKey).series, base))).toBe(hex(bytes));
      }),
      { numRuns: 200 },
    );
  });

  const decodeNeverThrows = (schema: HeroicSchema, bytes: Uint8Array): void => {
    const result = decodeKey(schema, bytes);
    if ('error' in result) {
      expect(result.error).toMatch(/\(byte \d+ of \d+\)$/);
    } else {
      expect(result.base % widthOf(schema)).toBe(0);
      // ng accepts only what Heroic's encoder writes, so a decoded current-form key re-encodes to its own bytes.
      if (result.form === 'ng') expect(hex(encodeKey('ng', result.series, result.base))).toBe(hex(bytes));
    }
  };

  it.each(SCHEMAS)('%s: decoding random bytes returns a key or an error and never throws', (schema) => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => decodeNeverThrows(schema, bytes)),
      { numRuns: 500 },
    );
  });

  it.each(SCHEMAS)('%s: decoding damaged keys (a byte changed, cut or added) returns a key or an error', (schema) => {
    const valid = fc
      .record({ key: shortText, tags: fc.dictionary(shortText, shortText, { maxKeys: 4 }) })
      .map((s) => encodeKey(schema, { ...s, resource: {} }, 3 * widthOf(schema)));
    fc.assert(
      fc.property(
        valid,
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.constantFrom('set', 'cut', 'insert'),
        (bytes, at, byte, how) => {
          const i = at % bytes.length;
          const damaged =
            how === 'set'
              ? Buffer.from(bytes).fill(byte, i, i + 1)
              : how === 'cut'
                ? bytes.subarray(0, i)
                : Buffer.concat([bytes.subarray(0, i), Uint8Array.of(byte), bytes.subarray(i)]);
          decodeNeverThrows(schema, damaged);
        },
      ),
      { numRuns: 500 },
    );
  });
});
