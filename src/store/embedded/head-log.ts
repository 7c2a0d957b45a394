/**
 * `head_log`: what the head (head.ts) holds, durably. Each write that adds cells to the head, and each delete, puts
 * one record, keyed by its sequence number (u64 BE), in the transaction that changes the head:
 *   entry: [kind u8][row key length u16 BE][row key bytes] then
 *     CELLS:  [block length u32 BE][the cells as a block (blocks.ts)]
 *     REMOVE: [start f64 BE][end f64 BE], the columns the delete removed
 * Records are dropped once a flush pass has written every partition they touch (embedded-store.ts).
 */
import type { Database } from 'lmdb';
import { blockBound, writeBlock, type Cells } from './blocks.js';

const CELLS = 0;
const REMOVE = 1;

export type LogEntry =
  | { readonly kind: 'cells'; readonly keyBytes: Uint8Array; readonly block: Uint8Array }
  | { readonly kind: 'remove'; readonly keyBytes: Uint8Array; readonly start: number; readonly end: number };

/** Builds one record. */
export class LogRecord {
  private buffer: Buffer;
  private size = 0;

  /** `expectedBytes`: what the record will likely take, so it seldom grows. */
  constructor(expectedBytes: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(64, expectedBytes));
  }

  get empty(): boolean {
    return this.size === 0;
  }

  /** Logs cells that fit one block (blocks.ts). */
  cells(keyBytes: Uint8Array, cells: Cells): void {
    this.key(CELLS, keyBytes, 4 + blockBound(cells));
    const at = this.size + 4;
    const end = writeBlock(this.buffer, at, cells);
    this.buffer.writeUInt32BE(end - at, this.size);
    this.size = end;
  }

  remove(keyBytes: Uint8Array, start: number, end: number): void {
    this.key(REMOVE, keyBytes, 16);
    this.size = this.buffer.writeDoubleBE(start, this.size);
    this.size = this.buffer.writeDoubleBE(end, this.size);
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.size);
  }

  private key(kind: number, keyBytes: Uint8Array, rest: number): void {
    const needed = this.size + 3 + keyBytes.length + rest;
    if (needed > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
      this.buffer.copy(grown, 0, 0, this.size);
      this.buffer = grown;
    }
    this.buffer[this.size++] = kind;
    this.size = this.buffer.writeUInt16BE(keyBytes.length, this.size);
    this.buffer.set(keyBytes, this.size);
    this.size += keyBytes.length;
  }
}

export class HeadLog {
  private next = 0;
  /** Bytes of the records held. */
  bytes = 0;

  constructor(private readonly table: Database<Buffer, Buffer>) {
    for (const { key, value } of table.getRange()) {
      this.next = sequenceOf(key) + 1;
      this.bytes += value.length;
    }
  }

  /** The sequence number the next record takes. */
  get sequence(): number {
    return this.next;
  }

  /** Puts a record; within a write transaction. */
  put(record: LogRecord): void {
    const bytes = record.bytes();
    this.table.putSync(sequenceKey(this.next++), bytes);
    this.bytes += bytes.length;
  }

  /** Every record's entries, in order. */
  *entries(): Generator<LogEntry> {
    for (const { value } of this.table.getRange()) yield* entriesOf(value);
  }

  /** Removes the records before `sequence`; within a write transaction. */
  dropBefore(sequence: number): void {
    for (const { key, value } of this.table.getRange({ end: sequenceKey(sequence) })) {
      this.table.removeSync(key);
      this.bytes -= value.length;
    }
  }
}

function* entriesOf(record: Buffer): Generator<LogEntry> {
  let at = 0;
  while (at < record.length) {
    const kind = record[at]!;
    const keyLength = record.readUInt16BE(at + 1);
    const keyBytes = record.subarray(at + 3, at + 3 + keyLength);
    at += 3 + keyLength;
    if (kind === CELLS) {
      const length = record.readUInt32BE(at);
      yield { kind: 'cells', keyBytes, block: record.subarray(at + 4, at + 4 + length) };
      at += 4 + length;
    } else if (kind === REMOVE) {
      yield { kind: 'remove', keyBytes, start: record.readDoubleBE(at), end: record.readDoubleBE(at + 8) };
      at += 16;
    } else {
      throw new Error(`head_log: unknown entry kind ${kind} at byte ${at - 3 - keyLength}`);
    }
  }
}

function sequenceKey(sequence: number): Buffer {
  const key = Buffer.allocUnsafe(8);
  key.writeUInt32BE(Math.floor(sequence / 0x1_0000_0000), 0);
  key.writeUInt32BE(sequence % 0x1_0000_0000, 4);
  return key;
}

function sequenceOf(key: Buffer): number {
  return key.readUInt32BE(0) * 0x1_0000_0000 + key.readUInt32BE(4);
}
