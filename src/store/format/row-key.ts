// The data_points partition key (reference §2.1): metric, 0x00, big-endian row time, then the typed layout
// (0x00 marker, length byte, type string) or nothing for ≤0.9.3 kairos_legacy keys, then the tag string.
import type { RowKey } from '../store.js';
import { LEGACY_DATA_TYPE } from './data-types.js';
import { decodeTagString, encodeTagString } from './tags.js';

export function encodeRowKey(key: RowKey): Uint8Array {
  if (key.metric.includes('\u0000')) {
    throw new Error(
      `row key metric must not contain U+0000 (KairosDB ends the name at the first 0x00): ${JSON.stringify(key.metric)}`,
    );
  }
  if (!Number.isSafeInteger(key.rowTime)) throw new Error(`row key time must be a safe integer: ${key.rowTime}`);
  const legacy = key.dataType === LEGACY_DATA_TYPE;
  const metric = javaUtf8(key.metric);
  const type = legacy ? EMPTY : javaUtf8(key.dataType);
  if (type.length > 127) {
    throw new Error(
      `row key data type is ${type.length} UTF-8 bytes, over the 127 its signed length byte holds: ${JSON.stringify(key.dataType)}`,
    );
  }
  const tags = javaUtf8(encodeTagString(key.tags));
  if (legacy && tags[0] === 0) {
    throw new Error('legacy row key tags must not start with U+0000: readers would take it for the type marker');
  }
  const out = new Uint8Array(metric.length + 9 + (legacy ? 0 : 2 + type.length) + tags.length);
  out.set(metric, 0);
  let p = metric.length + 1;
  writeInt64(out, p, key.rowTime);
  p += 8;
  if (!legacy) {
    p++;
    out[p++] = type.length;
    out.set(type, p);
    p += type.length;
  }
  out.set(tags, p);
  return out;
}

/**
 * The reverse of `encodeRowKey`. A key whose byte after the row time is not 0x00 is a legacy key, as KairosDB
 * decides; a key that ends right after the row time is a legacy key without tags (KairosDB fails on it).
 */
export function decodeRowKey(bytes: Uint8Array): RowKey {
  const nul = bytes.indexOf(0);
  if (nul < 0) throw new Error(`row key has no 0x00 after its metric name (${bytes.length} bytes)`);
  let p = nul + 1;
  if (p + 8 > bytes.length) throw new Error(`row key is truncated: ${bytes.length} bytes end inside the row time`);
  const rowTime = readInt64(bytes, p);
  p += 8;
  let dataType = LEGACY_DATA_TYPE;
  if (p < bytes.length && bytes[p] === 0) {
    if (p + 2 > bytes.length)
      throw new Error(`row key is truncated: ${bytes.length} bytes end before the data type length`);
    // KairosDB reads the length with ByteBuffer.get(), a signed byte.
    const length = (bytes[p + 1]! << 24) >> 24;
    if (length < 0) throw new Error(`row key data type length is negative: ${length}`);
    p += 2;
    if (p + length > bytes.length) {
      throw new Error(`row key is truncated: the data type needs ${length} bytes, ${bytes.length - p} remain`);
    }
    dataType = utf8.decode(bytes.subarray(p, p + length));
    p += length;
  }
  return {
    metric: utf8.decode(bytes.subarray(0, nul)),
    rowTime,
    dataType,
    tags: decodeTagString(utf8.decode(bytes.subarray(p))),
  };
}

export function rowKeyBytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();
/** Java's `new String(bytes, UTF_8)` also replaces bad bytes with U+FFFD and, unlike the default here, keeps a BOM. */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Java's `getBytes(UTF_8)` writes a lone surrogate as `?`, where TextEncoder would write U+FFFD. */
function javaUtf8(s: string): Uint8Array {
  return encoder.encode(s.replace(LONE_SURROGATE, '?'));
}

/** Row times are safe integers, so two 32-bit halves carry them without BigInt. */
function writeInt64(out: Uint8Array, offset: number, v: number): void {
  const high = Math.floor(v / 2 ** 32);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setInt32(offset, high);
  view.setUint32(offset + 4, v - high * 2 ** 32);
}

function readInt64(bytes: Uint8Array, offset: number): number {
  const high = (bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!;
  const low =
    ((bytes[offset + 4]! << 24) | (bytes[offset + 5]! << 16) | (bytes[offset + 6]! << 8) | bytes[offset + 7]!) >>> 0;
  const v = high * 2 ** 32 + low;
  if (!Number.isSafeInteger(v)) {
    throw new Error(`row key time is outside the safe integer range: ${(BigInt(high) << 32n) | BigInt(low)}`);
  }
  return v;
}
