/**
 * Remote write's protobuf messages, read field by field with @bufbuild/protobuf's BinaryReader: 1.0's
 * `prometheus.WriteRequest` and 2.0's `io.prometheus.write.v2.Request` (its labels resolved through the symbol table),
 * into one shape. Field numbers are the specs' (docs/ingest.md); code generation would add a build step for a dozen
 * fields. Unknown fields are skipped, as protobuf's rules ask; a malformed message is an error naming the element
 * where it broke. Native histograms, exemplars and metadata are counted and otherwise left unread.
 */
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { spelled } from '../model/interned.js';

/** One series as the request sent it: samples in wire order. */
export interface DecodedSeries {
  /**
   * Text that is the same in every request naming the same labels the same way, and differs for any other labels:
   * 1.0's label fields' bytes as sent, 2.0's labels spelled with their lengths. Front ends intern by it.
   */
  readonly labelsKey: string;
  /**
   * Its labels in wire order (checked later). 1.0 reads them from the request only when asked: a sender names its
   * series again in every request, and labels read once need not be read again (remote-write-batch.ts). Throws
   * ProtobufError for label fields that are malformed.
   */
  labels(): [string, string][];
  readonly timestamps: readonly number[];
  readonly values: readonly number[];
  /** Samples that are Prometheus's staleness marker (a NaN told apart from others by its bits). */
  readonly staleMarkers: number;
  /** Native histogram samples of the series (not stored). */
  readonly histograms: number;
  readonly exemplars: number;
}

/** A series' samples and counts, as both versions read them. */
abstract class Samples {
  timestamps: number[] = [];
  values: number[] = [];
  staleMarkers = 0;
  histograms = 0;
  exemplars = 0;

  add(timestamp: number, value: number): void {
    // A series usually brings one sample a request: a literal of one, where a first push would reserve 17.
    if (this.timestamps.length === 0) {
      this.timestamps = [timestamp];
      this.values = [value];
    } else {
      this.timestamps.push(timestamp);
      this.values.push(value);
    }
  }
}

export interface DecodedWrite {
  readonly version: RemoteWriteVersion;
  readonly series: DecodedSeries[];
}

/** A message that is not the protobuf it claims to be: 400, never retried. */
export class ProtobufError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufError';
  }
}

export type RemoteWriteVersion = 1 | 2;

/** The request's series, whichever version; throws ProtobufError naming the element that is malformed. */
export function decodeWriteRequest(bytes: Uint8Array, version: RemoteWriteVersion): DecodedWrite {
  const r = new Reader(bytes);
  return reading(r, () => (version === 1 ? readV1(r) : readV2(r)));
}

/** `read`'s result; BinaryReader's own errors (premature EOF, a varint too long) get the name of the element. */
function reading<T>(r: Reader, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ProtobufError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProtobufError(`protobuf: ${r.where || 'the request'} is malformed: ${reason}`);
  }
}

/** The reader, the element being read (for errors) and the buffer (for a NaN's bits). */
class Reader extends BinaryReader {
  /** The field `next` read, and its wire type. */
  field = 0;
  wireType: WireType = WireType.Varint;
  private element = '';
  /** The label or sample of `element` being read, or -1: its name is spelled out only for an error (thousands a request). */
  private item = -1;
  private items: 'labels' | 'samples' = 'samples';

  constructor(readonly wire: Uint8Array) {
    super(wire);
  }

  get where(): string {
    return this.item < 0 ? this.element : `${this.element}.${this.items}[${this.item}]`;
  }

  set where(element: string) {
    this.element = element;
    this.item = -1;
  }

  /** Reading label or sample `index` of the series `where` names. */
  inItem(where: string, items: 'labels' | 'samples', index: number): void {
    this.element = where;
    this.items = items;
    this.item = index;
  }

  /** Reads a field's tag into `field` and `wireType`, as BinaryReader's tag() does without an array for each field. */
  next(): void {
    const start = this.pos;
    const tag = this.uint32();
    const bytesRead = this.pos - start;
    if (bytesRead > 5 || (bytesRead === 5 && this.wire[this.pos - 1]! > 0x0f))
      throw new Error('illegal tag: varint overflows uint32');
    this.field = tag >>> 3;
    this.wireType = tag & 7;
    if (this.field <= 0 || this.wireType > 5)
      throw new Error(`illegal tag: field no ${this.field} wire type ${this.wireType}`);
  }

  /** `expect` for a field of the element being read, `suffix` naming the field. */
  expectHere(wireType: WireType, expected: WireType, suffix: string): void {
    if (wireType !== expected) this.expect(wireType, expected, `${this.where}${suffix}`);
  }

