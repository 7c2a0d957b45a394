/**
 * ReadRows answers come as cell chunks that the client puts back together into rows: a row's key, family and
 * qualifier are sent when they change (the emulator repeats the key on every chunk, the service may not), a value may
 * be split over chunks (`value_size` on all but the last), a row may be thrown away half-way (`reset_row`), and only a
 * `commit_row` makes it whole. Rows are kept columnar: one array per field, not an object per cell.
 */
import { protoFields } from './proto-wire.js';

export interface BigtableRow {
  readonly key: Buffer;
  readonly families: string[];
  readonly qualifiers: Buffer[];
  readonly timestampsMicros: number[];
  readonly values: Buffer[];
}

export class ChunkMerger {
  private row: BigtableRow | undefined;
  private family = '';
  private qualifier: Buffer | undefined;
  private timestamp = 0;
  private value: Buffer[] = [];
  private lastKey: Buffer | undefined;

  /** The rows a ReadRowsResponse completes. */
  take(response: Buffer): BigtableRow[] {
    const done: BigtableRow[] = [];
    for (const f of protoFields(response)) if (f.field === 1 && f.wire === 2) this.chunk(f.bytes, done);
    return done;
  }

  /** The stream ended: a row begun and never committed means the answer was cut. */
  end(): void {
    if (this.row !== undefined) throw new Error('ReadRows ended inside a row that was never committed');
  }

  private chunk(bytes: Buffer, done: BigtableRow[]): void {
    let key: Buffer | undefined;
    let family: string | undefined;
    let qualifier: Buffer | undefined;
    let timestamp: number | undefined;
    let value: Buffer | undefined;
    let valueSize = 0;
    let reset = false;
    let commit = false;
    for (const f of protoFields(bytes)) {
      if (f.wire === 2) {
        if (f.field === 1) key = f.bytes;
        else if (f.field === 2) family = wrapped(f.bytes).toString('utf8');
        else if (f.field === 3) qualifier = wrapped(f.bytes);
        else if (f.field === 6) value = f.bytes;
      } else if (f.field === 4) timestamp = f.value;
      else if (f.field === 7) valueSize = f.value;
      else if (f.field === 8) reset = f.value !== 0;
      else if (f.field === 9) commit = f.value !== 0;
    }
    if (reset) {
      this.row = undefined;
      this.value = [];
      return;
    }
    if (this.row === undefined) {
      if (key === undefined || key.length === 0) throw new Error('ReadRows sent a row without a key');
      if (this.lastKey !== undefined && Buffer.compare(key, this.lastKey) <= 0)
        throw new Error('ReadRows sent rows out of key order');
      this.row = { key: Buffer.from(key), families: [], qualifiers: [], timestampsMicros: [], values: [] };
      this.qualifier = undefined;
    }
    if (family !== undefined) this.family = family;
    if (qualifier !== undefined) this.qualifier = qualifier;
    if (this.qualifier === undefined) throw new Error('ReadRows sent a cell without a qualifier');
    const row = this.row;
    // Every chunk that does not reset is a cell or a part of one; its time is sent with its first part.
    if (this.value.length === 0) this.timestamp = timestamp ?? 0;
    if (value !== undefined) this.value.push(value);
    if (valueSize === 0) {
      row.families.push(this.family);
      row.qualifiers.push(this.qualifier);
      row.timestampsMicros.push(this.timestamp);
      row.values.push(this.value.length === 1 ? this.value[0]! : Buffer.concat(this.value));
      this.value = [];
    }
    if (commit) {
      done.push(row);
      this.lastKey = row.key;
      this.row = undefined;
    }
  }
}

/** google.protobuf.StringValue and BytesValue: field 1 of a wrapper; an empty wrapper is the empty string. */
function wrapped(bytes: Buffer): Buffer {
  for (const f of protoFields(bytes)) if (f.field === 1 && f.wire === 2) return f.bytes;
  return Buffer.alloc(0);
}
