/**
 * Writes a request's answer as JSON text, chunk by chunk: every chunk's bytes count against the request's answer
 * budget as it is made, and the writer yields the thread between chunks, so a large answer neither blocks other
 * requests nor grows past MAX_RESPONSE_BYTES before it is refused. An answer the client takes compressed is
 * compressed as it is written, on zlib's threads, while the thread writes the next chunks: the answer is ready to
 * send, with its length, shortly after its last chunk is written. Both front ends write their answers through it.
 */
import type { RequestBudget } from '../engine/budget.js';
import { yieldIfDue, type Lane } from '../lib/time-slice.js';
import {
  answerCompressor,
  textChunks,
  type AnswerCompressor,
  type AnswerEncoding,
  type ContentCoding,
} from './compression.js';

/** Characters gathered before they are counted: large enough that counting costs nothing, small next to any budget. */
const CHUNK_CHARS = 64 * 1024;
/**
 * Text handed to the compressor at a time, at the least (a busy one gets what was written meanwhile as one piece).
 * Each piece is a round trip to zlib's thread that the event loop takes only between two slices of work: with pieces
 * of 64 KiB, most of a large answer was still to compress when its last chunk was written (bench/RESULTS.md).
 */
const COMPRESSOR_PIECE_CHARS = 1024 * 1024;
/** Array items serialized by one JSON.stringify call between two checks of the time slice. */
const ITEMS_PER_RUN = 2048;

/** A written answer, ready to send. */
export interface Answer {
  /** The body as sent: the JSON text in chunks of about 64 KiB, or its compressed bytes in `coding`. */
  readonly body: readonly (string | Buffer)[];
  /** The content coding of `body`; undefined when it is the text itself. */
  readonly coding: ContentCoding | undefined;
  /** The length of the body as sent, in bytes (the Content-Length). */
  readonly bodyBytes: number;
  /** The length of the JSON text in UTF-8 bytes, which MAX_RESPONSE_BYTES bounds. */
  readonly bytes: number;
  /** True when the answer depends on Accept-Encoding: it must say `Vary: Accept-Encoding`, whatever it is sent in. */
  readonly varies: boolean;
}

export class AnswerWriter {
  /** Counted chunks not handed on yet: all of them for an answer sent as it is, the next piece for the compressor. */
  private readonly chunks: (string | Buffer)[] = [];
  /** The length of `chunks` (characters of a string, bytes of a Buffer: near enough to cut pieces by). */
  private chunkLength = 0;
  private pending = '';
  private bytes = 0;
  /** Started once the answer is large enough to be compressed; it takes every chunk from then on. */
  private compressor: AnswerCompressor | undefined;

  /**
   * `budget` counts the answer's bytes (none for a text that is already made); `encoding` says whether and how the
   * answer may be compressed (none: never).
   */
  constructor(
    private readonly budget: RequestBudget | undefined,
    private readonly lane?: Lane,
    private readonly encoding?: AnswerEncoding,
  ) {}

  write(text: string): void {
    this.pending += text;
    if (this.pending.length >= CHUNK_CHARS) this.flush();
  }

  /** JSON text already encoded as UTF-8 (JsonBytes), after what was written before it. */
  writeBytes(bytes: Buffer): void {
    this.flush();
    this.take(bytes, bytes.length, true);
  }

  /** Resolves once the answer may go on (another request's turn may come first); undefined when it may go on now. */
  pause(): Promise<void> | undefined {
    return yieldIfDue(this.lane);
  }

  /**
   * The whole answer, counted, once its compression (if any) has caught up; `closing` is its last text, which is not
   * counted (GraphQL's errors and statistics after the data). The chunks are sent one by one, so no copy of the whole
   * answer is ever made.
   */
  async finish(closing = ''): Promise<Answer> {
    this.flush();
    this.pending = closing;
    this.hand(false);
    this.feedCompressor();
    const varies = this.encoding !== undefined && this.bytes >= this.encoding.minBytes;
    const compressor = this.compressor;
    if (compressor === undefined)
      return { body: this.chunks, coding: undefined, bodyBytes: this.bytes, bytes: this.bytes, varies };
    const body = await compressor.end();
    return {
      body,
      coding: this.encoding!.coding,
      bodyBytes: body.reduce((n, bytes) => n + bytes.length, 0),
      bytes: this.bytes,
      varies,
    };
  }