  /** The end offset of the length-delimited message starting here, checked against its parent's end. */
  message(parentEnd: number): number {
    const length = this.uint32();
    const end = this.pos + length;
    if (end > parentEnd)
      throw new ProtobufError(
        `protobuf: ${this.where} declares ${length} bytes, past the end of its enclosing message by ${end - parentEnd}`,
      );
    return end;
  }

  /** The field's wire type must be `expected`; protobuf's packed and unpacked forms are told apart by the caller. */
  expect(wireType: WireType, expected: WireType, name: string): void {
    if (wireType !== expected)
      throw new ProtobufError(
        `protobuf: ${name} has wire type ${WireType[wireType] ?? wireType}, not ${WireType[expected]}`,
      );
  }

  /** A string field, which must be valid UTF-8 (both specs' labels are). */
  text(): string {
    try {
      return this.string(true);
    } catch (error) {
      if (error instanceof TypeError) throw new ProtobufError(`protobuf: ${this.where} is not valid UTF-8`);
      throw error;
    }
  }

  /** Checks that a message's fields ended at its declared end. */
  ended(end: number): void {
    if (this.pos !== end)
      throw new ProtobufError(`protobuf: ${this.where} overruns its declared length by ${this.pos - end} bytes`);
  }
}

function readV1(r: Reader): DecodedWrite {
  const series: DecodedSeries[] = [];
  const end = r.len;
  const wire = Buffer.from(r.wire.buffer, r.wire.byteOffset, r.wire.byteLength);
  while (r.pos < end) {
    r.next();
    if (r.field === 1) {
      const where = `timeseries[${series.length}]`;
      r.where = where;
      r.expect(r.wireType, WireType.LengthDelimited, where);
      series.push(readSeriesV1(r, r.message(end), where, wire));
    } else r.skip(r.wireType, r.field);
  }
  return { version: 1, series };
}

/**
 * `TimeSeries { labels = 1 { name = 1, value = 2 }, samples = 2, exemplars = 3, histograms = 4 }`. Label fields are
 * only measured here: they are read when asked for (V1Series).
 */
function readSeriesV1(r: Reader, end: number, where: string, wire: Buffer): DecodedSeries {
  const series = new V1Series(wire, where);
  let labels = 0;
  while (r.pos < end) {
    const at = r.pos;
    r.next();
    if (r.field === 1) {
      r.inItem(where, 'labels', labels++);
      r.expectHere(r.wireType, WireType.LengthDelimited, '');
      r.pos = r.message(end);
      if (series.labelsStart < 0) series.labelsStart = at;
      series.labelsEnd = r.pos;
    } else if (r.field === 2) readSample(r, r.wireType, end, where, series);
    else if (r.field === 3 || r.field === 4) {
      if (r.field === 3) series.exemplars++;
      else series.histograms++;
      r.skip(r.wireType, r.field);
    } else r.skip(r.wireType, r.field);
    r.where = where;
  }
  r.ended(end);
  series.labelsKey = series.labelsStart < 0 ? '' : wire.toString('latin1', series.labelsStart, series.labelsEnd);
  return series;
}

/** A 1.0 series: its label fields lie in [labelsStart, labelsEnd) of the request (with any other field between). */
class V1Series extends Samples implements DecodedSeries {
  labelsStart = -1;
  labelsEnd = -1;
  labelsKey = '';

  constructor(
    private readonly wire: Buffer,
    private readonly where: string,
  ) {
    super();
  }

  labels(): [string, string][] {
    const labels: [string, string][] = [];
    if (this.labelsStart < 0) return labels;
    const r = new Reader(this.wire);
    r.pos = this.labelsStart;
    return reading(r, () => {
      while (r.pos < this.labelsEnd) {
        r.next();
        if (r.field !== 1) {
          r.skip(r.wireType, r.field);
          continue;
        }
        const at = `${this.where}.labels[${labels.length}]`;
        r.where = at;
        const labelEnd = r.message(this.labelsEnd);
        let name = '';
        let value = '';
        while (r.pos < labelEnd) {
          r.next();
          if (r.field === 1 || r.field === 2) {
            const part = `${at}.${r.field === 1 ? 'name' : 'value'}`;
            r.where = part;
            r.expect(r.wireType, WireType.LengthDelimited, part);
            if (r.field === 1) name = r.text();
            else value = r.text();
            r.where = at;
          } else r.skip(r.wireType, r.field);
        }
        r.ended(labelEnd);
        labels.push([name, value]);
      }
      return labels;
    });
  }
}

