/**
 * The embedded store's head: each partition's newest cells, held in memory as one encoded block (blocks.ts) and
 * logged durably in `head_log`, one record per write, in the transaction that puts the write's index rows.
 *
 * A collector sends each of its series a point or a few every scrape. Without the head, every write rewrote the last
 * block of every partition it named, and LMDB wrote each of those blocks' pages again at every commit: thousands of
 * bytes on disk for a point of twelve. With it, a write costs its log record, and a partition's cells reach
 * data_points in one put once its head is full or a flush pass comes (partition-data.ts).
 *
 * What holds at every commit, and lets scans and recovery do without a merge:
 * - A partition's head holds only cells after its last stored column (data_points), except cells a flush has written
 *   and that stay until the flush commits. A write's cells at or before the last stored column go to data_points.
 * - So a head cell at or before the last stored column a scan sees is stored (scans read the head after the blocks,
 *   and skip those), and the head a log replays is the logged cells after the last stored column, less those deleted.
 */
import {
  appendToBlock,
  BlockCursor,
  blockBound,
  emptyCells,
  encodeBlocks,
  mergeCells,
  readBlock,
  removeColumns,
  splitBlock,
} from './blocks.js';
import type { Cells } from './blocks.js';
import type { KnownPartition, PartitionNotes } from './partition-notes.js';

/**
 * A partition's head grows to this size; a write that would take it further writes it to data_points. It bounds the
 * head's memory per partition, and a flush of it is one put of a small block.
 */
const HEAD_PARTITION_BYTES = 2048;
/**
 * About what a partition with cells in the head takes besides them and its notes: the object of its bytes, its share of
 * their pool, its place among the partitions with cells. A sender of hundreds of thousands of series, each with a point
 * or two in the head, fills the head's budget with these.
 */
const PARTITION_BYTES = 256;

/** What a write or a flush changed in the head: undone if its transaction fails, settled once it commits. */
export class HeadChanges {
  private readonly changed: KnownPartition[] = [];
  /** Each changed partition's bytes before the change, and in `ends` its size, last column and cells, three a change. */
  private readonly blocks: (Buffer | undefined)[] = [];
  private readonly ends: number[] = [];
  private readonly flushed: KnownPartition[] = [];
  private readonly flushedThrough: number[] = [];
  private readonly namings: KnownPartition[] = [];

  constructor(private readonly head: Head) {}

  /** Notes that a record of this transaction names the partition in the log. */
  named(partition: KnownPartition): void {
    this.namings.push(partition);
  }

  /** Notes a partition's head as it is, before a change. */
  before(partition: KnownPartition): void {
    this.changed.push(partition);
    this.blocks.push(partition.bytes);
    this.ends.push(partition.size, partition.lastColumn, partition.cells);
  }

  /** Notes that the partition's cells up to `column` are in data_points once this commits. */
  written(partition: KnownPartition, column: number): void {
    this.flushed.push(partition);
    this.flushedThrough.push(column);
  }

  /**
   * Puts every changed head back as it was, the last change first. The bytes are copied: appends after an undo must
   * not write where a scan's view of the undone cells still reads.
   */
  undo(): void {
    for (let i = this.changed.length - 1; i >= 0; i--) {
      const size = this.ends[3 * i]!;
      const bytes = size === 0 ? undefined : Buffer.from(this.blocks[i]!.subarray(0, size));
      this.head.set(this.changed[i]!, bytes, size, this.ends[3 * i + 1]!, this.ends[3 * i + 2]!);
    }
    // Their naming never reached the log: the next record that logs them names them again.
    for (const partition of this.namings) partition.logEpoch = -1;
    this.clear();
  }

  /** The transaction committed: the cells it wrote to data_points leave the head. */
  committed(): void {
    for (let i = 0; i < this.flushed.length; i++) this.head.trim(this.flushed[i]!, this.flushedThrough[i]!);
    this.clear();
  }

  private clear(): void {
    this.changed.length = 0;
    this.blocks.length = 0;
    this.ends.length = 0;
    this.flushed.length = 0;
    this.flushedThrough.length = 0;
    this.namings.length = 0;
  }
}

/**
 * The head's cells are held in each partition's notes object (partition-notes.ts), found by the lookup every write
 * makes anyway; the notes hold every partition with cells.
 */
export class Head {
  /** What the head holds in memory: each partition's room for cells, and PARTITION_BYTES for each with cells. */
  bytes = 0;

  constructor(private readonly notes: PartitionNotes) {}

  /**
   * Adds cells after the partition's last stored column to its head, replacing cells of the same column. False, having
   * changed nothing, when the head would grow past HEAD_PARTITION_BYTES: the caller writes them to data_points.
   */
  add(partition: KnownPartition, cells: Cells, changes: HeadChanges | undefined, nowSeconds: number): boolean {
    // A batch of a series' history is seen at once not to fit, without encoding it.
    let least = 0;
    for (const value of cells.values) if ((least += 1 + value.length) > HEAD_PARTITION_BYTES) return false;
    if (partition.size > 0) {
      const appended =
        cells.columns[0]! > partition.lastColumn ? this.append(partition, cells) : this.insert(partition, cells);
      if (appended === 'full') return false;
      if (appended !== undefined) {
        changes?.before(partition);
        this.set(partition, appended.out, appended.size, appended.lastColumn, appended.cells);
        return true;
      }
    }
    // A new head, or cells of another layout than the head's (blocks.ts): all encoded again.
    const current = partition.block;
    const all = current === undefined ? cells : mergeCells(cellsOf(current, nowSeconds), cells);
    const blocks = encodeBlocks(all);
    if (blocks.length !== 1 || blocks[0]!.bytes.length > HEAD_PARTITION_BYTES) return false;
    const { bytes } = blocks[0]!;
    changes?.before(partition);
    this.set(partition, bytes, bytes.length, all.columns[all.columns.length - 1]!, all.columns.length);
    return true;
  }