  /** Stops an answer that will not be sent (over its budget, or its request failed): its compressor is freed now. */
  discard(): void {
    this.compressor?.destroy();
    this.compressor = undefined;
    this.chunks.length = 0;
  }

  /**
   * Counts what is written so far (the compressor, if any, takes it in pieces of 1 MiB); throws BudgetExceededError
   * once the answer is over its budget. `finish` does it too: call it first when the failure must come before the
   * closing text is known.
   */
  flush(): void {
    this.hand(true);
  }

  private hand(counted: boolean): void {
    if (this.pending.length === 0) return;
    const text = this.pending;
    this.pending = '';
    this.take(text, Buffer.byteLength(text, 'utf8'), counted);
  }

  /** Counts a chunk of `bytes` (unless `counted` is false) and keeps it for the answer or the compressor. */
  private take(chunk: string | Buffer, bytes: number, counted: boolean): void {
    try {
      // Throws BudgetExceededError (and aborts the request) once the answer is over its budget.
      if (counted) this.budget?.addAnswerBytes(bytes);
    } catch (error) {
      this.discard();
      throw error;
    }
    this.bytes += bytes;
    this.chunks.push(chunk);
    this.chunkLength += chunk.length;
    const coding = this.encoding?.coding;
    if (this.compressor === undefined && coding !== undefined && this.bytes >= this.encoding!.minBytes)
      this.compressor = answerCompressor(coding);
    if (this.chunkLength >= COMPRESSOR_PIECE_CHARS && this.compressor?.busy !== true) this.feedCompressor();
  }

  /**
   * Hands the chunks gathered so far to the compressor, as few pieces as their bytes allow without copying the large
   * ones; zlib queues what it has not compressed yet.
   */
  private feedCompressor(): void {
    if (this.compressor === undefined || this.chunks.length === 0) return;
    const chunks = this.chunks;
    if (chunks.every((chunk) => typeof chunk === 'string')) this.compressor.write(chunks.join(''));
    else for (const piece of compressorPieces(chunks)) this.compressor.write(piece);
    this.chunks.length = 0;
    this.chunkLength = 0;
  }
}

/**
 * A piece handed to the compressor is a round trip to zlib's thread (and a deflate stream of gzip's own): smaller
 * ones are copied together, larger ones go as they are.
 */
const LEAST_COMPRESSOR_PIECE_BYTES = 256 * 1024;

/**
 * `chunks` as pieces for the compressor, in order. Consecutive chunks that are adjacent bytes of one buffer (JsonBytes
 * hands out its pieces so) become one view of them, with no copy: copying a large answer into pieces of 1 MiB cost
 * CPU for nothing. Pieces smaller than LEAST_COMPRESSOR_PIECE_BYTES are copied together with the small ones beside
 * them.
 */
export function compressorPieces(chunks: readonly (string | Buffer)[]): Buffer[] {
  const views: Buffer[] = [];
  for (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const last = views[views.length - 1];
    if (last !== undefined && last.buffer === bytes.buffer && last.byteOffset + last.length === bytes.byteOffset) {
      views[views.length - 1] = Buffer.from(last.buffer, last.byteOffset, last.length + bytes.length);
    } else views.push(bytes);
  }
  const pieces: Buffer[] = [];
  let small: Buffer[] = [];
  let smallBytes = 0;
  const copySmall = () => {
    if (small.length > 0) pieces.push(small.length === 1 ? small[0]! : Buffer.concat(small, smallBytes));
    small = [];
    smallBytes = 0;
  };
  for (const view of views) {
    if (view.length >= LEAST_COMPRESSOR_PIECE_BYTES) {
      copySmall();
      pieces.push(view);
      continue;
    }
    small.push(view);
    smallBytes += view.length;
    if (smallBytes >= LEAST_COMPRESSOR_PIECE_BYTES) copySmall();
  }
  copySmall();
  return pieces;
}

