import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  NULL_VALUE,
  decodeComplex,
  decodeDouble,
  decodeLegacyDouble,
  decodeLegacyLong,
  decodeLong,
  decodeString,
  encodeComplex,
  encodeDouble,
  encodeLegacyDouble,
  encodeLegacyFloat,
  encodeLegacyLong,
  encodeLong,
  encodeString,
} from './values.js';
import { anyChar, fromHex, hex } from '../../../test/support/bytes.js';

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** What decodeLong promises: a number for safe integers, the exact bigint otherwise. */
const asDecoded = (v: bigint): number | bigint => (v >= -SAFE && v <= SAFE ? Number(v) : v);
const long64 = fc.oneof(
  fc.bigInt({ min: LONG_MIN, max: LONG_MAX }),
  fc.bigInt({ min: -(2n ** 54n), max: 2n ** 54n }),
  fc.constantFrom(LONG_MIN, LONG_MAX, 0n, -1n, SAFE, -SAFE, SAFE + 1n, -SAFE - 1n, 2n ** 49n, -(2n ** 49n)),
);

/** Negative values take all 8 bytes; others as many as their significant bytes. */
const legacyLength = (v: bigint): number => (v < 0n ? 8 : v === 0n ? 0 : Math.ceil(v.toString(16).length / 2));

/** An independent zig-zag + LEB128 oracle in BigInt arithmetic. */
function varintOracle(v: bigint): string {
  let u = v >= 0n ? 2n * v : -2n * v - 1n;
  let out = '';
  do {
    const group = Number(u % 128n);
    u /= 128n;
    out += (group | (u > 0n ? 0x80 : 0)).toString(16).padStart(2, '0');
  } while (u > 0n);
  return out;
}