  /** Newer cells than the head's, the usual write: appended where they fit, in a larger buffer when they do not. */
  private append(partition: KnownPartition, cells: Cells): Appended | 'full' | undefined {
    const n = cells.columns.length;
    const end = { lastColumn: partition.lastColumn, cells: partition.cells };
    const bytes = partition.bytes!;
    let out = bytes;
    let appended = appendToBlock(bytes, end, cells, out, out.length, partition.size);
    if (appended !== undefined && appended.appended < n && out.length < HEAD_PARTITION_BYTES) {
      out = Buffer.allocUnsafe(Math.min(HEAD_PARTITION_BYTES, 2 * out.length + blockBound(cells)));
      appended = appendToBlock(bytes, end, cells, out, out.length, partition.size);
    }
    if (appended === undefined) return undefined;
    if (appended.appended < n) return 'full';
    return { out, size: appended.size, lastColumn: cells.columns[n - 1]!, cells: partition.cells + n };
  }

  /**
   * Late cells (a sender's concurrent requests out of order): the head's bytes before the first cell they reach are
   * kept, the cells from there on merged with them and encoded after, in new bytes, for scans may read the old.
   */
  private insert(partition: KnownPartition, cells: Cells): Appended | 'full' | undefined {
    const split = splitBlock(partition.block!, cells.columns[0]!);
    const merged = mergeCells(split.rest, cells);
    const m = merged.columns.length;
    // As large as they can take, or the most a head holds: what does not fit then does not fit the head.
    const out = Buffer.allocUnsafe(Math.min(HEAD_PARTITION_BYTES, partition.bytes!.length + blockBound(merged)));
    const appended = appendToBlock(split.head, split.end, merged, out, out.length);
    if (appended === undefined) return undefined;
    if (appended.appended < m) return 'full';
    return { out, size: appended.size, lastColumn: merged.columns[m - 1]!, cells: split.end.cells + m };
  }

  /** Removes the partition's head cells of columns in [start, end). */
  remove(partition: KnownPartition, start: number, end: number, changes: HeadChanges | undefined): void {
    const current = partition.block;
    if (current === undefined) return;
    const cells = cellsOf(current, 0);
    const kept = removeColumns(cells, start, end);
    if (kept.columns.length === cells.columns.length) return;
    changes?.before(partition);
    this.setCells(partition, kept);
  }

  /** The cells of the partition's head after `column`, live at `nowSeconds`, as views of its bytes. */
  after(partition: KnownPartition, column: number, nowSeconds: number): Cells {
    const cells = emptyCells();
    const block = partition.block;
    if (block === undefined || partition.lastColumn <= column) return cells;
    const cursor = new BlockCursor().reset(block);
    while (cursor.next()) {
      if (cursor.column <= column || cursor.expired(nowSeconds)) continue;
      cells.columns.push(cursor.column);
      cells.expiries.push(cursor.expiry);
      cells.values.push(block.subarray(cursor.valueStart, cursor.valueEnd));
    }
    return cells;
  }

  /** Drops the partition's cells up to `column`, which a committed write put in data_points. */
  trim(partition: KnownPartition, column: number): void {
    const current = partition.block;
    if (current === undefined || partition.lastColumn <= column) return this.set(partition, undefined, 0, -1, 0);
    const cells = cellsOf(current, 0);
    const from = cells.columns.findIndex((c) => c > column);
    if (from > 0)
      this.setCells(partition, {
        columns: cells.columns.slice(from),
        expiries: cells.expiries.slice(from),
        values: cells.values.slice(from),
      });
  }

  set(partition: KnownPartition, bytes: Buffer | undefined, size: number, lastColumn: number, cells: number): void {
    this.bytes += (bytes?.length ?? 0) - (partition.bytes?.length ?? 0);
    if (partition.size === 0 && size > 0) {
      this.notes.hold(partition);
      this.bytes += PARTITION_BYTES;
    } else if (partition.size > 0 && size === 0) {
      this.notes.release(partition);
      this.bytes -= PARTITION_BYTES;
    }
    partition.bytes = bytes;
    partition.size = size;
    partition.lastColumn = lastColumn;
    partition.cells = cells;
  }

  /** Puts new bytes holding `cells`, which fit one block, in the partition's head. */
  private setCells(partition: KnownPartition, cells: Cells): void {
    const n = cells.columns.length;
    if (n === 0) return this.set(partition, undefined, 0, -1, 0);
    const { bytes } = encodeBlocks(cells)[0]!;
    this.set(partition, bytes, bytes.length, cells.columns[n - 1]!, n);
  }
}

/** A head's new bytes and how its block ends. */
interface Appended {
  readonly out: Buffer;
  readonly size: number;
  readonly lastColumn: number;
  readonly cells: number;
}

function cellsOf(block: Uint8Array, nowSeconds: number): Cells {
  const cells = emptyCells();
  readBlock(block, cells, nowSeconds);
  return cells;
}
