import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RowKey } from '../store.js';
import { decodeRowKey, encodeRowKey, rowKeyBytesEqual } from './row-key.js';
import { anyChar, fromHex, hex } from '../../../test/support/bytes.js';

const ascii = (s: string): string => Buffer.from(s, 'latin1').toString('hex');

const tagText = fc.string({
  unit: fc.oneof(fc.constantFrom(':', '=', '\u0000'), anyChar),
  maxLength: 10,
});
const rowKeyArb: fc.Arbitrary<RowKey> = fc.record({
  metric: fc.string({ unit: anyChar, maxLength: 20 }).filter((m) => !m.includes('\u0000')),
  rowTime: fc.oneof(fc.maxSafeInteger(), fc.integer({ min: -4 * 1814400000, max: 4 * 1814400000 })),
  dataType: fc.oneof(
    fc.constantFrom('kairos_long', 'kairos_double', 'kairos_string', 'kairos_complex', 'kairos_legacy', ''),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
  ),
  tags: fc.dictionary(tagText, tagText, { maxKeys: 5 }),
});

describe('encodeRowKey', () => {
  it('writes the 40-byte reference example', () => {
    const bytes = encodeRowKey({
      metric: 'cpu',
      rowTime: 1435190400000,
      dataType: 'kairos_long',
      tags: { host: 'a', dc: 'x:y' },
    });
    expect(bytes.length).toBe(40);
    expect(hex(bytes)).toBe(
      '637075' + '00' + '0000014e28039400' + '00' + '0b' + '6b6169726f735f6c6f6e67' + '64633d783d3a793a686f73743d613a',
    );
  });

  it('writes the legacy layout for kairos_legacy (KairosDB test: myMetric, 12345, a=b: is 21 bytes)', () => {
    const bytes = encodeRowKey({ metric: 'myMetric', rowTime: 12345, dataType: 'kairos_legacy', tags: { a: 'b' } });
    expect(bytes.length).toBe(21);
    expect(hex(bytes)).toBe(`${ascii('myMetric')}000000000000003039${ascii('a=b:')}`);
  });

  it('matches the real key from raintank/graphite-kairosdb#5', () => {
    const bytes = encodeRowKey({
      metric: 'litmus.ping.max',
      rowTime: 0x14e28039400,
      dataType: 'kairos_double',
      tags: { collector: 'dallas', endpoint_id: '376', monitor_id: '12' },
    });
    expect(hex(bytes)).toBe(
      ascii('litmus.ping.max') +
        '00' +
        '0000014e28039400' +
        '00' +
        '0d' +
        ascii('kairos_double') +
        ascii('collector=dallas:endpoint_id=376:monitor_id=12:'),
    );
  });

  it('writes negative row times as signed 64-bit big-endian', () => {
    const bytes = encodeRowKey({ metric: 'm', rowTime: -2, dataType: 'kairos_long', tags: {} });
    expect(hex(bytes)).toBe(`6d00fffffffffffffffe000b${ascii('kairos_long')}`);
    expect(hex(encodeRowKey({ metric: '', rowTime: -(2 ** 53 - 1), dataType: '', tags: {} }))).toBe(
      '00' + 'ffe0000000000001' + '0000',
    );
  });

  it('accepts a 127-byte type and rejects 128 bytes with the reason', () => {
    const t127 = 't'.repeat(127);
    expect(hex(encodeRowKey({ metric: 'm', rowTime: 0, dataType: t127, tags: {} })).slice(20, 24)).toBe('007f');
    expect(() => encodeRowKey({ metric: 'm', rowTime: 0, dataType: 'é'.repeat(64), tags: {} })).toThrow(
      new Error(`row key data type is 128 UTF-8 bytes, over the 127 its signed length byte holds: "${'é'.repeat(64)}"`),
    );
  });

  it('rejects a metric containing U+0000', () => {
    expect(() => encodeRowKey({ metric: 'a\u0000b', rowTime: 0, dataType: 'kairos_long', tags: {} })).toThrow(
      new Error('row key metric must not contain U+0000 (KairosDB ends the name at the first 0x00): "a\\u0000b"'),
    );
  });

  it('rejects row times that are not safe integers', () => {
    expect(() => encodeRowKey({ metric: 'm', rowTime: 1.5, dataType: 'kairos_long', tags: {} })).toThrow(
      new Error('row key time must be a safe integer: 1.5'),
    );
    expect(() => encodeRowKey({ metric: 'm', rowTime: 2 ** 53, dataType: 'kairos_long', tags: {} })).toThrow(
      new Error('row key time must be a safe integer: 9007199254740992'),
    );
  });

  it('rejects a legacy key whose tag string would start with 0x00', () => {
    expect(() =>
      encodeRowKey({ metric: 'm', rowTime: 0, dataType: 'kairos_legacy', tags: { '\u0000k': 'v' } }),
    ).toThrow(new Error('legacy row key tags must not start with U+0000: readers would take it for the type marker'));
  });

  it('writes a lone surrogate as `?` like Java and keeps a leading BOM', () => {
    expect(hex(encodeRowKey({ metric: 'a\uD800', rowTime: 0, dataType: '', tags: { k: '\uDC00' } }))).toBe(
      `613f0000000000000000000000${ascii('k=?:')}`,
    );
    const bom = encodeRowKey({ metric: '\uFEFFm', rowTime: 0, dataType: 'kairos_long', tags: {} });
    expect(hex(bom).slice(0, 8)).toBe('efbbbf6d');
    expect(decodeRowKey(bom).metric).toBe('\uFEFFm');
  });
});

