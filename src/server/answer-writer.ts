/**
 * Writes a request's answer as JSON text, chunk by chunk: every chunk's bytes count against the request's answer
 * budget as it is made, and the writer yields the thread between chunks, so a large answer neither blocks other
 * requests nor grows past MAX_RESPONSE_BYTES before it is refused. Both front ends write their answers through it.
 */
import type { RequestBudget } from '../engine/budget.js';
import { yieldIfDue, type Lane } from '../time-slice.js';

/** Characters gathered before they are counted: large enough that counting costs nothing, small next to any budget. */
const CHUNK_CHARS = 64 * 1024;
/** Array items serialized by one JSON.stringify call between two checks of the time slice. */
const ITEMS_PER_RUN = 2048;

/** A written answer: its text in chunks of about 64 KiB, and its length in UTF-8 bytes. */
export interface Answer {
  readonly chunks: readonly string[];
  readonly bytes: number;
}

export class AnswerWriter {
  private readonly chunks: string[] = [];
  private pending = '';
  private bytes = 0;

  constructor(
    private readonly budget: RequestBudget,
    private readonly lane?: Lane,
  ) {}

  write(text: string): void {
    this.pending += text;
    if (this.pending.length >= CHUNK_CHARS) this.flush();
  }

  /** Resolves once the answer may go on (another request's turn may come first); undefined when it may go on now. */
  pause(): Promise<void> | undefined {
    return yieldIfDue(this.lane);
  }

  /** The whole answer, counted; the chunks are sent one by one, so no copy of the whole answer is ever made. */
  finish(): Answer {
    this.flush();
    return { chunks: this.chunks, bytes: this.bytes };
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const bytes = Buffer.byteLength(this.pending, 'utf8');
    // Throws BudgetExceededError (and aborts the request) once the answer is over its budget.
    this.budget.addAnswerBytes(bytes);
    this.bytes += bytes;
    this.chunks.push(this.pending);
    this.pending = '';
  }
}

/**
 * Writes `value` as JSON.stringify would (plain data: objects, arrays, strings, finite numbers, booleans, null),
 * with long arrays cut into runs so the writer can count and yield between them.
 */
export async function writeJson(value: unknown, out: AnswerWriter): Promise<void> {
  if (Array.isArray(value)) return writeArray(value, out);
  if (value !== null && typeof value === 'object') return writeObject(value as Record<string, unknown>, out);
  out.write(JSON.stringify(value) ?? 'null');
}

async function writeArray(items: readonly unknown[], out: AnswerWriter): Promise<void> {
  out.write('[');
  for (let start = 0; start < items.length; start += ITEMS_PER_RUN) {
    const end = Math.min(items.length, start + ITEMS_PER_RUN);
    if (start > 0) out.write(',');
    if (allFlat(items, start, end)) {
      // One native call for a run of points: the brackets of the run's own array are dropped.
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

/** True when items [start, end) are scalars or objects of scalars: small enough to stringify a run at once. */
function allFlat(items: readonly unknown[], start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const item = items[i];
    if (item === null || typeof item !== 'object') continue;
    if (Array.isArray(item)) return false;
    for (const key in item) {
      const member = (item as Record<string, unknown>)[key];
      if (member !== null && typeof member === 'object') return false;
    }
  }
  return true;
}
