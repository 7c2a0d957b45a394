/**
 * The embedded store's cells, wherever they are: each partition's stored blocks (data-points.ts) and its head (head.ts),
 * logged in head_log (head-log.ts). Writes, deletes and scans reach both through here; flush passes move the head into
 * the blocks, a chunk of partitions per round (write-rounds.ts), and drop the log records they cover.
 */
import type { Slice } from '../../model/series.js';
import type { RowKey, ScanOptions } from '../store.js';
import { emptyCells, mergeCells, readBlock, type Cells } from './blocks.js';
import type { DataPoints } from './data-points.js';
import type { Head, HeadChanges } from './head.js';
import type { HeadLog, LogRecord } from './head-log.js';
import { partitionId, partitionPrefix } from './keys.js';
import type { KnownPartition, PartitionNotes } from './partition-notes.js';
import type { WriteRounds } from './write-rounds.js';

/** What the head holds, and its log, before a flush pass starts; and how long a logged write waits for one at most. */
const HEAD_BUDGET_BYTES = 64 * 1024 * 1024;
const LOG_BUDGET_BYTES = 64 * 1024 * 1024;
const PASS_INTERVAL_MS = 60_000;
/** Partitions a flush pass writes in one round. */
const FLUSH_CHUNK = 2000;

export class PartitionData {
  /** The flush pass under way, if any. */
  private pass: Promise<void> | undefined;
  private readonly passTimer: NodeJS.Timeout;
  private closed = false;
  /** Set once the log has been replayed: a store that could not replay it leaves it for the next open to. */
  private replayed = false;

  constructor(
    private readonly head: Head,
    private readonly points: DataPoints,
    private readonly headLog: HeadLog,
    private readonly notes: PartitionNotes,
    private readonly rounds: WriteRounds,
    private readonly nowSeconds: () => number,
  ) {
    this.passTimer = setInterval(() => {
      if (this.headLog.bytes > 0) this.startPass();
    }, PASS_INTERVAL_MS).unref();
  }

  /** The partition's cells in range: its blocks, then the head's cells after them (data-points.ts). */
  scan(keyBytes: Uint8Array, key: RowKey, startMs: number, endMs: number, options: ScanOptions): AsyncGenerator<Slice> {
    // Taken before the blocks are read: cells a flush takes out of it later are in the blocks the scan reads.
    const head = this.notes.find(partitionId(keyBytes))?.block;
    return this.points.scan(keyBytes, key, startMs, endMs, options, this.nowSeconds(), head);
  }

  /**
   * Writes a partition's cells, within a round: those at or before its last stored column to its blocks, the rest to
   * its head and to `record`; when the head would grow too large, it goes to the blocks with them.
   */
  write(
    known: KnownPartition,
    keyBytes: Uint8Array,
    incoming: Cells,
    nowSeconds: number,
    changes: HeadChanges,
    record: LogRecord,
  ): void {
    const stored = this.points.storedLast(keyBytes, known);
    const { columns } = incoming;
    let split = 0;
    while (split < columns.length && columns[split]! <= stored) split++;
    if (split > 0) this.points.write(partitionPrefix(keyBytes), known, slice(incoming, 0, split), nowSeconds);
    if (split === columns.length) return;
    const newest = split === 0 ? incoming : slice(incoming, split, columns.length);
    if (this.head.add(known, newest, changes, nowSeconds)) record.cells(known, keyBytes, newest, changes);
    else this.spill(known, keyBytes, newest, nowSeconds, changes);
  }

  /** A record for a write's head cells, of about `partitions` entries. */
  record(partitions: number): LogRecord {
    return this.headLog.record(partitions * 32);
  }

  /** Puts the record of a write's head cells, within its round. */
  log(record: LogRecord): void {
    if (!record.empty) this.headLog.put(record);
  }

  /** Removes the partition's cells of columns in [start, end), within a round, and logs it for replays. */
  remove(keyBytes: Uint8Array, prefix: Buffer, start: number, end: number, changes: HeadChanges): void {
    const known = this.notes.find(partitionId(keyBytes));
    if (known !== undefined) this.head.remove(known, start, end, changes);
    // Logged, so that a replay takes out of the head what an older record put back in it.
    const record = this.headLog.record(keyBytes.length + 32);
    record.remove(keyBytes, start, end);
    this.headLog.put(record);
    if (end === Infinity) this.points.removePartition(prefix);
    else if (start < end) this.points.removeColumns(prefix, start, end, this.nowSeconds());
  }

