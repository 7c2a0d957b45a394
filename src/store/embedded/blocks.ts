/**
 * The embedded store packs a partition's cells into blocks: one LMDB entry holds a run of cells in column order,
 * each with KairosDB's column name and value bytes. One entry per point was slow to write and read and took many
 * times a point's bytes in mapped pages; blocks make a partition slice a short range scan decoded in place.
 *
 * Block: [flags u8][value size u8, if FLAG_FIXED_SIZE] then cells until the end:
 *   [column - previous column, LEB128 (the first cell's previous column is 0)]
 *   [expiry u32 BE, if FLAG_EXPIRY]
 *   [value length, LEB128, unless FLAG_FIXED_SIZE][value bytes]
 * Columns are stored as deltas and fixed-size values (doubles) without lengths because mapped pages count in the
 * process's memory: 10 bytes per double instead of 13.
 */

/**
 * What fits two LMDB overflow pages: n pages hold n·4096 − 24 bytes (measured with lmdb-js 3.5), so a full block
 * wastes no page space; one byte more and it takes a third page.
 */
export const MAX_BLOCK_BYTES = 2 * 4096 - 24;
/**
 * What appends grow a partition's last block to. A collector appends a few points to each series every few seconds,
 * and every append puts the whole last block again: LMDB puts a value this small into its leaf page, where a put
 * costs a fraction of one that takes overflow pages (a full block's put costs several times as much). A last block
 * that new cells no longer fit is merged into the block before it (data-points.ts), so the blocks scans read stay
 * near MAX_BLOCK_BYTES.
 */
export const TAIL_BLOCK_BYTES = 1024;
/** Bounds what one write rewrites when small values (longs) pack densely. */
export const MAX_BLOCK_CELLS = 2048;

const FLAG_EXPIRY = 1;
const FLAG_FIXED_SIZE = 2;

/** Cells in column order. `expiries` are epoch seconds, 0 = never; `values` may be views into a block. */
export interface Cells {
  columns: number[];
  expiries: number[];
  values: Uint8Array[];
}

export function emptyCells(): Cells {
  return { columns: [], expiries: [], values: [] };
}

/** Reads a block's cells in place: the fields describe the current cell; nothing is allocated per cell. */
export class BlockCursor {
  column = 0;
  expiry = 0;
  valueStart = 0;
  valueEnd = 0;
  private block: Uint8Array = EMPTY;
  private pos = 0;
  private hasExpiry = false;
  /** The size of every value, or -1 when each cell carries its length. */
  private fixedSize = -1;

  reset(block: Uint8Array): this {
    const flags = block[0]!;
    this.block = block;
    this.hasExpiry = (flags & FLAG_EXPIRY) !== 0;
    this.fixedSize = (flags & FLAG_FIXED_SIZE) !== 0 ? block[1]! : -1;
    this.pos = this.fixedSize >= 0 ? 2 : 1;
    this.column = 0;
    return this;
  }

  next(): boolean {
    const b = this.block;
    let p = this.pos;
    if (p >= b.length) return false;
    let byte = b[p++]!;
    let delta = byte & 0x7f;
    for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
      byte = b[p++]!;
      delta += (byte & 0x7f) * scale;
    }
    this.column += delta;
    if (this.hasExpiry) {
      this.expiry = ((b[p]! << 24) >>> 0) + (b[p + 1]! << 16) + (b[p + 2]! << 8) + b[p + 3]!;
      p += 4;
    } else {
      this.expiry = 0;
    }
    let length = this.fixedSize;
    if (length < 0) {
      byte = b[p++]!;
      length = byte & 0x7f;
      for (let scale = 0x80; byte >= 0x80; scale *= 0x80) {
        byte = b[p++]!;
        length += (byte & 0x7f) * scale;
      }
    }
    this.valueStart = p;
    this.valueEnd = p + length;
    this.pos = p + length;
    return true;
  }

  /** True when the cell has an expiry at or before `nowSeconds` (Cassandra drops a cell once its TTL is reached). */
  expired(nowSeconds: number): boolean {
    return this.expiry !== 0 && this.expiry <= nowSeconds;
  }
}

/** Appends the live cells of `block` to `into`, as views into the block. */
export function readBlock(block: Uint8Array, into: Cells, nowSeconds: number): void {
  const cursor = new BlockCursor().reset(block);
  while (cursor.next()) {
    if (cursor.expired(nowSeconds)) continue;
    into.columns.push(cursor.column);
    into.expiries.push(cursor.expiry);
    into.values.push(block.subarray(cursor.valueStart, cursor.valueEnd));
  }
}

/**
 * Splits cells (in column order) from `from` on into encoded blocks that each fit MAX_BLOCK_BYTES (a lone huge string
 * excepted).
 */
