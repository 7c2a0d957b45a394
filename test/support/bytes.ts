/**
 * Byte and text helpers of the codec tests: hex in and out, and a fast-check arbitrary over every code point.
 */
import fc from 'fast-check';

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Hex text, whitespace ignored, so tests can lay out bytes in their fields. */
export const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/\s+/g, ''), 'hex'));

/** Any code point but a lone surrogate, in ASCII, the rest of the BMP and the supplementary planes alike. */
export const anyChar = fc
  .oneof(
    fc.integer({ min: 0, max: 0x7f }),
    fc.integer({ min: 0x80, max: 0xffff }),
    fc.integer({ min: 0x10000, max: 0x10ffff }),
  )
  .filter((c) => c < 0xd800 || c > 0xdfff)
  .map((c) => String.fromCodePoint(c));
