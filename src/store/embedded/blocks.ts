/**
 * The embedded store packs a partition's cells into blocks: one LMDB entry holds up to MAX_BLOCK_CELLS cells in
 * column order, each with KairosDB's 4-byte column name and value bytes unchanged. One entry per point cost 1-2 M
 * points/s and ~85 bytes/point of mapped pages (measured); blocks make a partition slice a short range scan.
 *
 * Block: [flags u8] then cells until the end: [column u32 BE][expiry u32 BE, if FLAG_EXPIRY][value length, LEB128][value].
 */

export const MAX_BLOCK_CELLS = 512;
/** Strings can be 64 KiB each; a block closes early so a rewrite never copies much more than this. */
export const MAX_BLOCK_BYTES = 32 * 1024;

const FLAG_EXPIRY = 1;

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

  reset(block: Uint8Array): this {
    this.block = block;
    this.hasExpiry = (block[0]! & FLAG_EXPIRY) !== 0;
    this.pos = 1;
    return this;
  }

  next(): boolean {
    const b = this.block;
    let p = this.pos;
    if (p >= b.length) return false;
    this.column = ((b[p]! << 24) >>> 0) + (b[p + 1]! << 16) + (b[p + 2]! << 8) + b[p + 3]!;
    p += 4;
    if (this.hasExpiry) {
      this.expiry = ((b[p]! << 24) >>> 0) + (b[p + 1]! << 16) + (b[p + 2]! << 8) + b[p + 3]!;
      p += 4;
    } else {
      this.expiry = 0;
    }
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = b[p++]!;
      length += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
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

/** Splits cells (in column order) into encoded blocks. */
export function encodeBlocks(cells: Cells): { firstColumn: number; bytes: Buffer }[] {
  const blocks: { firstColumn: number; bytes: Buffer }[] = [];
  let start = 0;
  while (start < cells.columns.length) {
    let end = start;
    let hasExpiry = false;
    let size = 1;
    while (end < cells.columns.length && end - start < MAX_BLOCK_CELLS) {
      const cellSize = 4 + 4 + lengthOfLength(cells.values[end]!.length) + cells.values[end]!.length;
      if (end > start && size + cellSize > MAX_BLOCK_BYTES) break;
      size += cellSize;
      hasExpiry ||= cells.expiries[end] !== 0;
      end++;
    }
    blocks.push({ firstColumn: cells.columns[start]!, bytes: encodeBlock(cells, start, end, hasExpiry) });
    start = end;
  }
  return blocks;
}

function encodeBlock(cells: Cells, start: number, end: number, hasExpiry: boolean): Buffer {
  let size = 1;
  for (let i = start; i < end; i++) {
    const length = cells.values[i]!.length;
    size += 4 + (hasExpiry ? 4 : 0) + lengthOfLength(length) + length;
  }
  const out = Buffer.allocUnsafe(size);
  out[0] = hasExpiry ? FLAG_EXPIRY : 0;
  let p = 1;
  for (let i = start; i < end; i++) {
    p = out.writeUInt32BE(cells.columns[i]!, p);
    if (hasExpiry) p = out.writeUInt32BE(cells.expiries[i]!, p);
    const value = cells.values[i]!;
    let length = value.length;
    while (length >= 0x80) {
      out[p++] = (length & 0x7f) | 0x80;
      length >>>= 7;
    }
    out[p++] = length;
    out.set(value, p);
    p += value.length;
  }
  return out;
}

function lengthOfLength(length: number): number {
  return length < 0x80 ? 1 : length < 0x4000 ? 2 : 3;
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