function readV2(r: Reader): DecodedWrite {
  const symbols: string[] = [];
  const refs: number[][] = [];
  const series: V2Series[] = [];
  const end = r.len;
  while (r.pos < end) {
    r.next();
    if (r.field === 4) {
      r.where = `symbols[${symbols.length}]`;
      r.expect(r.wireType, WireType.LengthDelimited, r.where);
      symbols.push(r.text());
    } else if (r.field === 5) {
      const where = `timeseries[${series.length}]`;
      r.where = where;
      r.expect(r.wireType, WireType.LengthDelimited, where);
      const labelRefs: number[] = [];
      series.push(readSeriesV2(r, r.message(end), where, labelRefs));
      refs.push(labelRefs);
    } else r.skip(r.wireType, r.field);
  }
  // Symbols may come after the series that use them: protobuf does not order fields.
  series.forEach((s, i) => {
    const list = refs[i]!;
    if (list.length % 2 !== 0)
      throw new ProtobufError(
        `timeseries[${i}].labels_refs must hold name and value pairs (got ${list.length} references)`,
      );
    let key = '';
    for (let k = 0; k < list.length; k += 2) {
      const name = symbol(symbols, list, i, k);
      const value = symbol(symbols, list, i, k + 1);
      s.resolved.push([name, value]);
      key += spelled(name) + spelled(value);
    }
    s.labelsKey = key;
  });
  return { version: 2, series };
}

function symbol(symbols: readonly string[], refs: readonly number[], series: number, k: number): string {
  const ref = refs[k]!;
  const text = symbols[ref];
  if (text === undefined)
    throw new ProtobufError(
      `timeseries[${series}].labels_refs[${k}] refers to symbol ${ref}, past the ${symbols.length} symbols of the request`,
    );
  return text;
}

/** A 2.0 series: its labels resolved through the request's symbol table once the whole request is read. */
class V2Series extends Samples implements DecodedSeries {
  readonly resolved: [string, string][] = [];
  labelsKey = '';

  labels(): [string, string][] {
    return this.resolved;
  }
}

/**
 * `TimeSeries { labels_refs = 1 (packed uint32), samples = 2, histograms = 3, exemplars = 4, metadata = 5,
 * created_timestamp = 6 }`.
 */
function readSeriesV2(r: Reader, end: number, where: string, refs: number[]): V2Series {
  const series = new V2Series();
  while (r.pos < end) {
    r.next();
    if (r.field === 1) {
      r.where = `${where}.labels_refs`;
      if (r.wireType === WireType.Varint) refs.push(r.uint32());
      else {
        r.expect(r.wireType, WireType.LengthDelimited, r.where);
        const refsEnd = r.message(end);
        while (r.pos < refsEnd) refs.push(r.uint32());
        r.ended(refsEnd);
      }
    } else if (r.field === 2) readSample(r, r.wireType, end, where, series);
    else if (r.field === 3 || r.field === 4) {
      if (r.field === 3) series.histograms++;
      else series.exemplars++;
      r.skip(r.wireType, r.field);
    } else r.skip(r.wireType, r.field);
    r.where = where;
  }
  r.ended(end);
  return series;
}

/** `Sample { double value = 1; int64 timestamp = 2; (2.0: int64 start_timestamp = 3) }`, the same numbers in both. */
function readSample(r: Reader, wireType: WireType, parentEnd: number, where: string, series: Samples): void {
  r.inItem(where, 'samples', series.timestamps.length);
  r.expectHere(wireType, WireType.LengthDelimited, '');
  const end = r.message(parentEnd);
  let value = 0;
  let stale = false;
  let timestamp = 0;
  while (r.pos < end) {
    r.next();
    if (r.field === 1) {
      r.expectHere(r.wireType, WireType.Bit64, '.value');
      value = r.double();
      stale = Number.isNaN(value) && isStaleBits(r.wire, r.pos - 8);
    } else if (r.field === 2) {
      r.expectHere(r.wireType, WireType.Varint, '.timestamp');
      timestamp = Number(r.int64());
    } else r.skip(r.wireType, r.field);
  }
  r.ended(end);
  series.add(timestamp, value);
  if (stale) series.staleMarkers++;
}

/**
 * Prometheus's staleness marker is the NaN with bits 0x7ff0000000000002 (little-endian on the wire). Its bits are read
 * from the message, not from the double: V8 need not keep a NaN's payload.
 */
function isStaleBits(bytes: Uint8Array, at: number): boolean {
  return (
    bytes[at] === 0x02 &&
    bytes[at + 1] === 0 &&
    bytes[at + 2] === 0 &&
    bytes[at + 3] === 0 &&
    bytes[at + 4] === 0 &&
    bytes[at + 5] === 0 &&
    bytes[at + 6] === 0xf0 &&
    bytes[at + 7] === 0x7f
  );
}
