// data_points column names (reference §2.3): 4-byte big-endian offsets from the row time, unsigned in JS, in the
// three stored units, plus the long/float flag bit of kairos_legacy rows and the column range of a read.
import type { RowSpec } from '../store.js';
import { rowWidthMs } from './row-time.js';

/**
 * KairosDB's `RowSpec.getColumnName`: the low 32 bits of what Java computes in int arithmetic. LEGACY (clusters
 * created by ≤1.2) shifts the offset left to keep bit 0 free for the old type flag, so a 3-week row's columns pass 2^31.
 */
export function encodeColumn(spec: RowSpec, rowTime: number, ts: number): number {
  const offset = ts - rowTime;
  if (spec.unit === 'LEGACY') return (offset << 1) >>> 0;
  // Java's long division truncates toward zero, as `%` does here, so this is exact where `/` then trunc might round.
  if (spec.unit === 'SECONDS') return ((offset - (offset % 1000)) / 1000) >>> 0;
  return offset >>> 0;
}

/** Columns of kairos_legacy rows (≤0.9.3): the shifted offset with bit 0 set for a float/double value. */
export function encodeLegacyRowColumn(rowTime: number, ts: number, isDouble: boolean): number {
  return (((ts - rowTime) << 1) | (isDouble ? 1 : 0)) >>> 0;
}

/**
 * KairosDB's `RowSpec.getColumnTimestamp`: MILLISECONDS and SECONDS read the column as a signed int, shifted
 * columns (LEGACY, kairos_legacy rows) shift back unsigned.
 */
export function decodeColumn(spec: RowSpec, rowTime: number, column: number, legacyRow: boolean): number {
  if (legacyRow || spec.unit === 'LEGACY') return rowTime + (column >>> 1);
  if (spec.unit === 'SECONDS') return rowTime + (column | 0) * 1000;
  return rowTime + (column | 0);
}

/** Bit 0 of a kairos_legacy row's column: 1 for a float/double value, 0 for a long. */
export function legacyColumnIsDouble(column: number): boolean {
  return (column & 1) === 1;
}

/**
 * The columns a read of [startMs, endMs] takes from one row: `start` inclusive, `end` exclusive, KairosDB's
 * `column1 >= start AND column1 < end`, with the end clipped to the row's width. `start >= end` means nothing to read.
 * With unit SECONDS the first column may decode to a time up to 999 ms before `startMs`, as in KairosDB.
 * In kairos_legacy rows the end also takes in the odd (float) column of the last ms: KairosDB's `+ 1` did so while
 * its slice ends were inclusive (≤1.1); since 1.3 reads with `<` it drops that point, which we do not reproduce.
 */
export function columnBounds(
  spec: RowSpec,
  rowTime: number,
  startMs: number,
  endMs: number,
  legacyRow: boolean,
): { start: number; end: number } {
  const rowEnd = rowTime + rowWidthMs(spec);
  const last = Math.min(endMs, rowEnd);
  if (last < rowTime || startMs > last) return { start: 0, end: 0 };
  return {
    start: startMs < rowTime ? 0 : boundColumn(spec, rowTime, startMs, legacyRow),
    end: boundColumn(spec, rowTime, last, legacyRow) + (legacyRow ? 2 : 1),
  };
}

/** Writes `column` as 4 big-endian bytes at `offset`. */
export function writeColumn(buf: Uint8Array, offset: number, column: number): void {
  if (column !== column >>> 0) throw new RangeError(`column name must be an unsigned 32-bit integer: ${column}`);
  if (offset < 0 || offset + 4 > buf.length)
    throw new RangeError(`column name needs 4 bytes at offset ${offset} of ${buf.length}`);
  buf[offset] = column >>> 24;
  buf[offset + 1] = (column >>> 16) & 0xff;
  buf[offset + 2] = (column >>> 8) & 0xff;
  buf[offset + 3] = column & 0xff;
}

/** Reads the 4 big-endian bytes at `offset` as an unsigned number, the order Cassandra sorts blobs in. */
export function readColumn(buf: Uint8Array, offset: number): number {
  if (offset < 0 || offset + 4 > buf.length)
    throw new RangeError(`column name needs 4 bytes at offset ${offset} of ${buf.length}`);
  return ((buf[offset]! << 24) | (buf[offset + 1]! << 16) | (buf[offset + 2]! << 8) | buf[offset + 3]!) >>> 0;
}

/** The even column of `ts`: kairos_legacy rows use the shifted offset whatever unit the cluster has. */
function boundColumn(spec: RowSpec, rowTime: number, ts: number, legacyRow: boolean): number {
  return legacyRow ? encodeLegacyRowColumn(rowTime, ts, false) : encodeColumn(spec, rowTime, ts);
}
