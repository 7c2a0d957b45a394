// One page of the data_points scan as the CQL RESULT frame carries it (rows of `column1 blob, value blob`), checked
// once where the frame arrives and decoded in place into a SliceBuilder: no Row, no Buffer per cell, no copy.
import type { SliceBuilder } from '../slice-builder.js';
import type { Slice } from '../../model/series.js';

/**
 * `length` rows from `start` to `end` of `buf`, each two protocol [bytes]: a signed 32-bit big-endian length, then
 * that many bytes (a negative length is a null value, which carries no bytes). `framed` has checked that every
 * row lies inside `buf` and that every column1 has its 4 bytes, so decoding never reads past a cell.
 */
export class ScanRows {
  private constructor(
    readonly buf: Buffer,
    readonly start: number,
    readonly end: number,
    readonly length: number,
  ) {}

  /** The `count` rows at `buf[start]`, or a failure naming the first row that does not fit. */
  static framed(buf: Buffer, start: number, count: number): ScanRows {
    if (count < 0) throw new Error(`data_points page is malformed: it claims ${count} rows`);
    // A DataView reads a length faster than readInt32BE, whose own bounds check repeats the one made here.
    const view = viewOf(buf);
    let p = start;
    for (let i = 0; i < count; i++) {
      if (p + 4 > buf.length) throw malformed(i, count, 'its column1 length is past the end of the frame');
      const columnLength = view.getInt32(p);
      // KairosDB's column names are 4 bytes; anything shorter (or null) cannot be a data_points column.
      if (columnLength < 4) throw malformed(i, count, `its column1 has ${columnLength} bytes, not 4`);
      p += 4 + columnLength;
      if (p + 4 > buf.length) throw malformed(i, count, 'its value length is past the end of the frame');
      const valueLength = view.getInt32(p);
      p += 4 + Math.max(valueLength, 0);
      if (p > buf.length) throw malformed(i, count, `its value of ${valueLength} bytes is past the end of the frame`);
    }
    return new ScanRows(buf, start, p, count);
  }

  /** The column name (its first 4 bytes, big-endian, unsigned) of the last row; the page must have rows. */
  lastColumn(): number {
    const buf = this.buf;
    let p = this.start;
    for (let i = 0; i < this.length - 1; i++) {
      p += 4 + buf.readInt32BE(p);
      const valueLength = buf.readInt32BE(p);
      p += 4 + Math.max(valueLength, 0);
    }
    return buf.readUInt32BE(p + 4);
  }

  /**
   * Feeds every row to `builder` and yields the slices it completes, as the driver's rows would have: the column's
   * first 4 bytes (big-endian, unsigned) and the value's bytes, a null value being an empty one. Rows of doubles or
   * longs go to the builder's loop over the whole page; the other kinds cell by cell.
   */
  *slices(builder: SliceBuilder): Generator<Slice, void, undefined> {
    const buf = this.buf;
    const view = viewOf(buf);
    if (builder.framedKind !== undefined) {
      yield* builder.frameCells(view, buf, this.start, this.length);
      return;
    }
    let p = this.start;
    for (let i = 0; i < this.length; i++) {
      const columnLength = view.getInt32(p);
      const column = view.getUint32(p + 4);
      p += 4 + columnLength;
      const valueLength = view.getInt32(p);
      p += 4;
      // A kairos_legacy long 0 is an empty blob, which the protocol may hand over as null (length -1).
      const end = valueLength > 0 ? p + valueLength : p;
      const done = builder.add(column, buf, p, end);
      p = end;
      if (done !== undefined) yield done;
    }
  }
}

function viewOf(buf: Buffer): DataView {
  return new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
}

function malformed(row: number, count: number, why: string): Error {
  return new Error(`data_points page is malformed: row ${row} of ${count}: ${why}`);
}
