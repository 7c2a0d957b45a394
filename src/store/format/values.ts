// The bytes of data_points `value` cells (reference §3): what each datastore type's KairosDB factory writes through
// DataOutputStream, plus the ≤0.9.3 kairos_legacy encodings that KairosDB still reads.
import { decodeModifiedUtf8, modifiedUtf8Length, writeModifiedUtf8 } from './modified-utf8.js';

/** The value of the `null` datastore type (gaps aggregator output): one 0x00 byte. Shared, so never mutate it. */
export const NULL_VALUE: Uint8Array = Uint8Array.of(0);

/** kairos_long: zig-zag then unsigned LEB128 (protobuf sint64), 1 to 10 bytes. */
export function encodeLong(v: number | bigint): Uint8Array {
  let n = 0;
  if (typeof v === 'number' && v >= -TWO_52 && v < TWO_52 && Number.isInteger(v)) {
    let u = v < 0 ? -2 * v - 1 : 2 * v;
    while (u >= 0x80) {
      const low = u % 0x80;
      varintScratch[n++] = low | 0x80;
      u = (u - low) / 0x80;
    }
    varintScratch[n++] = u;
  } else {
    const long = toLong(v);
    let u = BigInt.asUintN(64, (long << 1n) ^ (long >> 63n));
    while (u >= 0x80n) {
      varintScratch[n++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    varintScratch[n++] = Number(u);
  }
  return varintScratch.slice(0, n);
}

/**
 * Reads a kairos_long at `buf[start]`; `end` bounds the cell. A safe integer comes back as a number, anything
 * beyond ±(2^53-1) as the exact bigint. Like KairosDB, bytes after the varint's last byte are ignored, and so are
 * the bits of a 10th byte that do not fit in 64 bits.
 */
export function decodeLong(buf: Uint8Array, start = 0, end: number = buf.length): number | bigint {
  // Up to 4 bytes (28 bits) int32 arithmetic suffices and up to 7 (49 bits) a double stays exact, so only varints
  // beyond ±2^48 take the slower tail and only values beyond ±(2^53-1) a BigInt.
  const available = end - start;
  const intEnd = available < 4 ? end : start + 4;
  let i = start;
  let u = 0;
  let shift = 0;
  while (i < intEnd) {
    const b = buf[i++]!;
    u |= (b & 0x7f) << shift;
    if (b < 0x80) return (u >>> 1) ^ -(u & 1);
    shift += 7;
  }
  const wideEnd = available < 7 ? end : start + 7;
  let scale = 2 ** 28;
  while (i < wideEnd) {
    const b = buf[i++]!;
    u += (b & 0x7f) * scale;
    if (b < 0x80) return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
    scale *= 0x80;
  }
  if (i === end) throw truncatedVarint(available);
  return decodeLongTail(buf, i, end, u);
}

/** kairos_double and each half of kairos_complex: IEEE-754 big-endian, as `writeDouble` writes it. */
export function encodeDouble(v: number): Uint8Array {
  const out = new Uint8Array(8);
  writeDouble(out, 0, v);
  return out;
}

/** Writes `v` as kairos_double at `out[offset]` and returns those 8 bytes, a view: many values in one buffer. */
export function encodeDoubleAt(out: Uint8Array, offset: number, v: number): Uint8Array {
  writeDouble(out, offset, v);
  return out.subarray(offset, offset + 8);
}

/** Reads the double at `buf[start]`; `end` bounds the cell, which may sit inside a larger buffer (a block, a frame). */
export function decodeDouble(buf: Uint8Array, start: number, end: number = buf.length): number {
  if (start + 8 > end) throw truncated('double value', 8, end - start);
  return readDoubleAt(buf, start);
}

/** kairos_string: Java `writeUTF`, a 2-byte unsigned big-endian byte count, then modified UTF-8. */
export function encodeString(s: string): Uint8Array {
  const length = modifiedUtf8Length(s);
  if (length > 0xffff) {
    throw new RangeError(
      `string value is ${length} bytes in modified UTF-8; KairosDB (Java writeUTF) allows at most 65535`,
    );
  }
  const out = new Uint8Array(2 + length);
  out[0] = length >>> 8;
  out[1] = length & 0xff;
  writeModifiedUtf8(s, out, 2);
  return out;
}

/** Reads a kairos_string from `buf[start, end)`; like `readUTF`, bytes after the counted ones are ignored. */
export function decodeString(buf: Uint8Array, start: number, end: number): string {
  if (end - start < 2) throw truncated('string length prefix', 2, end - start);
  const length = (buf[start]! << 8) | buf[start + 1]!;
  if (start + 2 + length > end) {
    throw new Error(`string value is truncated: its length prefix says ${length} bytes, ${end - start - 2} follow`);
  }
  return decodeModifiedUtf8(buf, start + 2, start + 2 + length);
}

/** kairos_complex (plugin): two big-endian doubles, real then imaginary. */
export function encodeComplex(real: number, imaginary: number): Uint8Array {
  const out = new Uint8Array(16);
  writeDouble(out, 0, real);
  writeDouble(out, 8, imaginary);
  return out;
}

/** Allocates the pair; a hot loop can call `decodeDouble(buf, start, end)` and `decodeDouble(buf, start + 8, end)` instead. */
export function decodeComplex(buf: Uint8Array, start: number): { real: number; imaginary: number } {
  if (start + 16 > buf.length) throw truncated('complex value', 16, buf.length - start);
  return { real: readDoubleAt(buf, start), imaginary: readDoubleAt(buf, start + 8) };
}

/**
 * kairos_legacy long (column flag 0): KairosDB's `ValueSerializer` writes the big-endian two's complement with leading
 * zero bytes dropped, so 0 is empty and every negative value takes 8 bytes.
 */
export function encodeLegacyLong(v: number | bigint): Uint8Array {
  let u = BigInt.asUintN(64, toLong(v));
  const bytes: number[] = [];
  while (u !== 0n) {
    bytes.unshift(Number(u & 0xffn));
    u >>= 8n;
  }
  return Uint8Array.from(bytes);
}

/**
 * Reads a kairos_legacy long from `buf[start, end)` as KairosDB does: shift in every byte, so that fewer than 8 bytes
 * are always non-negative and more than 8 keep only the last 8.
 */
export function decodeLegacyLong(buf: Uint8Array, start: number, end: number): number | bigint {
  const from = end - start > 8 ? end - 8 : start;
  const length = end - from;
  if (length <= 4) {
    let v = 0;
    for (let i = from; i < end; i++) v = v * 0x100 + buf[i]!;
    return v;
  }
  let high = 0;
  for (let i = from; i < end - 4; i++) high = high * 0x100 + buf[i]!;
  if (length === 8) high |= 0;
  const low = ((buf[end - 4]! << 24) | (buf[end - 3]! << 16) | (buf[end - 2]! << 8) | buf[end - 1]!) >>> 0;
  const v = high * TWO_32 + low;
  // Outside ±(2^53-1) the double above may have rounded; it is only trusted when it is a safe integer.
  return Number.isSafeInteger(v) ? v : (BigInt(high) << 32n) | BigInt(low);
}

/**
 * kairos_legacy double (column flag 1): a type byte, then a 4-byte float when it is 0x01 (what KairosDB ≤0.9.3
 * wrote, as `(float) value`) and an 8-byte double for any other type byte.
 */
export function decodeLegacyDouble(buf: Uint8Array, start: number, end: number): number {
  if (end - start < 1) throw truncated('legacy double value', 1, 0);
  if (buf[start] === LEGACY_FLOAT) {
    if (end - start < 5) throw truncated('legacy float value', 5, end - start);
    const bits = ((buf[start + 1]! << 24) | (buf[start + 2]! << 16) | (buf[start + 3]! << 8) | buf[start + 4]!) >>> 0;
    return float32FromBits(bits);
  }
  if (end - start < 9) throw truncated('legacy double value', 9, end - start);
  return readDoubleAt(buf, start + 1);
}

/** What KairosDB ≤0.9.3 wrote for a double in a kairos_legacy row: 0x01 and the value rounded to a float. */
export function encodeLegacyFloat(v: number): Uint8Array {
  const out = new Uint8Array(5);
  const view = new DataView(out.buffer);
  view.setUint8(0, LEGACY_FLOAT);
  view.setFloat32(1, v);
  return out;
}

/** The other legacy double form KairosDB reads (`ValueSerializer.DOUBLE_VALUE`, 0x02, then 8 bytes). */
export function encodeLegacyDouble(v: number): Uint8Array {
  const out = new Uint8Array(9);
  out[0] = LEGACY_DOUBLE;
  writeDouble(out, 1, v);
  return out;
}

const TWO_32 = 2 ** 32;
const TWO_52 = 2 ** 52;
const MIN_LONG = -(1n << 63n);
const MAX_LONG = (1n << 63n) - 1n;
const LEGACY_FLOAT = 0x01;
const LEGACY_DOUBLE = 0x02;

/** A varint is at most 10 bytes; encoders fill this and copy out exactly the bytes used. */
const varintScratch = new Uint8Array(10);

/** Validates an API long once, where the bigint path starts. */
function toLong(v: number | bigint): bigint {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new RangeError(`long value must be an integer: ${v}`);
    if (v < -(2 ** 63) || v >= 2 ** 63) throw new RangeError(`long value is outside the signed 64-bit range: ${v}`);
    return BigInt(v);
  }
  if (v < MIN_LONG || v > MAX_LONG) throw new RangeError(`long value is outside the signed 64-bit range: ${v}`);
  return v;
}

/** Bytes 8 to 10 of a varint carry bits 49 to 63: `high` holds them, `low` the 49 bits read so far. */
function decodeLongTail(buf: Uint8Array, at: number, end: number, low: number): number | bigint {
  let i = at;
  let high = 0;
  for (let shift = 0; ; shift += 7) {
    if (i === end) throw truncatedVarint(i - at + 7);
    const b = buf[i++]!;
    if (shift === 14) {
      if (b >= 0x80) throw new Error('long value is a varint longer than 10 bytes');
      high |= (b & 1) << 14;
      break;
    }
    high |= (b & 0x7f) << shift;
    if (b < 0x80) break;
  }
  // The halved magnitude stays below 2^53, so exact as a double, while high < 2^5.
  if (high < 32) {
    const half = high * 2 ** 48 + Math.floor(low / 2);
    if (low % 2 === 0) return half;
    if (half < Number.MAX_SAFE_INTEGER) return -half - 1;
  }
  const u = (BigInt(high) << 49n) | BigInt(low);
  return (u >> 1n) ^ -(u & 1n);
}

function truncatedVarint(length: number): Error {
  return new Error(
    length === 0
      ? 'long value is empty'
      : `long value is truncated: its ${length} bytes all have the varint continuation bit`,
  );
}

function truncated(what: string, needed: number, available: number): Error {
  return new Error(`${what} is truncated: needs ${needed} bytes, has ${available}`);
}

/** Java's `writeDouble` goes through `doubleToLongBits`, which writes every NaN as 0x7ff8000000000000. */
function writeDouble(out: Uint8Array, offset: number, v: number): void {
  // Through the shared scratch, like the reader: a DataView per value was the write path's largest cost.
  f64[0] = v;
  if (Number.isNaN(v)) {
    out.set(CANONICAL_NAN, offset);
  } else if (littleEndian) {
    for (let i = 0; i < 8; i++) out[offset + i] = f64Bytes[7 - i]!;
  } else {
    out.set(f64Bytes, offset);
  }
}

const CANONICAL_NAN = Uint8Array.of(0x7f, 0xf8, 0, 0, 0, 0, 0, 0);

/**
 * Reading through a shared 8-byte scratch avoids a DataView (an allocation) per value; Buffer's readers would tie the
 * hot path to Node's Buffer.
 */
const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const littleEndian = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

function readDoubleAt(buf: Uint8Array, start: number): number {
  if (littleEndian) {
    f64Bytes[0] = buf[start + 7]!;
    f64Bytes[1] = buf[start + 6]!;
    f64Bytes[2] = buf[start + 5]!;
    f64Bytes[3] = buf[start + 4]!;
    f64Bytes[4] = buf[start + 3]!;
    f64Bytes[5] = buf[start + 2]!;
    f64Bytes[6] = buf[start + 1]!;
    f64Bytes[7] = buf[start]!;
  } else {
    for (let i = 0; i < 8; i++) f64Bytes[i] = buf[start + i]!;
  }
  return f64[0]!;
}

function float32FromBits(bits: number): number {
  u32[0] = bits;
  return f32[0]!;
}
