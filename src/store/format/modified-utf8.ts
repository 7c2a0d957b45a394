// Java's modified UTF-8 (`DataOutput.writeUTF` without its length prefix), the text encoding of kairos_string
// values (reference §3): U+0000 is C0 80 and each UTF-16 code unit, surrogates included, is encoded on its own.

/** Bytes `encodeModifiedUtf8(s)` produces, without allocating. */
export function modifiedUtf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || c === 0) n += c >= 0x800 ? 2 : 1;
  }
  return n;
}

export function encodeModifiedUtf8(s: string): Uint8Array {
  const out = new Uint8Array(modifiedUtf8Length(s));
  writeModifiedUtf8(s, out, 0);
  return out;
}

/**
 * Decodes `buf[start, end)`. Accepts what Java's `readUTF` accepts: raw 0x00 bytes and overlong forms too, since
 * Java decodes them without complaint; rejects 4-byte sequences, stray continuation bytes and cut-off characters.
 */
export function decodeModifiedUtf8(buf: Uint8Array, start: number, end: number): string {
  if (end - start > SHORT) {
    const text = utf8.decode(buf.subarray(start, end));
    if (!NOT_PLAIN.test(text)) return text;
  }
  const n = decodeUnits(buf, start, end);
  return n > SHORT ? unitsToString(n) : shortUnitsToString(n);
}

/** Writes the modified UTF-8 of `s` at `offset` (the caller sized `out` with `modifiedUtf8Length`); returns the end. */
export function writeModifiedUtf8(s: string, out: Uint8Array, offset: number): number {
  let o = offset;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0 && c < 0x80) {
      out[o++] = c;
    } else if (c < 0x800) {
      out[o++] = 0xc0 | (c >> 6);
      out[o++] = 0x80 | (c & 0x3f);
    } else {
      out[o++] = 0xe0 | (c >> 12);
      out[o++] = 0x80 | ((c >> 6) & 0x3f);
      out[o++] = 0x80 | (c & 0x3f);
    }
  }
  return o;
}

/**
 * Past this many bytes the native UTF-8 decoder beats a JS loop. Its answer is Java's exactly when it contains
 * neither U+FFFD (bytes standard UTF-8 rejects: C0 80, surrogate halves, overlong forms) nor surrogates (4-byte
 * sequences, which Java rejects); otherwise, and for a genuine U+FFFD, the JS loop decides. `ignoreBOM` keeps a
 * leading U+FEFF, which is part of the value.
 */
const SHORT = 16;
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const NOT_PLAIN = /[\uD800-\uDFFF\uFFFD]/;

/** UTF-16 code units of the value being decoded; reused, so decoding allocates only the resulting string. */
let units = new Uint16Array(256);

/** Java's `readUTF` rules, one UTF-16 code unit at a time into `units`; returns how many. */
function decodeUnits(buf: Uint8Array, start: number, end: number): number {
  if (end - start > units.length) units = new Uint16Array(Math.max(end - start, units.length * 2));
  const out = units;
  let n = 0;
  let i = start;
  while (i < end) {
    const b = buf[i]!;
    if (b < 0x80) {
      out[n++] = b;
      i++;
    } else if (b >= 0xc0 && b < 0xe0) {
      if (i + 2 > end) throw partialCharacter(i - start);
      const b2 = buf[i + 1]!;
      if ((b2 & 0xc0) !== 0x80) throw malformed(i + 1 - start, b2);
      out[n++] = ((b & 0x1f) << 6) | (b2 & 0x3f);
      i += 2;
    } else if (b >= 0xe0 && b < 0xf0) {
      if (i + 3 > end) throw partialCharacter(i - start);
      const b2 = buf[i + 1]!;
      const b3 = buf[i + 2]!;
      if ((b2 & 0xc0) !== 0x80) throw malformed(i + 1 - start, b2);
      if ((b3 & 0xc0) !== 0x80) throw malformed(i + 2 - start, b3);
      out[n++] = ((b & 0x0f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
      i += 3;
    } else {
      throw malformed(i - start, b);
    }
  }
  return n;
}

function shortUnitsToString(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += String.fromCharCode(units[i]!);
  return out;
}

/**
 * The native UTF-16 decoder is faster than `String.fromCharCode`, but it needs little-endian memory
 * and turns lone surrogates (which Java strings may hold) into U+FFFD; then, or for a genuine U+FFFD, fall back.
 */
const utf16 =
  new Uint8Array(Uint16Array.of(1).buffer)[0] === 1 ? new TextDecoder('utf-16le', { ignoreBOM: true }) : undefined;

/** `String.fromCharCode.apply` takes an array-like, but engines cap the argument count, hence the chunks. */
const CHUNK = 8192;

function unitsToString(n: number): string {
  if (utf16 !== undefined) {
    const text = utf16.decode(units.subarray(0, n));
    if (!text.includes('\uFFFD')) return text;
  }
  let out = '';
  for (let i = 0; i < n; i += CHUNK) {
    out += String.fromCharCode.apply(null, units.subarray(i, Math.min(n, i + CHUNK)) as unknown as number[]);
  }
  return out;
}

function malformed(at: number, byte: number): Error {
  return new Error(`malformed modified UTF-8 at byte ${at}: 0x${byte.toString(16).padStart(2, '0')}`);
}

function partialCharacter(at: number): Error {
  return new Error(`malformed modified UTF-8: partial character at end (byte ${at})`);
}