describe('kairos_long varint', () => {
  it('encodes the reference examples', () => {
    const examples: [number | bigint, string][] = [
      [0, '00'],
      [1, '02'],
      [-1, '01'],
      [63, '7e'],
      [-64, '7f'],
      [64, '8001'],
      [300, 'd804'],
      [-300, 'd704'],
      [1234, 'a413'],
      [LONG_MAX, 'feffffffffffffffff01'],
      [LONG_MIN, 'ffffffffffffffffff01'],
    ];
    for (const [v, bytes] of examples) {
      expect(hex(encodeLong(v))).toBe(bytes);
      expect(decodeLong(fromHex(bytes))).toBe(v);
    }
  });

  it('returns numbers up to ±(2^53-1) and exact bigints beyond', () => {
    expect(decodeLong(encodeLong(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(decodeLong(encodeLong(-Number.MAX_SAFE_INTEGER))).toBe(-Number.MAX_SAFE_INTEGER);
    expect(decodeLong(encodeLong(2n ** 53n))).toBe(2n ** 53n);
    expect(decodeLong(encodeLong(-(2n ** 53n)))).toBe(-(2n ** 53n));
    expect(decodeLong(encodeLong(2 ** 60))).toBe(2n ** 60n);
  });

  it('encodes a number and the equal bigint identically, over the whole range numbers reach', () => {
    expect(hex(encodeLong(2 ** 53))).toBe(hex(encodeLong(2n ** 53n)));
    expect(hex(encodeLong(-(2 ** 63)))).toBe('ffffffffffffffffff01');
    expect(hex(encodeLong(-0))).toBe('00');
    fc.assert(
      fc.property(fc.double({ min: -(2 ** 63), max: 2 ** 63 - 1024, noNaN: true }).map(Math.trunc), (v) => {
        expect(hex(encodeLong(v))).toBe(hex(encodeLong(BigInt(v))));
      }),
    );
  });

  it('rejects non-integers and values outside the signed 64-bit range', () => {
    expect(() => encodeLong(1.5)).toThrow(new RangeError('long value must be an integer: 1.5'));
    expect(() => encodeLong(Number.NaN)).toThrow(new RangeError('long value must be an integer: NaN'));
    expect(() => encodeLong(Number.POSITIVE_INFINITY)).toThrow(
      new RangeError('long value must be an integer: Infinity'),
    );
    expect(() => encodeLong(2 ** 63)).toThrow(
      new RangeError('long value is outside the signed 64-bit range: 9223372036854776000'),
    );
    expect(() => encodeLong(LONG_MAX + 1n)).toThrow(
      new RangeError('long value is outside the signed 64-bit range: 9223372036854775808'),
    );
    expect(() => encodeLong(LONG_MIN - 1n)).toThrow(
      new RangeError('long value is outside the signed 64-bit range: -9223372036854775809'),
    );
    expect(() => encodeLong(1.5)).toThrow(RangeError);
  });

  it('reads a value inside a larger buffer and ignores bytes after the last varint byte, as KairosDB does', () => {
    expect(decodeLong(fromHex('ff d804 ff'), 1, 4)).toBe(300);
    expect(decodeLong(fromHex('02ff'))).toBe(1);
  });

  it('ignores the bits of a 10th byte beyond bit 63, as KairosDB does', () => {
    expect(decodeLong(fromHex('feffffffffffffffff7f'))).toBe(LONG_MAX);
    expect(decodeLong(fromHex('feffffffffffffffff00'))).toBe(2n ** 62n - 1n);
  });

  it('rejects empty, truncated and over-long varints', () => {
    expect(() => decodeLong(new Uint8Array(0))).toThrow(new Error('long value is empty'));
    expect(() => decodeLong(fromHex('80'))).toThrow(
      new Error('long value is truncated: its 1 bytes all have the varint continuation bit'),
    );
    expect(() => decodeLong(fromHex('d804'), 0, 1)).toThrow(
      new Error('long value is truncated: its 1 bytes all have the varint continuation bit'),
    );
    expect(() => decodeLong(fromHex('ffffffffffffff'))).toThrow(
      new Error('long value is truncated: its 7 bytes all have the varint continuation bit'),
    );
    expect(() => decodeLong(fromHex('ffffffffffffffffff'))).toThrow(
      new Error('long value is truncated: its 9 bytes all have the varint continuation bit'),
    );
    expect(() => decodeLong(fromHex('ffffffffffffffffff8001'))).toThrow(
      new Error('long value is a varint longer than 10 bytes'),
    );
  });

  it('matches an independent BigInt oracle and round-trips the full 64-bit range', () => {
    fc.assert(
      fc.property(long64, (v) => {
        const bytes = encodeLong(v);
        expect(hex(bytes)).toBe(varintOracle(v));
        expect(decodeLong(bytes)).toBe(asDecoded(v));
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips safe integers given as numbers', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (v) => {
        expect(decodeLong(encodeLong(v))).toBe(v);
      }),
    );
  });
});

describe('kairos_double and kairos_complex', () => {
  it('encodes big-endian IEEE-754', () => {
    expect(hex(encodeDouble(1.5))).toBe('3ff8000000000000');
    expect(hex(encodeDouble(-0))).toBe('8000000000000000');
    expect(hex(encodeDouble(Number.POSITIVE_INFINITY))).toBe('7ff0000000000000');
    expect(decodeDouble(fromHex('3ff8000000000000'), 0)).toBe(1.5);
    expect(decodeDouble(fromHex('ff 3ff8000000000000'), 1)).toBe(1.5);
  });

  it("writes every NaN as Java's canonical 7ff8000000000000", () => {
    const payloadNaN = new Float64Array(new BigUint64Array([0x7ff0000000000001n]).buffer)[0]!;
    expect(hex(encodeDouble(payloadNaN))).toBe('7ff8000000000000');
    expect(hex(encodeDouble(Number.NaN))).toBe('7ff8000000000000');
  });

  it('round-trips any double, including -0, NaN and infinities', () => {
    fc.assert(
      fc.property(fc.double(), (v) => {
        expect(Object.is(decodeDouble(encodeDouble(v), 0), v)).toBe(true);
      }),
    );
  });

  it('rejects a short buffer', () => {
    expect(() => decodeDouble(fromHex('3ff80000000000'), 0)).toThrow(
      new Error('double value is truncated: needs 8 bytes, has 7'),
    );
    // A cell inside a larger buffer ends where its caller says, not where the buffer does.
    expect(() => decodeDouble(fromHex('3ff8000000000000'), 0, 7)).toThrow(
      new Error('double value is truncated: needs 8 bytes, has 7'),
    );
    expect(decodeDouble(fromHex('3ff8000000000000 ff'), 0, 8)).toBe(1.5);
  });

  it('encodes complex numbers as real then imaginary', () => {
    expect(hex(encodeComplex(1.5, -2))).toBe('3ff8000000000000c000000000000000');
    expect(decodeComplex(fromHex('ff 3ff8000000000000 c000000000000000'), 1)).toEqual({ real: 1.5, imaginary: -2 });
    expect(() => decodeComplex(fromHex('3ff8000000000000'), 0)).toThrow(
      new Error('complex value is truncated: needs 16 bytes, has 8'),
    );
    fc.assert(
      fc.property(fc.double(), fc.double(), (re, im) => {
        const c = decodeComplex(encodeComplex(re, im), 0);
        expect(Object.is(c.real, re) && Object.is(c.imaginary, im)).toBe(true);
      }),
    );
  });
});

describe('kairos_string', () => {
  it('writes a 2-byte length then modified UTF-8', () => {
    expect(hex(encodeString('hi'))).toBe('00026869');
    expect(hex(encodeString(''))).toBe('0000');
    expect(hex(encodeString('\u0000😀'))).toBe('0008c080eda0bdedb880');
    expect(decodeString(fromHex('00026869'), 0, 4)).toBe('hi');
    expect(decodeString(fromHex('ff 00026869 ff'), 1, 5)).toBe('hi');
  });

  it('allows exactly 65535 bytes and names the length beyond', () => {
    const max = '\u0800'.repeat(21845);
    expect(hex(encodeString(max).subarray(0, 2))).toBe('ffff');
    expect(decodeString(encodeString(max), 0, 65537)).toBe(max);
    expect(() => encodeString('a'.repeat(65536))).toThrow(
      new RangeError('string value is 65536 bytes in modified UTF-8; KairosDB (Java writeUTF) allows at most 65535'),
    );
    expect(() => encodeString('\u0800'.repeat(21846))).toThrow(RangeError);
  });

  it('rejects a missing or overlong length prefix', () => {
    expect(() => decodeString(fromHex('00'), 0, 1)).toThrow(
      new Error('string length prefix is truncated: needs 2 bytes, has 1'),
    );
    expect(() => decodeString(fromHex('00056869'), 0, 4)).toThrow(
      new Error('string value is truncated: its length prefix says 5 bytes, 2 follow'),
    );
  });

  it('round-trips strings with U+0000 and supplementary characters', () => {
    const text = fc.string({
      unit: fc.oneof(fc.constant('\u0000'), anyChar),
      maxLength: 80,
    });
    fc.assert(
      fc.property(text, (s) => {
        const bytes = encodeString(s);
        expect(decodeString(bytes, 0, bytes.length)).toBe(s);
      }),
    );
  });
});

describe('kairos_legacy values', () => {
  it('writes longs big-endian without leading zero bytes (KairosDB ValueSerializerTest lengths)', () => {
    expect(hex(encodeLegacyLong(0))).toBe('');
    expect(hex(encodeLegacyLong(1))).toBe('01');
    expect(hex(encodeLegacyLong(255))).toBe('ff');
    expect(hex(encodeLegacyLong(256))).toBe('0100');
    expect(hex(encodeLegacyLong(-1))).toBe('ffffffffffffffff');
    expect(hex(encodeLegacyLong(LONG_MIN))).toBe('8000000000000000');
    expect(hex(encodeLegacyLong(LONG_MAX))).toBe('7fffffffffffffff');
    for (let v = 1; v <= 255; v++) expect(encodeLegacyLong(v).length).toBe(1);
  });

  it("reads short values as non-negative and 8-byte values as two's complement", () => {
    expect(decodeLegacyLong(new Uint8Array(0), 0, 0)).toBe(0);
    expect(decodeLegacyLong(fromHex('80'), 0, 1)).toBe(128);
    expect(decodeLegacyLong(fromHex('0100'), 0, 2)).toBe(256);
    expect(decodeLegacyLong(fromHex('ffffffffffffffff'), 0, 8)).toBe(-1);
    expect(decodeLegacyLong(fromHex('ffffffffff'), 0, 5)).toBe(2 ** 40 - 1);
    expect(decodeLegacyLong(fromHex('ff ffe0000000000001 ff'), 1, 9)).toBe(-(2 ** 53 - 1));
  });

  it('returns bigints beyond ±(2^53-1)', () => {
    expect(decodeLegacyLong(fromHex('20000000000000'), 0, 7)).toBe(2n ** 53n);
    expect(decodeLegacyLong(fromHex('ffe0000000000000'), 0, 8)).toBe(-(2n ** 53n));
    expect(decodeLegacyLong(fromHex('8000000000000000'), 0, 8)).toBe(LONG_MIN);
  });

  it('keeps only the last 8 bytes of a longer value, as KairosDB shifts the rest out', () => {
    expect(decodeLegacyLong(fromHex('12 0000000000000102'), 0, 9)).toBe(258);
  });

  it('round-trips the full 64-bit range', () => {
    fc.assert(
      fc.property(long64, (v) => {
        const bytes = encodeLegacyLong(v);
        expect(bytes.length).toBe(legacyLength(v));
        expect(decodeLegacyLong(bytes, 0, bytes.length)).toBe(asDecoded(v));
      }),
      { numRuns: 1000 },
    );
  });

  it('reads 0x01 + float and any other type byte + double', () => {
    expect(hex(encodeLegacyFloat(1.5))).toBe('013fc00000');
    expect(decodeLegacyDouble(fromHex('013fc00000'), 0, 5)).toBe(1.5);
    expect(decodeLegacyDouble(encodeLegacyFloat(0.1), 0, 5)).toBe(Math.fround(0.1));
    expect(hex(encodeLegacyDouble(0.1))).toBe('023fb999999999999a');
    expect(decodeLegacyDouble(fromHex('023fb999999999999a'), 0, 9)).toBe(0.1);
    expect(decodeLegacyDouble(fromHex('003ff8000000000000'), 0, 9)).toBe(1.5);
    expect(decodeLegacyDouble(fromHex('ff 013fc00000 ff'), 1, 6)).toBe(1.5);
  });

  it('rejects truncated legacy doubles', () => {
    expect(() => decodeLegacyDouble(new Uint8Array(0), 0, 0)).toThrow(
      new Error('legacy double value is truncated: needs 1 bytes, has 0'),
    );
    expect(() => decodeLegacyDouble(fromHex('013fc0'), 0, 3)).toThrow(
      new Error('legacy float value is truncated: needs 5 bytes, has 3'),
    );
    expect(() => decodeLegacyDouble(fromHex('023f'), 0, 2)).toThrow(
      new Error('legacy double value is truncated: needs 9 bytes, has 2'),
    );
  });

  it('round-trips floats', () => {
    fc.assert(
      fc.property(fc.float(), (v) => {
        expect(Object.is(decodeLegacyDouble(encodeLegacyFloat(v), 0, 5), v)).toBe(true);
      }),
    );
  });
});

describe('NULL_VALUE', () => {
  it('is the single byte 0x00', () => {
    expect(hex(NULL_VALUE)).toBe('00');
  });
});