export function encodeBlocks(cells: Cells, from = 0): { firstColumn: number; bytes: Buffer }[] {
  const blocks: { firstColumn: number; bytes: Buffer }[] = [];
  const n = cells.columns.length;
  let start = from;
  while (start < n) {
    // Running sums give the block's size for either layout, so growing it costs O(1) per cell.
    const firstLength = cells.values[start]!.length;
    let fixed = firstLength < 0x100;
    let hasExpiry = false;
    let deltaBytes = 0;
    let lengthBytes = 0;
    let valueBytes = 0;
    let end = start;
    while (end < n && end - start < MAX_BLOCK_CELLS) {
      const length = cells.values[end]!.length;
      const nextFixed: boolean = fixed && length === firstLength;
      const nextExpiry: boolean = hasExpiry || cells.expiries[end] !== 0;
      const nextDelta = deltaBytes + leb128Length(cells.columns[end]! - (end === start ? 0 : cells.columns[end - 1]!));
      const nextLengths = lengthBytes + leb128Length(length);
      const size =
        (nextFixed ? 2 : 1) +
        nextDelta +
        (nextExpiry ? 4 * (end - start + 1) : 0) +
        (nextFixed ? 0 : nextLengths) +
        valueBytes +
        length;
      if (end > start && size > MAX_BLOCK_BYTES) break;
      fixed = nextFixed;
      hasExpiry = nextExpiry;
      deltaBytes = nextDelta;
      lengthBytes = nextLengths;
      valueBytes += length;
      end++;
    }
    const fixedSize = fixed ? firstLength : -1;
    const size =
      (fixed ? 2 : 1) + deltaBytes + (hasExpiry ? 4 * (end - start) : 0) + (fixed ? 0 : lengthBytes) + valueBytes;
    const out = Buffer.allocUnsafe(size);
    out[0] = (hasExpiry ? FLAG_EXPIRY : 0) | (fixed ? FLAG_FIXED_SIZE : 0);
    if (fixed) out[1] = fixedSize;
    const written = writeCells(out, fixed ? 2 : 1, cells, start, end, 0, hasExpiry, fixedSize);
    if (written !== size) throw new Error(`block size mismatch: wrote ${written} bytes, sized ${size}`);
    blocks.push({ firstColumn: cells.columns[start]!, bytes: out });
    start = end;
  }
  return blocks;
}

/**
 * Writes cells that fit one block (no more than MAX_BLOCK_CELLS) as a block at `at` of `out`, which has room for
 * `blockBound(cells)` bytes there; returns where it ends.
 */
export function writeBlock(out: Buffer, at: number, cells: Cells): number {
  const { values, expiries } = cells;
  const firstLength = values[0]!.length;
  let fixed = firstLength < 0x100;
  let hasExpiry = false;
  for (let i = 0; i < values.length; i++) {
    fixed &&= values[i]!.length === firstLength;
    hasExpiry ||= expiries[i] !== 0;
  }
  out[at] = (hasExpiry ? FLAG_EXPIRY : 0) | (fixed ? FLAG_FIXED_SIZE : 0);
  if (fixed) out[at + 1] = firstLength;
  return writeCells(out, at + (fixed ? 2 : 1), cells, 0, values.length, 0, hasExpiry, fixed ? firstLength : -1);
}

/** At least the bytes `cells` take in a block: a header, and a column delta, an expiry and a length each at most. */
export function blockBound(cells: Cells): number {
  let bytes = 2;
  for (const value of cells.values) bytes += 14 + value.length;
  return bytes;
}

/** How a block ends: what appending to it needs besides its bytes. */
export interface BlockEnd {
  readonly lastColumn: number;
  readonly cells: number;
}

/** Walks a block's cells without reading their values. */
export function blockEnd(block: Uint8Array): BlockEnd {
  const cursor = new BlockCursor().reset(block);
  let cells = 0;
  while (cursor.next()) cells++;
  return { lastColumn: cursor.column, cells };
}

/**
 * Splits a block before its first cell at or after `column`: the bytes before that cell, which are a block of their
 * own that ends as `end` says, and the cells from it on, as views into the block.
 */
export function splitBlock(block: Uint8Array, column: number): { head: Uint8Array; end: BlockEnd; rest: Cells } {
  const cursor = new BlockCursor().reset(block);
  let headEnd = (block[0]! & FLAG_FIXED_SIZE) !== 0 ? 2 : 1;
  let lastColumn = 0;
  let cells = 0;
  const rest = emptyCells();
  while (cursor.next()) {
    if (cursor.column >= column) {
      rest.columns.push(cursor.column);
      rest.expiries.push(cursor.expiry);
      rest.values.push(block.subarray(cursor.valueStart, cursor.valueEnd));
    } else {
      headEnd = cursor.valueEnd;
      lastColumn = cursor.column;
      cells++;
    }
  }
  return { head: block.subarray(0, headEnd), end: { lastColumn, cells }, rest };
}

