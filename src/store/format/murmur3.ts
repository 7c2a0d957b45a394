// MurmurHash3 x86_32 as KairosDB 1.3 computes `tag_collection_hash`: Guava's `Hashing.murmur3_32()` (seed 0) fed
// through a streaming Hasher with `putString(s, UTF_8)` per string, read back with `asInt()`
// (docs/kairosdb-format.md §6).

/**
 * The hash of the strings' UTF-8 bytes, concatenated, as a signed 32-bit integer. Guava's streaming `putString`
 * encodes each string to UTF-8 as it goes (its 4-byte path is right: the non-BMP bug, google/guava#5648, is in
 * `hashString` alone), so the strings' bytes are simply one stream. An unpaired surrogate sends Guava to Java's
 * `String.getBytes(UTF_8)`, which writes `?` for it where Node would write U+FFFD: done here the same way.
 */
export function murmur3TagHash(strings: readonly string[]): number {
  const bytes = Buffer.from(strings.map(javaUtf8Text).join(''), 'utf8');
  return murmur3x86_32(bytes, 0);
}

/** MurmurHash3_x86_32 of `bytes`, as a signed 32-bit integer (Java's `int`). */
export function murmur3x86_32(bytes: Uint8Array, seed: number): number {
  let h1 = seed | 0;
  const whole = bytes.length & ~3;
  for (let i = 0; i < whole; i += 4) {
    const k1 = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    h1 = mixH1(h1, mixK1(k1));
  }
  // The tail of 1 to 3 bytes, little-endian, as the reference's fall-through switch reads it.
  const tail = bytes.length & 3;
  if (tail > 0) {
    let k1 = 0;
    for (let i = tail - 1; i >= 0; i--) k1 = (k1 << 8) | bytes[whole + i]!;
    h1 ^= mixK1(k1);
  }
  return fmix(h1 ^ bytes.length);
}

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixK1(k1: number): number {
  k1 = Math.imul(k1, C1);
  k1 = (k1 << 15) | (k1 >>> 17);
  return Math.imul(k1, C2);
}

function mixH1(h1: number, k1: number): number {
  h1 ^= k1;
  h1 = (h1 << 13) | (h1 >>> 19);
  return (Math.imul(h1, 5) + 0xe6546b64) | 0;
}

function fmix(h1: number): number {
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  return h1 ^ (h1 >>> 16);
}

/** The text Java's UTF-8 encoder writes: each unpaired surrogate becomes `?`. */
function javaUtf8Text(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '?');
}
