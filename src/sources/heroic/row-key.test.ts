/**
 * Heroic's metric_key blobs against bytes: the reference's worked examples and Heroic's own test vector in both
 * schemas, and what the encoder refuses to write. Malformed keys and properties over any series are in
 * row-key-malformed.test.ts and row-key-properties.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { fromHex, hex } from '../../../test/support/bytes.js';
import {
  CPU,
  CPU_TS,
  component,
  entry,
  LEGACY_CPU_HEX,
  NG_CPU_HEX,
  SCHEMAS,
  series,
  utf8,
} from '../../../test/support/heroic-keys.js';
import type { DecodedKey } from './key-bytes.js';
import { baseOf, columnOf, NG_WIDTH_MS } from './partitions.js';
import { decodeKey, encodeKey } from './row-key.js';

// Heroic's RowKeySerializerTest (metric/datastax/src/test/java/com/spotify/heroic/metric/datastax/serialization/legacy/,
// spotify/heroic at 25fda501^, deleted with the legacy schema in PR #514): its `bytes(...)` array, transcribed verbatim.
// That test deserialises these bytes and asserts that serialising the result gives them back.
const HEROIC_LEGACY_VECTOR =
  '00c300070273797374656d0000b600090005026469736b000402736465000402656e76000b0270726f64756374696f6e000502686f737400' +
  '27026c6f6e342d6861646f6f70736c6176652d623234322e6c6f6e342e73706f746966792e6e6574000a026f7065726174696f6e00050272' +
  '656164000402706f640005026c6f6e34000502726f6c65000c026861646f6f70736c617665000502736974650004026c6f6e000502756e69' +
  '740003026d7300050277686174000d02696f2d6f70732d617761697400000008000001480000000000';
// The same bytes read field by field: what the vector holds, spelled out for the decode assertion.
const HEROIC_LEGACY_SERIES = series('system', {
  disk: 'sde',
  env: 'production',
  host: 'lon4-hadoopslave-b242.lon4.spotify.net',
  operation: 'read',
  pod: 'lon4',
  role: 'hadoopslave',
  site: 'lon',
  unit: 'ms',
  what: 'io-ops-await',
});
const HEROIC_LEGACY_BASE = 0x148 * 2 ** 32; // 0x0000014800000000 = 1408749273088, 2014-08-22T23:14:33Z

describe('encodeKey and decodeKey: golden vectors', () => {
  it('ng: writes and reads the 28-byte worked example (docs/heroic-layout.md)', () => {
    const base = baseOf('ng', CPU_TS);
    expect(base).toBe(1599875317015);
    expect(columnOf('ng', base, CPU_TS)).toBe(124682985);
    const bytes = encodeKey('ng', CPU, base);
    expect(bytes.length).toBe(28);
    expect(hex(bytes)).toBe(hex(fromHex(NG_CPU_HEX)));
    expect(decodeKey('ng', bytes)).toEqual({ series: CPU, base, form: 'ng' });
  });

  it('ng: reads a key written before the resource map (Heroic before 5a6382e1) as ng-pre-resource', () => {
    // The worked example without its resource map's one byte: a different partition key for the same series.
    const preResource = fromHex('03 637075' + '02' + '04 686f7374 01 61' + '04 726f6c65 03 776562' + '97f9fefec62d');
    expect(decodeKey('ng', preResource)).toEqual({ series: CPU, base: 1599875317015, form: 'ng-pre-resource' });
    // Base 0 is the shortest: the current form would read the base's 00 as an empty resource map and then run out.
    expect(decodeKey('ng', fromHex('01 6d 00 00'))).toEqual({ series: series('m'), base: 0, form: 'ng-pre-resource' });
    expect(decodeKey('ng', fromHex('01 6d 00 00 00'))).toEqual({ series: series('m'), base: 0, form: 'ng' });
  });

  it('ng: writes the resource map in sorted order between the tags and the base', () => {
    const bytes = encodeKey('ng', series('m', {}, { zone: 'z', app: 'x' }), NG_WIDTH_MS);
    expect(hex(bytes)).toBe(`016d000203${utf8('app')}017804${utf8('zone')}017afffefefe06`);
    expect(decodeKey('ng', bytes)).toEqual({
      series: series('m', {}, { app: 'x', zone: 'z' }),
      base: NG_WIDTH_MS,
      form: 'ng',
    });
  });

  it.each([
    // value, compact varint (bijective base 128; LEB128 would write 128 as 80 01)
    [0, '00'],
    [127, '7f'],
    [128, '8000'],
    [255, 'ff00'],
    [256, '8001'],
    [16511, 'ff7f'],
    [16512, '808000'],
  ])('ng: a %d-byte string length is the compact varint %s', (n, varint) => {
    const bytes = encodeKey('ng', series('a'.repeat(n)), 0);
    expect(hex(bytes.subarray(0, varint.length / 2))).toBe(varint);
    expect(bytes.length).toBe(varint.length / 2 + n + 3);
  });

  it.each([
    [128, '8000'],
    [16512, '808000'],
  ])('ng: a map of %d entries counts them with the compact varint %s', (n, varint) => {
    const tags: Record<string, string> = {};
    for (let i = 0; i < n; i++) tags[`k${String(i).padStart(5, '0')}`] = '';
    const bytes = encodeKey('ng', series('', tags), 0);
    expect(hex(bytes.subarray(1, 1 + varint.length / 2))).toBe(varint);
    const decoded = decodeKey('ng', bytes) as DecodedKey;
    expect(Object.keys(decoded.series.tags)).toHaveLength(n);
  });

  it('ng: writes a base past 2^32 as a compact var-long (no 32-bit wrap)', () => {
    // 4000 * (2^31 - 1) = 8589934588000 > 2^32.
    const base = 4000 * NG_WIDTH_MS;
    const bytes = encodeKey('ng', series(''), base);
    expect(hex(bytes)).toBe('00' + '00' + '00' + 'e0dffefefef800');
    expect(decodeKey('ng', bytes)).toEqual({ series: series(''), base, form: 'ng' });
  });

  it('legacy: writes and reads the 50-byte worked example (docs/heroic-layout.md)', () => {
    const base = baseOf('legacy', CPU_TS);
    expect(base).toBe(1597727834112);
    expect(columnOf('legacy', base, CPU_TS)).toBe(124682240);
    const bytes = encodeKey('legacy', CPU, base);
    expect(bytes.length).toBe(50);
    expect(hex(bytes)).toBe(hex(fromHex(LEGACY_CPU_HEX)));
    expect(decodeKey('legacy', bytes)).toEqual({ series: CPU, base, form: 'legacy' });
  });

  it("legacy: reads and rewrites the 209-byte vector of Heroic's own RowKeySerializerTest byte for byte", () => {
    const bytes = fromHex(HEROIC_LEGACY_VECTOR);
    expect(bytes.length).toBe(209);
    // The ends the reference quotes.
    expect(hex(bytes.subarray(0, 23))).toBe(
      hex(fromHex('00 c3 00 07 02 73 79 73 74 65 6d 00 00 b6 00 09 00 05 02 64 69 73 6b')),
    );
    expect(hex(bytes.subarray(-13))).toBe(hex(fromHex('00 00 00 08 00 00 01 48 00 00 00 00 00')));
    expect(decodeKey('legacy', bytes)).toEqual({
      series: HEROIC_LEGACY_SERIES,
      base: HEROIC_LEGACY_BASE,
      form: 'legacy',
    });
    expect(hex(encodeKey('legacy', HEROIC_LEGACY_SERIES, HEROIC_LEGACY_BASE))).toBe(HEROIC_LEGACY_VECTOR);
    // Not an ng key: a reader that tries both schemas cannot mistake it.
    expect(decodeKey('ng', bytes)).toHaveProperty('error');
  });

  it('legacy: writes "" as flag 0x01 and any other text as 0x02 + UTF-8, lone surrogates as ? (Java getBytes)', () => {
    const bytes = encodeKey('legacy', series('', { '': 'é', k: 'a\uD800' }), 0);
    expect(hex(bytes)).toBe(
      hex(
        fromHex(
          component(
            component('01') +
              component(`0002${entry('01')}${entry(`02${utf8('é')}`)}${entry(`02${utf8('k')}`)}${entry('02613f')}`),
          ) + component('0000000000000000'),
        ),
      ),
    );
  });

  it('legacy: reads null strings (flag 0x00) as Heroic did: a null key or tag name as "", a null value drops its entry', () => {
    const bytes = fromHex(
      component(
        component('00') +
          component(
            '0003' +
              entry('00') +
              entry(`02${utf8('x')}`) +
              entry(`02${utf8('a')}`) +
              entry('00') +
              entry(`02${utf8('b')}`) +
              entry(`02${utf8('y')}`),
          ),
      ) + component('0000000100000000'),
    );
    expect(decodeKey('legacy', bytes)).toEqual({
      series: series('', { '': 'x', b: 'y' }),
      base: 2 ** 32,
      form: 'legacy',
    });
  });

  it('keeps a tag named __proto__ as an ordinary entry in both schemas', () => {
    const s = series(
      'm',
      Object.fromEntries([
        ['__proto__', 'p'],
        ['constructor', 'c'],
      ]),
    );
    for (const schema of SCHEMAS) {
      const decoded = decodeKey(schema, encodeKey(schema, s, 0)) as DecodedKey;
      expect(Object.getPrototypeOf(decoded.series.tags)).toBeNull();
      expect(Object.entries(decoded.series.tags)).toEqual([
        ['__proto__', 'p'],
        ['constructor', 'c'],
      ]);
    }
  });

  it('reads keys inside a larger buffer (Buffer with an offset)', () => {
    const pooled = Buffer.from(`ff${LEGACY_CPU_HEX.replace(/\s+/g, '')}`, 'hex').subarray(1);
    expect(decodeKey('legacy', pooled)).toEqual({ series: CPU, base: 1597727834112, form: 'legacy' });
  });
});

describe('encodeKey: refusals', () => {
  it.each([
    // schema, series, base, message
    ['ng', series('m'), 1, 'ng base must be a non-negative safe integer multiple of 2147483647: 1'],
    [
      'ng',
      series('m'),
      -NG_WIDTH_MS,
      'ng base must be a non-negative safe integer multiple of 2147483647: -2147483647',
    ],
    [
      'legacy',
      series('m'),
      NG_WIDTH_MS,
      'legacy base must be a non-negative safe integer multiple of 4294967296: 2147483647',
    ],
    [
      'legacy',
      series('m', {}, { pod: 'a' }),
      0,
      'legacy keys have no resource map, so this series cannot be written: resource {"pod":"a"}',
    ],
    [
      'ng',
      series('a\uDC00'),
      0,
      `metric key has a lone surrogate, which Heroic's ng encoder silently cuts the string at: "a\\udc00"`,
    ],
    [
      'legacy',
      series('x'.repeat(32751)),
      0,
      "legacy key's series component is 32760 bytes, over the 32759 Heroic could write (it sums component sizes in a Java short)",
    ],
  ] as const)('%s at base %d: %s', (schema, s, base, message) => {
    expect(() => encodeKey(schema, s, base)).toThrow(new RangeError(message));
  });

  it('legacy: writes the largest series component Heroic could', () => {
    // Series component: key (2 + 1 + n + 1) and empty tag map (2 + 2 + 1), so n = 32750 makes it 32759 bytes.
    const bytes = encodeKey('legacy', series('x'.repeat(32750)), 0);
    expect(bytes.length).toBe(2 + 32759 + 1 + 11);
    expect((decodeKey('legacy', bytes) as DecodedKey).series.key).toHaveLength(32750);
  });
});