  /** Starts a flush pass when the head or its log is over its budget. */
  written(): void {
    if (this.head.bytes > HEAD_BUDGET_BYTES || this.headLog.bytes > LOG_BUDGET_BYTES) this.startPass();
  }

  /** Writes the head to data_points and drops its log. */
  async flush(): Promise<void> {
    await this.pass;
    await this.flushHead();
  }

  /** Ends passes, then flushes what the head holds, so the store on disk holds every point without its log. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.passTimer);
    await this.pass;
    await this.rounds.idle();
    if (this.replayed && this.headLog.bytes > 0) await this.flushHead().catch(() => undefined);
  }

  /**
   * Builds the head again from its log, before the store serves: each record's cells after their partition's last
   * stored column (the others were flushed), less what a delete after them removed.
   */
  async replay(): Promise<void> {
    const nowSeconds = this.nowSeconds();
    for (const entry of this.headLog.entries()) {
      if (entry.kind === 'remove') {
        const known = this.notes.find(partitionId(entry.keyBytes));
        if (known !== undefined) this.head.remove(known, entry.start, entry.end, undefined);
        continue;
      }
      const known = this.notes.of(entry.keyBytes);
      const stored = this.points.storedLast(entry.keyBytes, known);
      const logged = emptyCells();
      readBlock(entry.block, logged, nowSeconds);
      const from = logged.columns.findIndex((column) => column > stored);
      if (from < 0) continue;
      const cells = slice(logged, from, logged.columns.length);
      if (this.head.add(known, cells, undefined, nowSeconds)) continue;
      // A head that held these cells when they were written need not hold them now (a smaller budget): written at
      // once, before the next record, with values copied out of lmdb-js's buffer, which the next read reuses.
      const copied = { ...cells, values: cells.values.map((value) => Uint8Array.from(value)) };
      await this.rounds.run((changes) => this.spill(known, entry.keyBytes, copied, this.nowSeconds(), changes));
    }
    this.replayed = true;
  }

  /** Writes the head's cells with `cells` to data_points; the head lets them go once that is durable. */
  private spill(known: KnownPartition, keyBytes: Uint8Array, cells: Cells, nowSeconds: number, changes: HeadChanges) {
    const stored = this.points.storedLast(keyBytes, known);
    const merged = mergeCells(this.head.after(known, stored, nowSeconds), cells);
    if (merged.columns.length > 0) this.points.write(partitionPrefix(keyBytes), known, merged, nowSeconds);
    changes.written(known, known.lastColumn);
  }

  /** Starts a flush pass unless one is under way; a failed pass leaves the head and its log as they were. */
  private startPass(): void {
    if (this.pass !== undefined || this.closed || !this.replayed) return;
    this.pass = this.flushHead()
      .catch(() => undefined)
      .finally(() => {
        this.pass = undefined;
      });
  }

  /**
   * Writes every partition's head to data_points, a chunk of partitions per round so writes and reads go on between
   * them, then drops the log records written before it began: each partition they touch is written by then, or had
   * no cells left in the head.
   */
  private async flushHead(): Promise<void> {
    const through = this.headLog.newEpoch();
    const partitions = this.notes.withCells();
    for (let i = 0; i < partitions.length; i += FLUSH_CHUNK) {
      const chunk = partitions.slice(i, i + FLUSH_CHUNK);
      await this.rounds.run((changes) =>
        this.notes.forgetIfThrows(() => {
          const nowSeconds = this.nowSeconds();
          for (const known of chunk)
            if (known.size > 0) this.spill(known, known.keyBytes, emptyCells(), nowSeconds, changes);
        }),
      );
    }
    await this.rounds.run(() => this.headLog.dropBefore(through));
  }
}

/** The cells [from, to), as views of the same values. */
function slice(cells: Cells, from: number, to: number): Cells {
  return {
    columns: cells.columns.slice(from, to),
    expiries: cells.expiries.slice(from, to),
    values: cells.values.slice(from, to),
  };
}
