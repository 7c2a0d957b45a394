/**
 * The embedded store's data_points: each partition's cells in blocks keyed by the partition and the block's first
 * column (blocks.ts), read as slices in either order and rewritten block by block when cells are written or deleted.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Database } from 'lmdb';
import type { Slice } from '../../model/series.js';
import { LEGACY_DATA_TYPE, columnBounds } from '../format/index.js';
import { DEFAULT_PAGE_SIZE, SliceBuilder } from '../slice-builder.js';
import type { RowKey, RowSpec, ScanOptions } from '../store.js';
import {
  appendToBlock,
  BlockCursor,
  blockEnd,
  emptyCells,
  encodeBlocks,
  mergeCells,
  readBlock,
  removeColumns,
  splitBlock,
  MAX_BLOCK_BYTES,
  TAIL_BLOCK_BYTES,
  type BlockEnd,
  type Cells,
} from './blocks.js';
import { blockFirstColumn, blockKey, partitionEnd, partitionPrefix } from './keys.js';

/** Block bytes decoded between two turns of the event loop, so a long scan never starves HTTP handling. */
const BYTES_PER_TURN = 1 << 20;

/** Points the first page of a scan starts with; it grows to a whole page as the partition turns out larger. */
const FIRST_PAGE_POINTS = 64;

/**
 * What the last write noted of a partition's last block, so an append needs neither a walk of it nor a search for it.
 * Plain numbers, no Buffer: the store keeps one for each of up to a million partitions (partition-notes.ts).
 */
export interface PartitionTail {
  /** The block's bytes; 0 = not noted (a block holds at least its flags byte); NO_BLOCKS = none. */
  tailSize: number;
  tailFirstColumn: number;
  tailLastColumn: number;
  tailCells: number;
}

/** `tailSize` of a partition known to have no block. */
const NO_BLOCKS = -1;

/** The noted last block, if any. */
function notedTail(partition: PartitionTail): Tail | undefined {
  return partition.tailSize <= 0
    ? undefined
    : {
        firstColumn: partition.tailFirstColumn,
        lastColumn: partition.tailLastColumn,
        cells: partition.tailCells,
        size: partition.tailSize,
      };
}

function noteTail(partition: PartitionTail, firstColumn: number, size: number, end: BlockEnd): void {
  partition.tailFirstColumn = firstColumn;
  partition.tailLastColumn = end.lastColumn;
  partition.tailCells = end.cells;
  partition.tailSize = size;
}

/** The partition's last block: where it is, how long, and how it ends. */
interface Tail extends BlockEnd {
  readonly firstColumn: number;
  readonly size: number;
}

export class DataPoints {
  /** Where an append builds the block it puts; LMDB copies it in during the put. */
  private readonly scratch = Buffer.allocUnsafe(MAX_BLOCK_BYTES);

  constructor(
    private readonly table: Database<Buffer, Buffer>,
    private readonly rowSpec: RowSpec,
  ) {}

