import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyChar, fromHex, hex } from '../../../test/support/bytes.js';
import {
  LEGACY_WIDTH_MS,
  NG_WIDTH_MS,
  baseOf,
  columnOf,
  decodeKey,
  encodeKey,
  timestampOf,
  widthOf,
  type DecodedKey,
  type HeroicSchema,
  type HeroicSeries,
} from './row-key.js';

const utf8 = (s: string): string => Buffer.from(s, 'utf8').toString('hex');
const series = (
  key: string,
  tags: Record<string, string> = {},
  resource: Record<string, string> = {},
): HeroicSeries => ({ key, tags, resource });
/** A legacy composite component around hex bytes: u16be length, the bytes, end-of-component 0x00. */
const component = (h: string): string => {
  const bytes = h.replace(/\s+/g, '');
  return `${(bytes.length / 2).toString(16).padStart(4, '0') + bytes}00`;
};
/** A legacy map entry string: u16be length, then the flagged payload. */
const entry = (h: string): string => {
  const bytes = h.replace(/\s+/g, '');
  return (bytes.length / 2).toString(16).padStart(4, '0') + bytes;
};

const SCHEMAS: readonly HeroicSchema[] = ['ng', 'legacy'];
/** 2500-01-01T00:00:00Z. */
const YEAR_2500_MS = 16725225600000;

// Reference §2.3 and §3: one series, one point, in both schemas.
const CPU = series('cpu', { role: 'web', host: 'a' });
const CPU_TS = 1600000000000;
const NG_CPU_HEX = '03 637075' + '02' + '04 686f7374 01 61' + '04 726f6c65 03 776562' + '00' + '97f9fefec62d';
const LEGACY_CPU_HEX =
  '0024' +
  '0004 02637075 00' +
  '001a 0002 0005 02686f7374 0002 0261 0005 02726f6c65 0004 02776562 00' +
  '00' +
  '0008 0000017400000000 00';

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

