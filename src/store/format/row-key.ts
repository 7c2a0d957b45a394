// The data_points partition key (reference §2.1): metric, 0x00, big-endian row time, then the typed layout
// (0x00 marker, length byte, type string) or nothing for ≤0.9.3 kairos_legacy keys, then the tag string.
import type { RowKey } from '../store.js';
import { LEGACY_DATA_TYPE } from './data-types.js';
import { decodeTagString, encodeTagString } from './tags.js';

/** `tagString` is the tags' (encodeTagString) when the caller has it already. */
export function encodeRowKey(key: RowKey, tagString: string = encodeTagString(key.tags)): Uint8Array {
  if (key.metric.includes('\u0000')) {
    throw new Error(
      `row key metric must not contain U+0000 (KairosDB ends the name at the first 0x00): ${JSON.stringify(key.metric)}`,
    );
  }
  if (!Number.isSafeInteger(key.rowTime)) throw new Error(`row key time must be a safe integer: ${key.rowTime}`);
  const legacy = key.dataType === LEGACY_DATA_TYPE;
  const metric = javaString(key.metric);
  const type = legacy ? '' : javaString(key.dataType);
  const typeBytes = Buffer.byteLength(type, 'utf8');
  if (typeBytes > 127) {
    throw new Error(
      `row key data type is ${typeBytes} UTF-8 bytes, over the 127 its signed length byte holds: ${JSON.stringify(key.dataType)}`,
    );
  }
  const tags = javaString(tagString);
  if (legacy && tags.charCodeAt(0) === 0) {
    throw new Error('legacy row key tags must not start with U+0000: readers would take it for the type marker');
  }
  const metricBytes = Buffer.byteLength(metric, 'utf8');
  // One buffer written in place, from Node's pool: a row key is encoded for every series of every write.
  const out = Buffer.allocUnsafe(metricBytes + 9 + (legacy ? 0 : 2 + typeBytes) + Buffer.byteLength(tags, 'utf8'));
  let p = out.write(metric, 0, 'utf8');
  out[p++] = 0;
  writeInt64(out, p, key.rowTime);
  p += 8;
  if (!legacy) {
    out[p++] = 0;
    out[p++] = typeBytes;
    p += out.write(type, p, 'utf8');
  }
  out.write(tags, p, 'utf8');
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

/** Java's `new String(bytes, UTF_8)` also replaces bad bytes with U+FFFD and, unlike the default here, keeps a BOM. */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Java's `getBytes(UTF_8)` writes a lone surrogate as `?`, where Node's UTF-8 would write U+FFFD. */
function javaString(s: string): string {
  return SURROGATE.test(s) ? s.replace(LONE_SURROGATE, '?') : s;
}

/** Row times are safe integers, so two 32-bit halves carry them without BigInt. */
function writeInt64(out: Buffer, offset: number, v: number): void {
  const high = Math.floor(v / 2 ** 32);
  out.writeInt32BE(high, offset);
  out.writeUInt32BE(v - high * 2 ** 32, offset + 4);
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
