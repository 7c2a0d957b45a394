/**
 * Heroic's Bigtable row keys, qualifiers and values: Heroic's own golden vectors (MetricsRowKeySerializerTest), the
 * compact varint's edges in both lengths, long non-ASCII keys, exact errors for bytes Heroic never wrote, and round
 * trips over any series.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyChar, fromHex, hex } from '../../../test/support/bytes.js';
import { series, utf8, YEAR_2500_MS } from '../../../test/support/heroic-keys.js';
import {
  BIGTABLE_WIDTH_MS,
  bigtableDouble,
  bigtableMetricPrefix,
  bigtableOffset,
  bigtableQualifier,
  bigtableValue,
  decodeBigtableKey,
  encodeBigtableKey,
} from './bigtable-key.js';
import { KeyError, type DecodedKey } from './key-bytes.js';
import { decodeKey, encodeKey } from './row-key.js';

const compact = (h: string): string => h.replace(/\s+/g, '');
/** Heroic's vector (MetricsRowKeySerializerTest): key `key`, tags {from: 123, to: 4567}, base 1. */
const GOLDEN =
  '03 03 6b6579' + '02' + '04 04 66726f6d 03 03 313233' + '02 02 746f 04 04 34353637' + '00 00 00 00 00 00 00 01';
const GOLDEN_SERIES = series('key', { from: '123', to: '4567' });
/** The same with resource {resource1: abc}. */
const GOLDEN_RESOURCE = `${GOLDEN} 01 00 0f 01 09 ${utf8('resource1')} 03 ${utf8('abc')}`;

const encode = (s: ReturnType<typeof series>, base: number): string => hex(encodeKey('bigtable', s, base));
const errorOf = (h: string): string => {
  const decoded = decodeKey('bigtable', fromHex(h));
  return 'error' in decoded ? decoded.error : 'decoded';
};

