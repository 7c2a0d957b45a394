import { describe, expect, it } from 'vitest';
import { murmur3TagHash, murmur3x86_32 } from './murmur3.js';

const bytes = (hex: string) => Buffer.from(hex, 'hex');

describe('murmur3x86_32', () => {
  // The reference implementation's (SMHasher) known values: every tail length, and the seed.
  it.each([
    ['', 0, 0],
    ['', 1, 0x514e28b7],
    ['', 0xffffffff, 0x81f16f39],
    ['ffffffff', 0, 0x76293b50],
    ['21436587', 0, 0xf55b516b],
    ['214365', 0, 0x7e4a8634],
    ['2143', 0, 0xa0f7b07a],
    ['21', 0, 0x72661cf4],
    ['00000000', 0, 0x2362f9de],
  ])('hashes %s with seed %d', (hex, seed, expected) => {
    expect(murmur3x86_32(bytes(hex), seed)).toBe(expected | 0);
  });
});

describe('murmur3TagHash', () => {
  it("is Guava's murmur3_32 of the strings' UTF-8 bytes, as a signed int", () => {
    expect(murmur3TagHash(['hello'])).toBe(0x248bfa47);
    // The reference's worked examples (docs/kairosdb-format.md §6).
    expect(murmur3TagHash(['host', 'a'])).toBe(-1147264974);
    expect(murmur3TagHash(['dc', 'x', 'host', 'a'])).toBe(1750428808);
    expect(murmur3TagHash(['dcx', 'hosta'])).toBe(murmur3TagHash(['d', 'cxhost', 'a']));
  });

  it('encodes non-BMP characters in 4 bytes and unpaired surrogates as Java does, as ?', () => {
    expect(murmur3TagHash(['h', '🌍'])).toBe(murmur3x86_32(bytes('68f09f8c8d'), 0));
    expect(murmur3TagHash(['a\ud800', 'b'])).toBe(murmur3TagHash(['a?b']));
    expect(murmur3TagHash(['\udc00x'])).toBe(murmur3TagHash(['?x']));
  });
});