/** A text made elsewhere (REST's short bodies) as an answer to send: not counted, compressed when it is large enough. */
export function textAnswer(text: string, encoding: AnswerEncoding | undefined): Promise<Answer> {
  const out = new AnswerWriter(undefined, undefined, encoding);
  for (const chunk of textChunks(text)) out.write(chunk);
  return out.finish();
}

/**
 * A value that makes its own JSON text, piece by piece: a list of points rendered straight from their columns, with
 * no object per point. The writer writes its pieces and may yield between them; JSON.stringify, which the answers
 * that bypass the writer go through (subscriptions, batched operations), gets the same text parsed, from `toJSON`.
 */
export abstract class JsonPieces {
  /** The value's JSON text as UTF-8, in pieces of a few thousand items at most. */
  abstract pieces(): Iterable<Buffer>;

  /** Kept once made: a live update's answer is encoded for each of its subscribers. */
  private json: unknown;

  toJSON(): unknown {
    this.json ??= JSON.parse(Buffer.concat(Array.from(this.pieces())).toString('utf8'));
    return this.json;
  }
}

/**
 * Writes `value` as JSON.stringify would (plain data: objects, arrays, strings, finite numbers, booleans, null, and
 * JsonPieces), with long arrays cut into runs so the writer can count and yield between them.
 */
export async function writeJson(value: unknown, out: AnswerWriter): Promise<void> {
  if (value instanceof JsonPieces) return writePieces(value, out);
  if (Array.isArray(value)) return writeArray(value, out);
  if (value !== null && typeof value === 'object') return writeObject(value as Record<string, unknown>, out);
  out.write(JSON.stringify(value) ?? 'null');
}

async function writePieces(value: JsonPieces, out: AnswerWriter): Promise<void> {
  for (const piece of value.pieces()) {
    out.writeBytes(piece);
    const turn = out.pause();
    if (turn !== undefined) await turn;
  }
}

async function writeArray(items: readonly unknown[], out: AnswerWriter): Promise<void> {
  out.write('[');
  for (let start = 0; start < items.length; start += ITEMS_PER_RUN) {
    const end = Math.min(items.length, start + ITEMS_PER_RUN);
    if (start > 0) out.write(',');
    if (allSmall(items, start, end)) {
      // One native call for a run of points or rows: the brackets of the run's own array are dropped.
      out.write(JSON.stringify(items.slice(start, end)).slice(1, -1));
    } else {
      for (let i = start; i < end; i++) {
        if (i > start) out.write(',');
        await writeJson(items[i], out);
      }
    }
    const turn = out.pause();
    if (turn !== undefined) await turn;
  }
  out.write(']');
}

async function writeObject(object: Record<string, unknown>, out: AnswerWriter): Promise<void> {
  out.write('{');
  let first = true;
  for (const key of Object.keys(object)) {
    const value = object[key];
    // JSON.stringify leaves such members out.
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    out.write(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    await writeJson(value, out);
  }
  out.write('}');
}

/**
 * Values (at any depth) an item may hold and still be written with its run in one JSON.stringify call: a row with its
 * series' tags holds a few; a series with its points holds thousands and is written piece by piece.
 */
const SMALL_ITEM_VALUES = 32;

/**
 * True when items [start, end) are scalars or hold at most SMALL_ITEM_VALUES values each: a run small enough to
 * stringify at once. JsonPieces count as large: they write themselves.
 */
function allSmall(items: readonly unknown[], start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const item = items[i];
    if (item !== null && typeof item === 'object' && spent(item, SMALL_ITEM_VALUES + 1) < 0) return false;
  }
  return true;
}

/** `budget` less the values `container` holds at any depth, or a negative number as soon as it runs out. */
function valuesLeft(container: object, budget: number): number {
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length && budget >= 0; i++) budget = spent(container[i], budget);
  } else {
    for (const key in container) {
      budget = spent((container as Record<string, unknown>)[key], budget);
      if (budget < 0) break;
    }
  }
  return budget;
}

/** `budget` less `member` and what it holds. */
function spent(member: unknown, budget: number): number {
  if (member instanceof JsonPieces) return -1;
  return member !== null && typeof member === 'object' ? valuesLeft(member, budget - 1) : budget - 1;
}
