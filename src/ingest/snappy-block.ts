/**
 * Snappy's block format (not its framed one), as remote write compresses its bodies: the decoder checks every length
 * and offset against the input and the declared output, so a truncated or forged body is an error naming where it
 * broke, never a short or zero-filled message, and the declared length is refused before anything is allocated.
 */

/** Thrown for a body that is not a snappy block, or would inflate past the limit. */
export class SnappyError extends Error {
  constructor(
    message: string,
    /** True when the block is well formed but declares more than the caller's limit. */
    readonly tooLarge = false,
  ) {
    super(message);
    this.name = 'SnappyError';
  }
}

/** The decompressed bytes of a snappy block of at most `maxBytes` once inflated. */
export function snappyUncompress(input: Uint8Array, maxBytes: number): Uint8Array {
  let pos = 0;
  // The preamble: the uncompressed length as a little-endian varint of at most 32 bits.
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    if (pos >= input.length) throw new SnappyError('snappy: the body ends inside the length preamble');
    if (shift > 28) throw new SnappyError('snappy: the length preamble is longer than 5 bytes');
    const byte = input[pos++]!;
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  if (length > maxBytes)
    throw new SnappyError(
      `snappy: the body declares ${length} bytes uncompressed, over the limit of ${maxBytes}`,
      true,
    );
  const out = new Uint8Array(length);
  let at = 0;
  while (pos < input.length) {
    const tagAt = pos;
    const tag = input[pos++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let len = tag >>> 2;
      if (len >= 60) {
        const bytes = len - 59;
        if (pos + bytes > input.length) throw truncated(tagAt);
        len = 0;
        for (let i = 0; i < bytes; i++) len += input[pos + i]! * 2 ** (8 * i);
        pos += bytes;
      }
      len += 1;
      if (pos + len > input.length) throw truncated(tagAt);
      if (at + len > length) throw overflow(tagAt, length);
      // A remote write's literals are mostly a label's few new bytes: a loop costs less than a view to copy from.
      if (len < SHORT) for (let i = 0; i < len; i++) out[at + i] = input[pos + i]!;
      else out.set(input.subarray(pos, pos + len), at);
      pos += len;
      at += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      if (pos + 1 > input.length) throw truncated(tagAt);
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | input[pos]!;
      pos += 1;
    } else if (kind === 2) {
      if (pos + 2 > input.length) throw truncated(tagAt);
      len = (tag >>> 2) + 1;
      offset = input[pos]! | (input[pos + 1]! << 8);
      pos += 2;
    } else {
      if (pos + 4 > input.length) throw truncated(tagAt);
      len = (tag >>> 2) + 1;
      offset = (input[pos]! | (input[pos + 1]! << 8) | (input[pos + 2]! << 16)) + input[pos + 3]! * 2 ** 24;
      pos += 4;
    }
    if (offset === 0 || offset > at)
      throw new SnappyError(
        `snappy: the copy at byte ${tagAt} reaches ${offset} bytes back, before the output's start`,
      );
    if (at + len > length) throw overflow(tagAt, length);
    // A copy that overlaps its own output (a run) goes byte by byte; copyWithin would copy the bytes as they were.
    if (offset >= len && len >= SHORT) out.copyWithin(at, at - offset, at - offset + len);
    else for (let i = 0; i < len; i++) out[at + i] = out[at - offset + i]!;
    at += len;
  }
  if (at !== length)
    throw new SnappyError(`snappy: the body is truncated: it inflates to ${at} of the ${length} bytes it declares`);
  return out;
}

/** Literals and copies shorter than this are copied byte by byte. */
const SHORT = 16;

function truncated(tagAt: number): SnappyError {
  return new SnappyError(`snappy: the body is truncated inside the element at byte ${tagAt}`);
}

function overflow(tagAt: number, length: number): SnappyError {
  return new SnappyError(`snappy: the element at byte ${tagAt} inflates past the ${length} bytes the body declares`);
}