describe("Heroic's Bigtable row key", () => {
  it("encodes Heroic's golden vectors byte for byte and decodes them back", () => {
    const withResource = series('key', { from: '123', to: '4567' }, { resource1: 'abc' });
    expect(hex(encodeBigtableKey(GOLDEN_SERIES, 1))).toBe(compact(GOLDEN));
    expect(hex(encodeBigtableKey(withResource, 1))).toBe(compact(GOLDEN_RESOURCE));
    expect(decodeBigtableKey(fromHex(GOLDEN), false)).toEqual({ series: GOLDEN_SERIES, base: 1, form: 'bigtable' });
    expect(decodeBigtableKey(fromHex(GOLDEN_RESOURCE), false)).toEqual({
      series: withResource,
      base: 1,
      form: 'bigtable',
    });
    // Base 1 is no period's start: the layout never writes it, and reads no partition from it.
    expect(errorOf(GOLDEN)).toBe('base: 1 is not a multiple of 2^32: no period starts there (byte 27 of 35)');
    // The same series in a real period.
    const period = `${compact(GOLDEN).slice(0, -16)}0000000100000000`;
    expect(encode(GOLDEN_SERIES, 2 ** 32)).toBe(period);
    expect(decodeKey('bigtable', fromHex(period))).toEqual({ series: GOLDEN_SERIES, base: 2 ** 32, form: 'bigtable' });
  });

  it("writes each length as tiny-serializer's compact varint (bijective base 128), not protobuf's", () => {
    const cases: Array<[number, string]> = [
      [127, '7f'],
      [128, '80 00'],
      [255, 'ff 00'],
      [256, '80 01'],
      [16511, 'ff 7f'],
      [16512, '80 80 00'],
    ];
    for (const [n, varint] of cases) {
      const key = 'x'.repeat(n);
      expect(hex(bigtableMetricPrefix(key))).toBe(compact(`${varint} ${varint}`) + utf8(key));
      expect(decodeBigtableKey(encodeKey('bigtable', series(key), 0)).series.key).toBe(key);
    }
  });

  it('gives non-ASCII strings their UTF-8 and UTF-16 lengths apart, long ones too', () => {
    // é: 2 UTF-8 bytes, 1 UTF-16 unit; 𝄞: 4 bytes, 2 units.
    expect(encode(series('𝄞', { é: 'ü' }), 0)).toBe(
      compact(`04 02 ${utf8('𝄞')} 01 02 01 ${utf8('é')} 02 01 ${utf8('ü')} 0000000000000000`),
    );
    const long = 'é'.repeat(8256);
    const bytes = encodeKey('bigtable', series(long, { 指標: long }, { ホスト: '𝄞'.repeat(100) }), 5 * 2 ** 32);
    // 16,512 bytes in 8,256 units; the resource's one length is 400 bytes.
    expect(hex(bytes.subarray(0, 5))).toBe('808000c03f');
    expect(decodeKey('bigtable', bytes)).toEqual({
      series: series(long, { 指標: long }, { ホスト: '𝄞'.repeat(100) }),
      base: 5 * 2 ** 32,
      form: 'bigtable',
    });
  });

  it('sorts tags and resource entries by UTF-16 code units, as Java TreeMap does', () => {
    const key = encodeKey('bigtable', series('m', { b: '1', B: '2', '\u{1F600}': '3', '\uFFFD': '4' }), 0);
    expect(Object.keys(decodeBigtableKey(key).series.tags)).toEqual(['B', 'b', '\u{1F600}', '\uFFFD']);
  });

  it('refuses to encode what Heroic could not write back: a lone surrogate, an unaligned base', () => {
    expect(() => encodeKey('bigtable', series('a\uD800'), 0)).toThrow(
      new RangeError('metric key has a lone surrogate: "a\\ud800"'),
    );
    expect(() => encodeKey('bigtable', series('a'), 2 ** 31)).toThrow(
      new RangeError('bigtable base must be a non-negative safe integer multiple of 4294967296: 2147483648'),
    );
    expect(() => encodeBigtableKey(series('a'), -1)).toThrow(
      new RangeError('bigtable base must be a non-negative safe integer: -1'),
    );
  });

  it('names the byte where a key is not one Heroic wrote', () => {
    expect(errorOf('03 02 6b6579 00 0000000000000000')).toBe(
      'metric key: 3 UTF-16 units, where the key says 2 (byte 0 of 14)',
    );
    expect(errorOf('01 01 6b 00 00000001')).toBe('base: the key ends inside its 8 bytes (byte 4 of 8)');
    expect(errorOf('01 01 6b 00 0000000000000001')).toBe(
      'base: 1 is not a multiple of 2^32: no period starts there (byte 4 of 12)',
    );
    expect(errorOf('01 01 6b 00 ffffffff00000000')).toBe(
      'base: -4294967296 is outside 0 to 2^53 - 1, past any timestamp we read (byte 4 of 12)',
    );
    expect(errorOf(`01 01 6b 02 01 01 62 00 00 01 01 61 00 00 0000000000000000`)).toBe(
      'tag map entry 1: name "a" is out of order after "b" (byte 9 of 22)',
    );
    expect(errorOf('01 01 6b 00 0000000000000000 01 00 01 00')).toBe(
      'resource map: empty, where Heroic writes no resource part (byte 15 of 16)',
    );
    expect(errorOf('01 01 6b 00 0000000000000000 01 00 04 01 01 61 01 62')).toBe(
      'resource length: 4, but 5 bytes follow it (byte 14 of 20)',
    );
    expect(errorOf('01 01 6b 00 0000000000000000 02 00')).toBe(
      'optional fields: 2 fields, where Heroic writes one (the resource map) (byte 12 of 14)',
    );
    expect(errorOf('01 01 ff 00 0000000000000000')).toBe('metric key: invalid UTF-8 in its 1 byte (byte 2 of 12)');
  });

  it('decodes random bytes to a key or an error, never throwing', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 60 }), (bytes) => {
        try {
          decodeKey('bigtable', bytes);
        } catch (e) {
          if (e instanceof KeyError) throw new Error('a KeyError escaped decodeKey');
          throw e;
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips any series and base, re-encoding to the same bytes', () => {
    const text = fc.oneof(
      { arbitrary: fc.string({ unit: anyChar, maxLength: 12 }), weight: 10 },
      { arbitrary: fc.constant(''), weight: 1 },
      {
        arbitrary: fc.tuple(fc.constantFrom(127, 128, 16511, 16512), anyChar).map(([n, c]) => c.repeat(n)),
        weight: 1,
      },
    );
    const map = fc.dictionary(text, text, { maxKeys: 5 });
    const base = fc.integer({ min: 0, max: Math.floor(YEAR_2500_MS / BIGTABLE_WIDTH_MS) }).map((k) => k * 2 ** 32);
    fc.assert(
      fc.property(fc.record({ key: text, tags: map, resource: map }), base, (s, b) => {
        const bytes = encodeKey('bigtable', s, b);
        const decoded = decodeKey('bigtable', bytes) as DecodedKey;
        expect(decoded).toEqual({
          series: { key: s.key, tags: { ...s.tags }, resource: { ...s.resource } },
          base: b,
          form: 'bigtable',
        });
        expect(hex(encodeKey('bigtable', decoded.series, b))).toBe(hex(bytes));
        expect(hex(bytes.subarray(0, bigtableMetricPrefix(s.key).length))).toBe(hex(bigtableMetricPrefix(s.key)));
      }),
      { numRuns: 300 },
    );
  });
});

describe("Heroic's Bigtable qualifiers and values", () => {
  it('holds the offset as 4 bytes big-endian unsigned', () => {
    expect(hex(bigtableQualifier(0))).toBe('00000000');
    expect(hex(bigtableQualifier(2 ** 31))).toBe('80000000');
    expect(hex(bigtableQualifier(2 ** 32 - 1))).toBe('ffffffff');
    expect(bigtableOffset(fromHex('ffffffff'))).toBe(2 ** 32 - 1);
    expect(bigtableOffset(fromHex('80000001'))).toBe(2 ** 31 + 1);
    expect(bigtableOffset(fromHex('000001'))).toBeUndefined();
  });

  it('holds a value as an 8-byte big-endian double, 0 and -0 apart', () => {
    expect(hex(bigtableValue(1.5))).toBe('3ff8000000000000');
    expect(hex(bigtableValue(-0))).toBe('8000000000000000');
    expect(bigtableDouble(fromHex('0000000000000000'))).toBe(0);
    expect(Object.is(bigtableDouble(fromHex('8000000000000000')), -0)).toBe(true);
    expect(bigtableDouble(fromHex('400921fb54442d18'))).toBe(Math.PI);
    expect(bigtableDouble(fromHex('00'))).toBeUndefined();
    fc.assert(
      fc.property(fc.double(), (v) => {
        expect(Object.is(bigtableDouble(bigtableValue(v)), v)).toBe(true);
      }),
    );
  });
});