  /**
   * The partition's points in [startMs, endMs] as slices, in the scan's order, live at `nowSeconds`, with the cells of
   * its head block (head.ts) that come after the last column stored: its other cells are stored, written by a flush
   * that committed after the head block was taken. The last stored column is the last of the last block read: a
   * partition's blocks after the scan's end would mean that every head cell in range is stored, and read.
   */
  async *scan(
    keyBytes: Uint8Array,
    key: RowKey,
    startMs: number,
    endMs: number,
    options: ScanOptions,
    nowSeconds: number,
    head: Uint8Array | undefined,
  ): AsyncGenerator<Slice> {
    const legacyRow = key.dataType === LEGACY_DATA_TYPE;
    const { start, end } = columnBounds(this.rowSpec, key.rowTime, startMs, endMs, legacyRow);
    if (start >= end) return;
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
    const descending = options.order === 'desc';
    // The partition's size is known only once read: its first page starts small (slice-builder.ts).
    const builder = new SliceBuilder(key, this.rowSpec, options.pageSize ?? DEFAULT_PAGE_SIZE, FIRST_PAGE_POINTS);
    const prefix = partitionPrefix(keyBytes);
    const ready: Slice[] = [];
    let emitted = 0;
    let sinceTurn = 0;
    const add = (column: number, buf: Uint8Array, valueStart: number, valueEnd: number): boolean => {
      const full = builder.add(column, buf, valueStart, valueEnd);
      if (full) ready.push(full);
      return ++emitted >= limit;
    };
    // Blocks are keyed by their first column, so the block holding `start` may begin before it.
    const range = descending
      ? { start: blockKey(prefix, end - 1), end: prefix, reverse: true }
      : { start: this.blockAtOrBefore(prefix, start) ?? blockKey(prefix, start), end: blockKey(prefix, end) };
    const cursor = new BlockCursor();
    // A block only reads forwards: a descending scan notes (column, value start, value end) of each cell, then
    // walks them back, decoding in place as the ascending scan does.
    const cells: number[] = [];
    let done = false;
    /** The last column of the blocks read, in either order, or -1 before the first. */
    let stored = -1;
    const addHead = (after: number): void => {
      if (head === undefined) return;
      const headCells: number[] = [];
      cursor.reset(head);
      while (cursor.next()) {
        if (cursor.column <= after || cursor.column < start || cursor.column >= end || cursor.expired(nowSeconds))
          continue;
        headCells.push(cursor.column, cursor.valueStart, cursor.valueEnd);
      }
      if (descending) {
        for (let i = headCells.length - 3; i >= 0 && !done; i -= 3)
          done = add(headCells[i]!, head, headCells[i + 1]!, headCells[i + 2]!);
      } else {
        for (let i = 0; i < headCells.length && !done; i += 3)
          done = add(headCells[i]!, head, headCells[i + 1]!, headCells[i + 2]!);
      }
    };
    for (const { key: blockKeyBytes, value: block } of this.table.getRange(range)) {
      options.signal?.throwIfAborted();
      cursor.reset(block);
      if (descending) {
        cells.length = 0;
        while (cursor.next()) {
          if (cursor.column < start || cursor.column >= end || cursor.expired(nowSeconds)) continue;
          cells.push(cursor.column, cursor.valueStart, cursor.valueEnd);
        }
        if (stored < 0) {
          // The head's cells come first, after the last column of the partition's last block in range.
          stored = cursor.column;
          addHead(stored);
        }
        for (let i = cells.length - 3; i >= 0 && !done; i -= 3)
          done = add(cells[i]!, block, cells[i + 1]!, cells[i + 2]!);
        done ||= blockFirstColumn(blockKeyBytes) <= start;
      } else {
        while (!done && cursor.next()) {
          if (cursor.column < start || cursor.column >= end || cursor.expired(nowSeconds)) continue;
          done = add(cursor.column, block, cursor.valueStart, cursor.valueEnd);
        }
        // Only read on when the block's every cell was: then its cursor stands on its last.
        stored = cursor.column;
      }
      sinceTurn += block.length;
      yield* ready.splice(0);
      if (done) break;
      if (sinceTurn >= BYTES_PER_TURN) {
        sinceTurn = 0;
        await yieldToEventLoop();
      }
    }
    if (!done && (stored < 0 || !descending)) {
      addHead(stored);
      yield* ready.splice(0);
    }
    const rest = builder.flush();
    if (rest) yield rest;
  }

  /**
   * The last stored column of the partition of these row key bytes, or -1 when it has no block; what it finds is noted
   * with its last block.
   */
  storedLast(keyBytes: Uint8Array, partition: PartitionTail): number {
    if (partition.tailSize > 0) return partition.tailLastColumn;
    if (partition.tailSize === NO_BLOCKS) return -1;
    const last = this.lastBlock(partitionPrefix(keyBytes));
    if (last === undefined) {
      partition.tailSize = NO_BLOCKS;
      return -1;
    }
    noteTail(partition, blockFirstColumn(last.key), last.value.length, blockEnd(last.value));
    return partition.tailLastColumn;
  }