describe('decodeRowKey', () => {
  it('reads the reference example', () => {
    const key = decodeRowKey(
      fromHex('637075 00 0000014e28039400 00 0b 6b6169726f735f6c6f6e67 64633d783d3a793a686f73743d613a'),
    );
    expect(key).toEqual({
      metric: 'cpu',
      rowTime: 1435190400000,
      dataType: 'kairos_long',
      tags: { dc: 'x:y', host: 'a' },
    });
  });

  it('reads legacy keys as kairos_legacy, with or without tags', () => {
    expect(decodeRowKey(fromHex(`${ascii('myMetric')}000000000000003039${ascii('a=b:')}`))).toEqual({
      metric: 'myMetric',
      rowTime: 12345,
      dataType: 'kairos_legacy',
      tags: { a: 'b' },
    });
    expect(decodeRowKey(fromHex('6d 00 0000000000003039'))).toEqual({
      metric: 'm',
      rowTime: 12345,
      dataType: 'kairos_legacy',
      tags: {},
    });
  });

  it('reads keys inside a larger buffer (Buffer with an offset)', () => {
    const pooled = Buffer.from(`ff6d0000000000000000010002${ascii('ab')}${ascii('k=v:')}`, 'hex').subarray(1);
    expect(decodeRowKey(pooled)).toEqual({ metric: 'm', rowTime: 1, dataType: 'ab', tags: { k: 'v' } });
  });

  it('rejects malformed keys with the reason', () => {
    expect(() => decodeRowKey(fromHex('637075'))).toThrow(
      new Error('row key has no 0x00 after its metric name (3 bytes)'),
    );
    expect(() => decodeRowKey(fromHex('6d 00 00000000'))).toThrow(
      new Error('row key is truncated: 6 bytes end inside the row time'),
    );
    expect(() => decodeRowKey(fromHex('6d 00 0000000000000000 00'))).toThrow(
      new Error('row key is truncated: 11 bytes end before the data type length'),
    );
    expect(() => decodeRowKey(fromHex('6d 00 0000000000000000 00 80 6161'))).toThrow(
      new Error('row key data type length is negative: -128'),
    );
    expect(() => decodeRowKey(fromHex('6d 00 0000000000000000 00 05 6161'))).toThrow(
      new Error('row key is truncated: the data type needs 5 bytes, 2 remain'),
    );
    expect(() => decodeRowKey(fromHex('6d 00 0020000000000000 00 00'))).toThrow(
      new Error('row key time is outside the safe integer range: 9007199254740992'),
    );
    expect(() => decodeRowKey(fromHex('6d 00 8000000000000000 00 00'))).toThrow(
      new Error('row key time is outside the safe integer range: -9223372036854775808'),
    );
  });

  it('round-trips random keys, including negative row times and escaped tags', () => {
    fc.assert(
      fc.property(rowKeyArb, (key) => {
        const legacy = key.dataType === 'kairos_legacy';
        fc.pre(!legacy || !(Object.keys(key.tags).sort()[0] ?? '').startsWith('\u0000'));
        const bytes = encodeRowKey(key);
        const decoded = decodeRowKey(bytes);
        expect(decoded).toEqual({ ...key, tags: { ...key.tags } });
        expect(rowKeyBytesEqual(encodeRowKey(decoded), bytes)).toBe(true);
      }),
    );
  });
});

describe('rowKeyBytesEqual', () => {
  it('compares length and every byte', () => {
    expect(rowKeyBytesEqual(fromHex('0102'), fromHex('0102'))).toBe(true);
    expect(rowKeyBytesEqual(fromHex('0102'), fromHex('0103'))).toBe(false);
    expect(rowKeyBytesEqual(fromHex('0102'), fromHex('010200'))).toBe(false);
    expect(rowKeyBytesEqual(new Uint8Array(0), new Uint8Array(0))).toBe(true);
  });
});
