import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeModifiedUtf8, encodeModifiedUtf8, modifiedUtf8Length, writeModifiedUtf8 } from './modified-utf8.js';
import { anyChar, fromHex, hex } from '../../../test/support/bytes.js';

const decodeAll = (bytes: Uint8Array): string => decodeModifiedUtf8(bytes, 0, bytes.length);
/** Long enough to take the native decoder's path. */
const PAD = 'x'.repeat(20);
const PAD_HEX = '78'.repeat(20);

describe('encodeModifiedUtf8', () => {
  it('writes U+0000 as C0 80', () => {
    expect(hex(encodeModifiedUtf8('\u0000'))).toBe('c080');
    expect(hex(encodeModifiedUtf8('a\u0000b'))).toBe('61c08062');
  });

  it('writes a non-BMP character as two 3-byte surrogate encodings', () => {
    // U+1F600 is D83D DE00 in UTF-16; standard UTF-8 would be f09f9880.
    expect(hex(encodeModifiedUtf8('😀'))).toBe('eda0bdedb880');
  });

  it('writes 1-, 2- and 3-byte BMP characters as UTF-8 does', () => {
    expect(hex(encodeModifiedUtf8('Aé€\uFFFF'))).toBe('41c3a9e282acefbfbf');
    expect(hex(encodeModifiedUtf8(''))).toBe('');
  });

  it('writes a lone surrogate as its 3-byte encoding, as Java does', () => {
    expect(hex(encodeModifiedUtf8('\uD800'))).toBe('eda080');
  });

  it('agrees with standard UTF-8 for BMP text without U+0000', () => {
    const bmpChar = fc
      .integer({ min: 1, max: 0xffff })
      .filter((c) => c < 0xd800 || c > 0xdfff)
      .map((c) => String.fromCharCode(c));
    fc.assert(
      fc.property(fc.string({ unit: bmpChar, maxLength: 40 }), (s) => {
        expect(hex(encodeModifiedUtf8(s))).toBe(Buffer.from(s, 'utf8').toString('hex'));
      }),
    );
  });
});

describe('modifiedUtf8Length', () => {
  it('counts the bytes encodeModifiedUtf8 writes', () => {
    expect(modifiedUtf8Length('\u0000😀é')).toBe(2 + 6 + 2);
    fc.assert(
      fc.property(fc.string({ unit: anyChar }), (s) => {
        expect(modifiedUtf8Length(s)).toBe(encodeModifiedUtf8(s).length);
      }),
    );
  });
});

describe('writeModifiedUtf8', () => {
  it('writes at an offset and returns the end', () => {
    const out = new Uint8Array(6);
    expect(writeModifiedUtf8('a\u0000', out, 2)).toBe(5);
    expect(hex(out)).toBe('000061c08000');
  });
});

describe('decodeModifiedUtf8', () => {
  it('reads U+0000 and surrogate pairs, on both the short and the long path', () => {
    expect(decodeAll(fromHex('c080'))).toBe('\u0000');
    expect(decodeAll(fromHex('eda0bdedb880'))).toBe('😀');
    expect(decodeAll(fromHex(`${PAD_HEX}c080eda0bdedb880`))).toBe(`${PAD}\u0000😀`);
  });

  it('reads a range inside a larger buffer', () => {
    const bytes = fromHex('ff' + '6869' + 'ff');
    expect(decodeModifiedUtf8(bytes, 1, 3)).toBe('hi');
    expect(decodeModifiedUtf8(bytes, 1, 1)).toBe('');
  });

  it('accepts what Java readUTF accepts: raw 0x00 and overlong forms', () => {
    expect(decodeAll(fromHex('6100'))).toBe('a\u0000');
    expect(decodeAll(fromHex('c181'))).toBe('A');
    expect(decodeAll(fromHex('e08080'))).toBe('\u0000');
    expect(decodeAll(fromHex(`${PAD_HEX}c181e08080`))).toBe(`${PAD}A\u0000`);
  });

  it('keeps a leading BOM, a genuine U+FFFD and lone surrogates on the long path', () => {
    expect(decodeAll(fromHex(`efbbbf${PAD_HEX}`))).toBe(`\uFEFF${PAD}`);
    expect(decodeAll(fromHex(`${PAD_HEX}efbfbd`))).toBe(`${PAD}\uFFFD`);
    expect(decodeAll(fromHex(`${PAD_HEX}eda080`))).toBe(`${PAD}\uD800`);
    expect(decodeAll(fromHex(`${PAD_HEX}eda080efbfbdc080`))).toBe(`${PAD}\uD800\uFFFD\u0000`);
  });

  it('rejects malformed input with the position and byte', () => {
    expect(() => decodeAll(fromHex('80'))).toThrow(new Error('malformed modified UTF-8 at byte 0: 0x80'));
    expect(() => decodeAll(fromHex('61c341'))).toThrow(new Error('malformed modified UTF-8 at byte 2: 0x41'));
    expect(() => decodeAll(fromHex('e28241'))).toThrow(new Error('malformed modified UTF-8 at byte 2: 0x41'));
    expect(() => decodeAll(fromHex('e24182'))).toThrow(new Error('malformed modified UTF-8 at byte 1: 0x41'));
    expect(() => decodeAll(fromHex('61c3'))).toThrow(
      new Error('malformed modified UTF-8: partial character at end (byte 1)'),
    );
    expect(() => decodeAll(fromHex('e282'))).toThrow(
      new Error('malformed modified UTF-8: partial character at end (byte 0)'),
    );
  });

  it('rejects 4-byte sequences, which standard UTF-8 would accept, on both paths', () => {
    expect(() => decodeAll(fromHex('f09f9880'))).toThrow(new Error('malformed modified UTF-8 at byte 0: 0xf0'));
    expect(() => decodeAll(fromHex(`${PAD_HEX}f09f9880`))).toThrow(
      new Error('malformed modified UTF-8 at byte 20: 0xf0'),
    );
  });

  it('reports positions relative to the start of the range', () => {
    expect(() => decodeModifiedUtf8(fromHex('616161ff'), 2, 4)).toThrow(
      new Error('malformed modified UTF-8 at byte 1: 0xff'),
    );
  });

  it('round-trips any string, including U+0000 and supplementary characters', () => {
    const text = fc.string({
      unit: fc.oneof(fc.constant('\u0000'), anyChar),
      maxLength: 60,
    });
    fc.assert(
      fc.property(text, (s) => {
        expect(decodeAll(encodeModifiedUtf8(s))).toBe(s);
      }),
    );
  });

  it('round-trips long strings past the native decoder and the chunked fallback', () => {
    const long = `${'😀\u0000é'.repeat(5000)}\uD800`;
    expect(decodeAll(encodeModifiedUtf8(long))).toBe(long);
    const plain = 'abcé€'.repeat(20000);
    expect(decodeAll(encodeModifiedUtf8(plain))).toBe(plain);
  });
});