  /** The partition's last block, read from the table. */
  private lastBlock(prefix: Buffer): { key: Buffer; value: Buffer } | undefined {
    for (const entry of this.table.getRange({ start: partitionEnd(prefix), end: prefix, reverse: true, limit: 1 }))
      return entry;
    return undefined;
  }

  /** Merges `incoming` cells into the partition's blocks (a cell of the same column is replaced). */
  write(prefix: Buffer, partition: PartitionTail, incoming: Cells, nowSeconds: number): void {
    if (this.append(prefix, partition, incoming, nowSeconds)) return;
    partition.tailSize = 0;
    const { columns } = incoming;
    this.rewriteBlocks(
      prefix,
      columns[0]!,
      columns[columns.length - 1]!,
      (cells) => mergeCells(cells, incoming),
      nowSeconds,
    );
  }

  /**
   * Writes cells that all fall in the partition's last block or after it without decoding the rest of the partition:
   * the block is kept as it is up to the first cell the write reaches, only the cells from there on are encoded
   * (blocks.ts), and new blocks start once it is full. Most writes append after the last column (a collector sending
   * each series' newest points); concurrent requests of one sender may arrive out of order, and reach only the last few
   * cells. False, having written nothing, for any other cells. Expired cells of the last block stay until a write
   * rewrites it whole: reads skip them anyway. The last block grows to TAIL_BLOCK_BYTES only; the one a write closes
   * is then merged into the block before it when both fit one (seal).
   */
  private append(prefix: Buffer, partition: PartitionTail, incoming: Cells, nowSeconds: number): boolean {
    let tail = notedTail(partition);
    let block: Uint8Array | undefined;
    let tailKey: Buffer | undefined;
    if (tail !== undefined) {
      tailKey = blockKey(prefix, tail.firstColumn);
      // lmdb-js's own buffer, valid until the next read or write of the environment, and longer than its `length`.
      const fast = this.table.getBinaryFast(tailKey);
      block = fast?.subarray(0, fast.length);
    }
    // A failed write's notes are forgotten (embedded-store.ts); as a second guard, a block of another length than the
    // one noted is read again.
    if ((tail === undefined && partition.tailSize !== NO_BLOCKS) || block?.length !== tail?.size) {
      const last = this.lastBlock(prefix);
      tail = last && { firstColumn: blockFirstColumn(last.key), size: last.value.length, ...blockEnd(last.value) };
      block = last?.value;
      tailKey = undefined;
    }
    if (tail === undefined) {
      this.putBlocks(prefix, partition, encodeBlocks(incoming));
      return true;
    }
    let head = block!;
    let end: BlockEnd = tail;
    let cells = incoming;
    const first = incoming.columns[0]!;
    if (first <= tail.lastColumn) {
      if (first < tail.firstColumn) return false;
      const split = splitBlock(head, first);
      head = split.head;
      end = split.end;
      cells = mergeCells(split.rest, incoming);
    }
    const appended = appendToBlock(head, end, cells, this.scratch, TAIL_BLOCK_BYTES);
    if (appended === undefined) return false;
    // Encoded before anything is put: the cells may be views into lmdb-js's buffer.
    const after = encodeBlocks(cells, appended.appended);
    const kept = end.cells + appended.appended;
    if (appended.appended > 0 || (head !== block && kept > 0)) {
      if (appended.appended === 0) this.scratch.set(head, 0);
      this.table.putSync(tailKey ?? blockKey(prefix, tail.firstColumn), this.scratch.subarray(0, appended.size));
      noteTail(partition, tail.firstColumn, appended.size, {
        lastColumn: appended.appended > 0 ? cells.columns[appended.appended - 1]! : end.lastColumn,
        cells: kept,
      });
    }
    // The small last block that the new blocks close, copied before anything else is read or put.
    const closed =
      after.length > 0 && kept > 0 && appended.size <= TAIL_BLOCK_BYTES
        ? Buffer.from(appended.appended > 0 || head !== block ? this.scratch.subarray(0, appended.size) : head)
        : undefined;
    // A block left with no cell keeps its key for the first of these, whose column is the same.
    this.putBlocks(prefix, partition, after);
    if (closed !== undefined) this.seal(prefix, tail.firstColumn, closed, nowSeconds);
    return true;
  }

