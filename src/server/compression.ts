/**
 * Compressed answers for both front ends: which coding a client's Accept-Encoding allows (brotli, else gzip), the
 * levels, the size below which an answer goes as it is, and the compressor an AnswerWriter feeds chunk by chunk,
 * which works on zlib's threads, so no answer, however large, holds the event loop while it is compressed.
 */
import { constants, createBrotliCompress, createGzip, type Gzip, type BrotliCompress } from 'node:zlib';

export type ContentCoding = 'br' | 'gzip';

export interface CompressionOptions {
  /** COMPRESSION */
  readonly enabled: boolean;
  /** COMPRESSION_MIN_BYTES: smaller answers go as they are. */
  readonly minBytes: number;
}

/**
 * Cheap levels (bench/compression.ts, bench/RESULTS.md): on the demo's large answers each costs less CPU than the time
 * its saved bytes take on a 1 Gbit/s link, and a higher level's extra CPU is more than its extra saving. Brotli 1 costs
 * about what brotli 0 does and sends a quarter less of an aggregated (dashboard) answer.
 */
export const GZIP_LEVEL = 1;
export const BROTLI_QUALITY = 1;

/** The size of `textChunks`' pieces, so a piece's UTF-8 encoding is a small, bounded step. */
const CHUNK_CHARS = 64 * 1024;

/**
 * How a request's answers may go: in `coding` (undefined: as they are, the client accepts no coding the gateway makes)
 * once they reach `minBytes`. An AnswerWriter compresses as it writes from there.
 */
export interface AnswerEncoding {
  readonly coding: ContentCoding | undefined;
  readonly minBytes: number;
}

/** The encoding of a request's answers; undefined when compression is off, and no answer varies with Accept-Encoding. */
export function answerEncoding(acceptEncoding: string | null | undefined, options: CompressionOptions): AnswerEncoding | undefined {
  return options.enabled ? { coding: acceptedCoding(acceptEncoding), minBytes: options.minBytes } : undefined;
}

/** True when an answer of `bytes` depends on Accept-Encoding, so it must say `Vary: Accept-Encoding` whatever it is sent in. */
export function varies(bytes: number, options: CompressionOptions): boolean {
  return options.enabled && bytes >= options.minBytes;
}

/**
 * RFC 9110 §12.5.3: the coding with the highest q-value that the gateway can produce, brotli on a tie (on the demo's
 * answers it is both smaller and cheaper than gzip at the levels above). A coding not listed is acceptable only
 * through `*`; q=0 refuses it. `x-gzip` is gzip. Elements that do not parse are ignored.
 */
export function acceptedCoding(acceptEncoding: string | null | undefined): ContentCoding | undefined {
  if (!acceptEncoding) return undefined;
  const q: Partial<Record<'br' | 'gzip' | '*', number>> = {};
  for (const element of acceptEncoding.split(',')) {
    const [name = '', ...params] = element.split(';').map((part) => part.trim());
    const coding = name.toLowerCase() === 'x-gzip' ? 'gzip' : name.toLowerCase();
    if (coding !== 'br' && coding !== 'gzip' && coding !== '*') continue;
    let weight = 1;
    for (const param of params) {
      const match = /^q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i.exec(param);
      if (match === null) {
        weight = Number.NaN;
        break;
      }
      weight = Number(match[1]);
    }
    if (!Number.isNaN(weight)) q[coding] = Math.max(q[coding] ?? 0, weight);
  }
  const br = q.br ?? q['*'] ?? 0;
  const gzip = q.gzip ?? q['*'] ?? 0;
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}

/**
 * zlib hands out its output in pieces of this size. Each piece is a round trip between zlib's thread and the event
 * loop, which takes it only between two slices of some request's work (up to 8 ms each): small pieces held a 13 MB
 * answer's compression to a few per slice, and most of it came after the answer was written.
 */
const OUTPUT_CHUNK_BYTES = 256 * 1024;

/** A compressor for an answer, which an AnswerWriter feeds as it writes. */
export function createCompressor(coding: ContentCoding): Gzip | BrotliCompress {
  if (coding === 'gzip') return createGzip({ level: GZIP_LEVEL, chunkSize: OUTPUT_CHUNK_BYTES });
  return createBrotliCompress({
    chunkSize: OUTPUT_CHUNK_BYTES,
    params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
  });
}

/**
 * The text in pieces of about 64 KiB, each cut between two characters: a piece is encoded to UTF-8 on its own, and a
 * surrogate pair cut in two would become two U+FFFD.
 */
export function* textChunks(text: string): Generator<string> {
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + CHUNK_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    yield text.slice(start, end);
    start = end;
  }
}
