// The column range of a read or range delete as the two blobs bound to `column1 >= ? AND column1 < ?`.
import { writeColumn } from '../format/index.js';

/**
 * `end` is exclusive and can be 2^32, one past the last 4-byte name: it is then bound as FFFFFFFF00, which sorts
 * after every 4-byte blob and so says the same thing without a second statement.
 */
export function columnRangeBytes(start: number, end: number): [Buffer, Buffer] {
  return [columnBytes(start), end <= 0xffffffff ? columnBytes(end) : Buffer.from([0xff, 0xff, 0xff, 0xff, 0x00])];
}

function columnBytes(column: number): Buffer {
  const bytes = Buffer.alloc(4);
  writeColumn(bytes, 0, column);
  return bytes;
}