  /**
   * Merges a closed last block into the block before it when all its cells fit there, so that appends leave blocks
   * as full as writing the same cells at once would, and scans read as few. One in many appends pays for it.
   */
  private seal(prefix: Buffer, firstColumn: number, closed: Buffer, nowSeconds: number): void {
    if (firstColumn === 0) return;
    const cells = emptyCells();
    readBlock(closed, cells, nowSeconds);
    for (const { key, value } of this.table.getRange({
      start: blockKey(prefix, firstColumn - 1),
      end: prefix,
      reverse: true,
      limit: 1,
    })) {
      // Every cell of it, or none: a closed block whose cells have all expired is only removed.
      if (cells.columns.length > 0) {
        const merged = appendToBlock(value, blockEnd(value), cells, this.scratch);
        if (merged === undefined || merged.appended < cells.columns.length) return;
        this.table.putSync(key, this.scratch.subarray(0, merged.size));
      }
      this.table.removeSync(blockKey(prefix, firstColumn));
    }
  }

  private putBlocks(prefix: Buffer, partition: PartitionTail, blocks: { firstColumn: number; bytes: Buffer }[]): void {
    for (const { firstColumn, bytes } of blocks) this.table.putSync(blockKey(prefix, firstColumn), bytes);
    const last = blocks[blocks.length - 1];
    if (last !== undefined) noteTail(partition, last.firstColumn, last.bytes.length, blockEnd(last.bytes));
  }

  /** Removes the partition's cells of columns in [start, end). */
  removeColumns(prefix: Buffer, start: number, end: number, nowSeconds: number): void {
    this.rewriteBlocks(prefix, start, end - 1, (cells) => removeColumns(cells, start, end), nowSeconds);
  }

  /** Removes every block of the partition. */
  removePartition(prefix: Buffer): void {
    for (const key of this.table.getKeys({ start: prefix, end: partitionEnd(prefix) })) this.table.removeSync(key);
  }

  /** Rewrites the blocks that can hold columns in [from, to] (inclusive) with `change` applied to their cells. */
  private rewriteBlocks(
    prefix: Buffer,
    from: number,
    to: number,
    change: (cells: Cells) => Cells,
    nowSeconds: number,
  ): void {
    const start = this.blockAtOrBefore(prefix, from) ?? blockKey(prefix, from);
    const end = to >= 0xffffffff ? partitionEnd(prefix) : blockKey(prefix, to + 1);
    const existing = emptyCells();
    const old: Buffer[] = [];
    for (const { key, value } of this.table.getRange({ start, end })) {
      old.push(key);
      readBlock(value, existing, nowSeconds);
    }
    // Values of `existing` are views into blocks of this transaction's snapshot; encode before removing anything.
    const blocks = encodeBlocks(change(existing));
    for (const key of old) this.table.removeSync(key);
    for (const block of blocks) this.table.putSync(blockKey(prefix, block.firstColumn), block.bytes);
  }

  /** The key of the partition's last block whose first column is <= `column`. */
  private blockAtOrBefore(prefix: Buffer, column: number): Buffer | undefined {
    for (const key of this.table.getKeys({
      start: blockKey(prefix, column),
      end: prefix,
      reverse: true,
      limit: 1,
    })) {
      return blockFirstColumn(key) <= column ? Buffer.from(key) : undefined;
    }
    return undefined;
  }
}
