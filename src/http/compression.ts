/**
 * Compressed answers for both front ends: which coding a client's Accept-Encoding allows (brotli, else gzip), the
 * levels, the size below which an answer goes as it is, and the compressor an AnswerWriter feeds chunk by chunk,
 * which works on zlib's threads, so no answer, however large, holds the event loop while it is compressed.
 */
import { finished } from 'node:stream/promises';
import { constants, crc32, createBrotliCompress, deflateRaw } from 'node:zlib';

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
 * about what brotli 0 does and sends markedly less of an aggregated (dashboard) answer.
 */
const GZIP_LEVEL = 1;
const BROTLI_QUALITY = 1;

/**
 * gzip's window: 4 KiB, not zlib's 32. At level 1 zlib sends fewer bytes of the answers' JSON with it, for the
 * same CPU or less (bench/compression.ts, bench/RESULTS.md "gzip's window"): JSON's keys and punctuation repeat
 * within a few hundred bytes, and the farther matches a large window offers first are no longer. Any inflater reads
 * it (RFC 1951 allows any distance up to 32 KiB; gzip does not say the window).
 */
export const GZIP_WINDOW_BITS = 12;

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
export function answerEncoding(
  acceptEncoding: string | null | undefined,
  options: CompressionOptions,
): AnswerEncoding | undefined {
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
 * What an AnswerWriter hands an answer's text to, piece by piece in order, as it writes: the compression runs on zlib's
 * threads, so no answer, however large, holds the event loop while it is compressed.
 */
export interface AnswerCompressor {
  /** The next piece of the text, or of its UTF-8 bytes. */
  write(text: string | Buffer): void;
  /** True while a piece handed over is still being compressed and the next would only queue behind it. */
  readonly busy: boolean;
  /** The compressed answer, once every piece is. */
  end(): Promise<Buffer[]>;
  /** Frees what is under way: the answer will not be sent. */
  destroy(): void;
  readonly destroyed: boolean;
}

export function answerCompressor(coding: ContentCoding): AnswerCompressor {
  return coding === 'gzip' ? new GzipSegments() : new BrotliStream();
}

/**
 * gzip from pieces compressed on their own, several at once on zlib's threads: even zlib's fastest level compresses
 * an answer's JSON slower than the answer is written, so one stream fell behind the writing and left the end of a
 * dashboard answer still to compress after its last chunk (bench/RESULTS.md). Each piece is a raw deflate
 * stream ended by a sync flush, which leaves it on a byte boundary with no final block, so the pieces laid end to end
 * are one deflate stream (as pigz makes them); then an empty final block, and the gzip trailer of the whole text's CRC-32
 * and length (RFC 1952). A piece does not see the text before it: over pieces of hundreds of kilobytes that costs
 * nothing measurable.
 */
class GzipSegments implements AnswerCompressor {
  private readonly pieces: Promise<Buffer>[] = [];
  private crc = 0;
  private length = 0;
  destroyed = false;

  readonly busy = false;

  write(text: string | Buffer): void {
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    this.crc = crc32(bytes, this.crc);
    this.length += bytes.length;
    const piece = deflateRawPiece(bytes, constants.Z_SYNC_FLUSH);
    piece.catch(() => undefined);
    this.pieces.push(piece);
  }

  async end(): Promise<Buffer[]> {
    const pieces = await Promise.all([...this.pieces, deflateRawPiece(Buffer.alloc(0), constants.Z_FINISH)]);
    if (this.destroyed) throw new Error('the answer was discarded');
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(this.crc >>> 0, 0);
    trailer.writeUInt32LE(this.length % 2 ** 32, 4);
    return [GZIP_HEADER, ...pieces, trailer];
  }

  destroy(): void {
    this.destroyed = true;
    this.pieces.length = 0;
  }
}

/** A gzip member's header: deflate, no flags, no time, Unix (RFC 1952 §2.3). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]);

/** `bytes` as raw deflate at GZIP_LEVEL and GZIP_WINDOW_BITS ended by `flush`, in one round trip to zlib's thread when it fits. */
function deflateRawPiece(bytes: Buffer, flush: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Room for the whole output, so zlib's thread comes back once, not once per 16 KiB (deflate may add a little).
    const chunkSize = Math.max(MIN_OUTPUT_CHUNK_BYTES, bytes.length + 1024);
    deflateRaw(
      bytes,
      { level: GZIP_LEVEL, windowBits: GZIP_WINDOW_BITS, finishFlush: flush, chunkSize },
      (error, out) => (error ? reject(error) : resolve(out)),
    );
  });
}

const MIN_OUTPUT_CHUNK_BYTES = 64 * 1024;

/**
 * Brotli as one stream (independent brotli streams cannot be laid end to end): zlib hands out its output in pieces of
 * OUTPUT_CHUNK_BYTES, each a round trip between its thread and the event loop.
 */
class BrotliStream implements AnswerCompressor {
  private readonly stream = createBrotliCompress({
    chunkSize: OUTPUT_CHUNK_BYTES,
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  });
  private readonly out: Buffer[] = [];
  /** Pieces written and not compressed yet (a feed of the writer may be several). */
  private compressing = 0;

  constructor() {
    this.stream.on('data', (bytes: Buffer) => this.out.push(bytes));
    // `end` reports a failure through `finished`; until then, an error must not go unheard.
    this.stream.on('error', () => undefined);
  }

  get busy(): boolean {
    return this.compressing > 0;
  }

  write(text: string | Buffer): void {
    this.compressing++;
    this.stream.write(text, () => {
      this.compressing--;
    });
  }

  async end(): Promise<Buffer[]> {
    this.stream.end();
    await finished(this.stream);
    return this.out;
  }

  destroy(): void {
    this.stream.destroy();
  }

  get destroyed(): boolean {
    return this.stream.destroyed;
  }
}

/**
 * zlib hands out a stream's output in pieces of this size. Each piece is a round trip between zlib's thread and the
 * event loop, which takes it only between two slices of some request's work (each up to lib/time-slice.ts's
 * SLICE_MS): small pieces held a large answer's compression to a few per slice, and most of it came after the answer
 * was written.
 */
const OUTPUT_CHUNK_BYTES = 256 * 1024;

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
