/**
 * `head_log`: what the head (head.ts) holds, durably. Each write that adds cells to the head, and each delete, puts
 * one record, keyed by its sequence number (u64 BE), in the transaction that changes the head. A record is entries:
 *   NAMED:  [0][row key length u16 BE][row key bytes][id u32 BE] then cells as below: names the partition `id`
 *   CELLS:  [2][id u32 BE][block length u32 BE][the cells as a block (blocks.ts)]
 *   REMOVE: [1][row key length u16 BE][row key bytes][start f64 BE][end f64 BE], the columns a delete removed
 * A row key takes several times the bytes of a write's cells for a series, so a partition's key is logged once per
 * epoch, with an id its later entries use. An epoch begins with each flush pass: the records it drops are those
 * before it, so the records left always name every partition they refer to. Ids start again with each epoch, and a
 * replay, reading records in order, takes the last naming of each.
 */
import type { Database } from 'lmdb';
import { blockBound, writeBlock, type Cells } from './blocks.js';
import type { HeadChanges } from './head.js';
import type { KnownPartition } from './partition-notes.js';

const NAMED = 0;
const REMOVE = 1;
const CELLS = 2;

export type LogEntry =
  | { readonly kind: 'cells'; readonly keyBytes: Uint8Array; readonly block: Uint8Array }
  | { readonly kind: 'remove'; readonly keyBytes: Uint8Array; readonly start: number; readonly end: number };

/** Builds one record. */
export class LogRecord {
  private buffer: Buffer;
  private size = 0;

  /** `expectedBytes`: what the record will likely take, so it seldom grows. */
  constructor(
    private readonly log: HeadLog,
    expectedBytes: number,
  ) {
    this.buffer = Buffer.allocUnsafe(Math.max(64, expectedBytes));
  }

  get empty(): boolean {
    return this.size === 0;
  }

  /**
   * Logs a partition's cells, which fit one block (blocks.ts), naming the partition by its row key bytes first if this
   * epoch has not: `changes` forgets that naming if the record never commits.
   */
  cells(partition: KnownPartition, keyBytes: Uint8Array, cells: Cells, changes: HeadChanges): void {
    const bound = 9 + blockBound(cells);
    let at: number;
    if (partition.logEpoch === this.log.epoch) {
      this.room(bound);
      this.buffer[this.size] = CELLS;
      at = this.buffer.writeUInt32BE(partition.logId, this.size + 1);
    } else {
      this.room(3 + keyBytes.length + bound);
      changes.named(partition);
      partition.logEpoch = this.log.epoch;
      partition.logId = this.log.nextId++;
      this.buffer[this.size] = NAMED;
      this.buffer.writeUInt16BE(keyBytes.length, this.size + 1);
      this.buffer.set(keyBytes, this.size + 3);
      at = this.buffer.writeUInt32BE(partition.logId, this.size + 3 + keyBytes.length);
    }
    const end = writeBlock(this.buffer, at + 4, cells);
    this.buffer.writeUInt32BE(end - at - 4, at);
    this.size = end;
  }

  remove(keyBytes: Uint8Array, start: number, end: number): void {
    this.room(19 + keyBytes.length);
    this.buffer[this.size] = REMOVE;
    this.buffer.writeUInt16BE(keyBytes.length, this.size + 1);
    this.buffer.set(keyBytes, this.size + 3);
    this.size = this.buffer.writeDoubleBE(start, this.size + 3 + keyBytes.length);
    this.size = this.buffer.writeDoubleBE(end, this.size);
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.size);
  }

  private room(bytes: number): void {
    const needed = this.size + bytes;
    if (needed <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.size);
    this.buffer = grown;
  }
}

export class HeadLog {
  private next = 0;
  /** Bytes of the records held. */
  bytes = 0;
  /** Counts the flush passes begun since the store opened; partitions name themselves once in each. */
  epoch = 0;
  /** The id the next partition named in this epoch takes. */
  nextId = 0;

  constructor(private readonly table: Database<Buffer, Buffer>) {
    for (const { key, value } of table.getRange()) {
      this.next = sequenceOf(key) + 1;
      this.bytes += value.length;
    }
  }

  /** A record to fill, of about `expectedBytes`. */
  record(expectedBytes: number): LogRecord {
    return new LogRecord(this, expectedBytes);
  }

  /** Puts a record; within a write transaction. */
  put(record: LogRecord): void {
    const bytes = record.bytes();
    this.table.putSync(sequenceKey(this.next++), bytes);
    this.bytes += bytes.length;
  }

  /** Begins an epoch, as a flush pass begins; returns the sequence number of its first record. */
  newEpoch(): number {
    this.epoch++;
    this.nextId = 0;
    return this.next;
  }

  /** Every record's entries, in order, each cells entry with the row key its partition was last named by. */
  *entries(): Generator<LogEntry> {
    const named = new Map<number, Uint8Array>();
    for (const { key, value } of this.table.getRange()) yield* entriesOf(value, sequenceOf(key), named);
  }

  /** Removes the records before `sequence`; within a write transaction. */
  dropBefore(sequence: number): void {
    for (const { key, value } of this.table.getRange({ end: sequenceKey(sequence) })) {
      this.table.removeSync(key);
      this.bytes -= value.length;
    }
  }
}

function* entriesOf(record: Buffer, sequence: number, named: Map<number, Uint8Array>): Generator<LogEntry> {
  let at = 0;
  while (at < record.length) {
    const kind = record[at]!;
    if (kind === REMOVE) {
      const keyLength = record.readUInt16BE(at + 1);
      const keyBytes = record.subarray(at + 3, at + 3 + keyLength);
      at += 3 + keyLength;
      yield { kind: 'remove', keyBytes, start: record.readDoubleBE(at), end: record.readDoubleBE(at + 8) };
      at += 16;
      continue;
    }
    if (kind === NAMED) {
      const keyLength = record.readUInt16BE(at + 1);
      // Copied: lmdb-js reuses the record's buffer once the next record is read.
      const keyBytes = Uint8Array.prototype.slice.call(record, at + 3, at + 3 + keyLength);
      at += 3 + keyLength;
      named.set(record.readUInt32BE(at), keyBytes);
    } else if (kind !== CELLS) {
      throw new Error(`head_log record ${sequence}: unknown entry kind ${kind} at byte ${at}`);
    } else {
      at += 1;
    }
    const id = record.readUInt32BE(at);
    const keyBytes = named.get(id);
    if (keyBytes === undefined) throw new Error(`head_log record ${sequence}: partition ${id} was never named`);
    const length = record.readUInt32BE(at + 4);
    yield { kind: 'cells', keyBytes, block: record.subarray(at + 8, at + 8 + length) };
    at += 8 + length;
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