/**
 * Writes `block` with as many of `cells` as fit (`maxBytes`, MAX_BLOCK_CELLS) appended in the block's own layout
 * into `out` (at least `maxBytes` long; it may begin with `block` itself), and returns how many went in and the bytes they make: only they are
 * encoded, the block's bytes are copied as they are; `out` is left alone when none fit. The cells must all come after
 * `end.lastColumn`. Undefined when the layout cannot hold a cell that would fit (a value of another size in a
 * fixed-size block, an expiry in a block without expiries): only re-encoding the block changes its layout, and
 * starting a new block instead would leave one of a few cells at each change of value size.
 */
export function appendToBlock(
  block: Uint8Array,
  end: BlockEnd,
  cells: Cells,
  out: Buffer,
  maxBytes = MAX_BLOCK_BYTES,
  /** The block's length, when it is the start of a larger buffer (the head's): no view of it is made. */
  blockLength = block.length,
): { appended: number; size: number } | undefined {
  const flags = block[0]!;
  const hasExpiry = (flags & FLAG_EXPIRY) !== 0;
  const fixedSize = (flags & FLAG_FIXED_SIZE) !== 0 ? block[1]! : -1;
  const n = cells.columns.length;
  let size = blockLength;
  let count = 0;
  let previous = end.lastColumn;
  while (count < n && end.cells + count < MAX_BLOCK_CELLS) {
    const column = cells.columns[count]!;
    const length = cells.values[count]!.length;
    const next =
      size +
      leb128Length(column - previous) +
      (hasExpiry ? 4 : 0) +
      (fixedSize >= 0 ? 0 : leb128Length(length)) +
      length;
    if (next > maxBytes) break;
    if ((fixedSize >= 0 && length !== fixedSize) || (!hasExpiry && cells.expiries[count] !== 0)) return undefined;
    size = next;
    previous = column;
    count++;
  }
  if (count === 0) return { appended: 0, size: blockLength };
  // The head appends in place (head.ts): its block is then the start of `out`.
  if (block.buffer !== out.buffer || block.byteOffset !== out.byteOffset)
    out.set(blockLength === block.length ? block : block.subarray(0, blockLength), 0);
  const written = writeCells(out, blockLength, cells, 0, count, end.lastColumn, hasExpiry, fixedSize);
  if (written !== size) throw new Error(`block size mismatch: wrote ${written} bytes, sized ${size}`);
  return { appended: count, size };
}

/** Encodes cells [start, end) at `at`, the first as a delta from `previous`; returns where they end. */
function writeCells(
  out: Buffer,
  at: number,
  cells: Cells,
  start: number,
  end: number,
  previous: number,
  hasExpiry: boolean,
  fixedSize: number,
): number {
  let p = at;
  let last = previous;
  for (let i = start; i < end; i++) {
    const column = cells.columns[i]!;
    p = writeLeb128(out, p, column - last);
    last = column;
    if (hasExpiry) p = out.writeUInt32BE(cells.expiries[i]!, p);
    const value = cells.values[i]!;
    if (fixedSize < 0) p = writeLeb128(out, p, value.length);
    out.set(value, p);
    p += value.length;
  }
  return p;
}

function writeLeb128(out: Uint8Array, at: number, value: number): number {
  let p = at;
  let v = value;
  while (v >= 0x80) {
    out[p++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[p++] = v;
  return p;
}

function leb128Length(value: number): number {
  let length = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) length++;
  return length;
}

/**
 * Merges `incoming` into `existing` (both in column order); an incoming cell replaces an existing one with the same
 * column, as a later write does in Cassandra.
 */
export function mergeCells(existing: Cells, incoming: Cells): Cells {
  const out = emptyCells();
  let i = 0;
  let j = 0;
  while (i < existing.columns.length || j < incoming.columns.length) {
    const a = i < existing.columns.length ? existing.columns[i]! : Infinity;
    const b = j < incoming.columns.length ? incoming.columns[j]! : Infinity;
    const from = b <= a ? incoming : existing;
    const k = b <= a ? j : i;
    out.columns.push(from.columns[k]!);
    out.expiries.push(from.expiries[k]!);
    out.values.push(from.values[k]!);
    if (b <= a) j++;
    if (a <= b) i++;
  }
  return out;
}

/** Keeps the cells whose column is outside [start, end). */
export function removeColumns(cells: Cells, start: number, end: number): Cells {
  const out = emptyCells();
  for (let i = 0; i < cells.columns.length; i++) {
    const column = cells.columns[i]!;
    if (column >= start && column < end) continue;
    out.columns.push(column);
    out.expiries.push(cells.expiries[i]!);
    out.values.push(cells.values[i]!);
  }
  return out;
}

const EMPTY = new Uint8Array(1);