describe('partition maths', () => {
  it('has the widths of the reference: ng 2^31 - 1, legacy 2^32', () => {
    expect(NG_WIDTH_MS).toBe(2 ** 31 - 1);
    expect(LEGACY_WIDTH_MS).toBe(2 ** 32);
    expect(widthOf('ng')).toBe(NG_WIDTH_MS);
    expect(widthOf('legacy')).toBe(LEGACY_WIDTH_MS);
    expect(() => widthOf('toString' as HeroicSchema)).toThrow(
      new RangeError('unknown Heroic schema: "toString" (expected "ng" or "legacy")'),
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

describe('decodeKey: malformed keys', () => {
  const NG_TAIL = '; read as a pre-resource key (no resource map): ';
  const cpuLegacySeries = component(component('02637075') + component('0000'));
  it.each([
    // schema, key hex, expected error
    [
      'ng',
      '',
      `metric key: string length: the key ends inside a varint (byte 0 of 0)${NG_TAIL}metric key: string length: the key ends inside a varint (byte 0 of 0)`,
    ],
    [
      'ng',
      '80',
      `metric key: string length: the key ends inside a varint (byte 0 of 1)${NG_TAIL}metric key: string length: the key ends inside a varint (byte 0 of 1)`,
    ],
    [
      'ng',
      '05 6170',
      `metric key: string length 5 runs past the end of the key (byte 0 of 3)${NG_TAIL}metric key: string length 5 runs past the end of the key (byte 0 of 3)`,
    ],
    [
      'ng',
      '01 6d 03 0161 0178 0162 0179 ff01 6161',
      `tag map entry 2 name: string length 383 runs past the end of the key (byte 11 of 15)${NG_TAIL}tag map entry 2 name: string length 383 runs past the end of the key (byte 11 of 15)`,
    ],
    [
      'ng',
      '02 c328 00 00 00',
      `metric key: invalid UTF-8 in its 2 bytes (byte 1 of 6)${NG_TAIL}metric key: invalid UTF-8 in its 2 bytes (byte 1 of 6)`,
    ],
    // An encoded surrogate (CESU-8), which Java's decoder rejects too.
    [
      'ng',
      '03 eda080 00 00 00',
      `metric key: invalid UTF-8 in its 3 bytes (byte 1 of 7)${NG_TAIL}metric key: invalid UTF-8 in its 3 bytes (byte 1 of 7)`,
    ],
    [
      'ng',
      'ffffffffff00',
      `metric key: string length: varint runs over 5 bytes (byte 0 of 6)${NG_TAIL}metric key: string length: varint runs over 5 bytes (byte 0 of 6)`,
    ],
    [
      'ng',
      'ffffffff07',
      `metric key: string length: varint 2418032767 is over 2^31 - 1 (byte 0 of 5)${NG_TAIL}metric key: string length: varint 2418032767 is over 2^31 - 1 (byte 0 of 5)`,
    ],
    [
      'ng',
      '00 02 0161 0162 0161 0163 00 00',
      `tag map entry 1: duplicate name "a" (byte 6 of 12)${NG_TAIL}tag map entry 1: duplicate name "a" (byte 6 of 12)`,
    ],
    [
      'ng',
      '00 02 0162 0161 0161 0163 00 00',
      `tag map entry 1: name "a" is out of order after "b" (byte 6 of 12)${NG_TAIL}tag map entry 1: name "a" is out of order after "b" (byte 6 of 12)`,
    ],
    [
      'ng',
      '00 00 00 01',
      `base: 1 is not a multiple of the ng partition width 2147483647, so Heroic did not write it (byte 3 of 4)${NG_TAIL}1 trailing byte after the base (byte 3 of 4)`,
    ],
    [
      'ng',
      '00 00 00 00 ff',
      `1 trailing byte after the base (byte 4 of 5)${NG_TAIL}2 trailing bytes after the base (byte 3 of 5)`,
    ],
    [
      'ng',
      '00 00 00 ffffffffffffffffff7f',
      `base: 1189887617730934227071 is over 2^53 - 1, past any timestamp we read (byte 3 of 13)${NG_TAIL}10 trailing bytes after the base (byte 3 of 13)`,
    ],
    [
      'ng',
      '00 00 00 ffffffffffffffffffff00',
      `base: varint runs over 10 bytes (byte 3 of 14)${NG_TAIL}11 trailing bytes after the base (byte 3 of 14)`,
    ],
    ['legacy', '', 'series component: the data ends inside a 2-byte length (byte 0 of 0)'],
    ['legacy', '00c3 0007', 'series component: length 195 runs past the end of the key (byte 0 of 4)'],
    [
      'legacy',
      `8000${'00'.repeat(32769)}`,
      'series component: length 32768 is over 32767, which Heroic reads as a negative Java short (byte 0 of 32771)',
    ],
    [
      'legacy',
      `${cpuLegacySeries.slice(0, -2)}01${component('0000000000000000')}`,
      'series component: end-of-component byte is 0x01, not 0x00 (byte 14 of 26)',
    ],
    ['legacy', cpuLegacySeries, 'base component: the data ends inside a 2-byte length (byte 15 of 15)'],
    [
      'legacy',
      cpuLegacySeries + component('00000000'),
      'base component: length 4, where a base is 8 bytes (byte 15 of 22)',
    ],
    [
      'legacy',
      cpuLegacySeries + component('0000000000000001'),
      'base: 1 is not a multiple of the legacy partition width 4294967296, so Heroic did not write it (byte 17 of 26)',
    ],
    [
      'legacy',
      cpuLegacySeries + component('ffffffff00000000'),
      'base: -4294967296 is not a timestamp from 0 to 2^53 - 1 (byte 17 of 26)',
    ],
    [
      'legacy',
      cpuLegacySeries + component('0020000000000000'),
      'base: 9007199254740992 is not a timestamp from 0 to 2^53 - 1 (byte 17 of 26)',
    ],
    [
      'legacy',
      `${cpuLegacySeries + component('0000000000000000')}00`,
      '1 trailing byte after the base component (byte 26 of 27)',
    ],
    [
      'legacy',
      `${cpuLegacySeries}0008 0000000000000000`,
      'base component: the key ends before the end-of-component byte (byte 25 of 25)',
    ],
    [
      'legacy',
      component(component('05637075') + component('0000')) + component('0000000000000000'),
      'metric key: unknown string flag 0x05 (byte 4 of 26)',
    ],
    [
      'legacy',
      component(component('') + component('0000')) + component('0000000000000000'),
      'metric key: empty string payload, without the flag byte (byte 4 of 22)',
    ],
    [
      'legacy',
      component(component('02') + component('0000')) + component('0000000000000000'),
      'metric key: text flag 0x02 with no text (Heroic writes "" as flag 0x01) (byte 4 of 23)',
    ],
    [
      'legacy',
      component(component('0161') + component('0000')) + component('0000000000000000'),
      'metric key: 1 byte after the empty string flag (byte 5 of 24)',
    ],
    [
      'legacy',
      component(component('02ff') + component('0000')) + component('0000000000000000'),
      'metric key: invalid UTF-8 in its 1 byte (byte 5 of 24)',
    ],
    [
      'legacy',
      component(`${component('02637075') + component('0000')}00`) + component('0000000000000000'),
      'series component: 1 trailing byte inside the component (byte 14 of 27)',
    ],
    [
      'legacy',
      component(component('02637075') + component('0000' + '00')) + component('0000000000000000'),
      'tag map component: 1 trailing byte inside the component (byte 13 of 27)',
    ],
    [
      'legacy',
      component(component('02637075') + component(`0001${entry('0261')}`)) + component('0000000000000000'),
      'tag map entry 0 value: the data ends inside a 2-byte length (byte 17 of 30)',
    ],
    [
      'legacy',
      component(component('02637075') + component(`0001${entry('0261')}0009 0262`)) + component('0000000000000000'),
      'tag map entry 0 value: string length 9 runs past the end of the tag map (byte 17 of 34)',
    ],
    [
      'legacy',
      component(
        component('02637075') + component(`0002${entry('0261')}${entry('0278')}${entry('0261')}${entry('0279')}`),
      ) + component('0000000000000000'),
      'tag map entry 1: duplicate name "a" (byte 21 of 42)',
    ],
    [
      'legacy',
      // A null name reads as "", so it collides with an empty one.
      component(component('02637075') + component(`0002${entry('00')}${entry('0278')}${entry('01')}${entry('0279')}`)) +
        component('0000000000000000'),
      'tag map entry 1: duplicate name "" (byte 20 of 40)',
    ],
    [
      'legacy',
      `${component(component('02637075') + component('0000')) + component('0000000000000000').slice(0, -2)}07`,
      'base component: end-of-component byte is 0x07, not 0x00 (byte 25 of 26)',
    ],
    // An ng key is not a legacy key.
    ['legacy', NG_CPU_HEX, 'series component: length 867 runs past the end of the key (byte 0 of 28)'],
  ] as const)('%s %s', (schema, keyHex, error) => {
    expect(decodeKey(schema, fromHex(keyHex))).toEqual({ error });
  });
});

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
