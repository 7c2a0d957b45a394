/**
 * Remote write's protobuf messages, read field by field with @bufbuild/protobuf's BinaryReader: 1.0's
 * `prometheus.WriteRequest` and 2.0's `io.prometheus.write.v2.Request` (its labels resolved through the symbol table),
 * into one shape. Field numbers are the specs' (docs/ingest.md); code generation would add a build step for a dozen
 * fields. Unknown fields are skipped, as protobuf's rules ask; a malformed message is an error naming the element
 * where it broke. Native histograms, exemplars and metadata are counted and otherwise left unread.
 */
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';

/** One series as the request sent it: labels in wire order (checked later), samples in wire order. */
export interface DecodedSeries {
  readonly labels: [string, string][];
  readonly timestamps: number[];
  readonly values: number[];
  /** Per sample: whether it is Prometheus's staleness marker (a NaN told apart from others by its bits). */
  readonly stale: boolean[];
  /** Native histogram samples of the series (not stored). */
  histograms: number;
  exemplars: number;
}

export interface DecodedWrite {
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
  try {
    return version === 1 ? readV1(r) : readV2(r);
  } catch (error) {
    if (error instanceof ProtobufError) throw error;
    // BinaryReader's own errors (premature EOF, a varint too long, a bad wire type) get the element's name.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProtobufError(`protobuf: ${r.where || 'the request'} is malformed: ${reason}`);
  }
}

/** The reader, the element being read (for errors) and the buffer (for a NaN's bits). */
class Reader extends BinaryReader {
  private element = '';
  /** The sample of `element` being read, or -1: its name is spelled out only for an error (thousands a request). */
  private sample = -1;

  constructor(readonly wire: Uint8Array) {
    super(wire);
  }

  get where(): string {
    return this.sample < 0 ? this.element : `${this.element}.samples[${this.sample}]`;
  }

  set where(element: string) {
    this.element = element;
    this.sample = -1;
  }

  /** Reading sample `index` of the series `where` names. */
  inSample(where: string, index: number): void {
    this.element = where;
    this.sample = index;
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
  while (r.pos < end) {
    const [field, wireType] = r.tag();
    if (field === 1) {
      const where = `timeseries[${series.length}]`;
      r.where = where;
      r.expect(wireType, WireType.LengthDelimited, where);
      series.push(readSeriesV1(r, r.message(end), where));
    } else r.skip(wireType, field);
  }
  return { series };
}

/** `TimeSeries { labels = 1 { name = 1, value = 2 }, samples = 2, exemplars = 3, histograms = 4 }`. */
function readSeriesV1(r: Reader, end: number, where: string): DecodedSeries {
  const series = emptySeries();
  while (r.pos < end) {
    const [field, wireType] = r.tag();
    if (field === 1) {
      const at = `${where}.labels[${series.labels.length}]`;
      r.where = at;
      r.expect(wireType, WireType.LengthDelimited, at);
      const labelEnd = r.message(end);
      let name = '';
      let value = '';
      while (r.pos < labelEnd) {
        const [labelField, labelType] = r.tag();
        if (labelField === 1 || labelField === 2) {
          const part = `${at}.${labelField === 1 ? 'name' : 'value'}`;
          r.where = part;
          r.expect(labelType, WireType.LengthDelimited, part);
          if (labelField === 1) name = r.text();
          else value = r.text();
          r.where = at;
        } else r.skip(labelType, labelField);
      }
      r.ended(labelEnd);
      series.labels.push([name, value]);
    } else if (field === 2) readSample(r, wireType, end, where, series);
    else if (field === 3 || field === 4) {
      if (field === 3) series.exemplars++;
      else series.histograms++;
      r.skip(wireType, field);
    } else r.skip(wireType, field);
    r.where = where;
  }
  r.ended(end);
  return series;
}

function readV2(r: Reader): DecodedWrite {
  const symbols: string[] = [];
  const refs: number[][] = [];
  const series: DecodedSeries[] = [];
  const end = r.len;
  while (r.pos < end) {
    const [field, wireType] = r.tag();
    if (field === 4) {
      r.where = `symbols[${symbols.length}]`;
      r.expect(wireType, WireType.LengthDelimited, r.where);
      symbols.push(r.text());
    } else if (field === 5) {
      const where = `timeseries[${series.length}]`;
      r.where = where;
      r.expect(wireType, WireType.LengthDelimited, where);
      const labelRefs: number[] = [];
      series.push(readSeriesV2(r, r.message(end), where, labelRefs));
      refs.push(labelRefs);
    } else r.skip(wireType, field);
  }
  // Symbols may come after the series that use them: protobuf does not order fields.
  series.forEach((s, i) => {
    const list = refs[i]!;
    if (list.length % 2 !== 0)
      throw new ProtobufError(
        `timeseries[${i}].labels_refs must hold name and value pairs (got ${list.length} references)`,
      );
    for (let k = 0; k < list.length; k += 2)
      s.labels.push([symbol(symbols, list, i, k), symbol(symbols, list, i, k + 1)]);
  });
  return { series };
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

/**
 * `TimeSeries { labels_refs = 1 (packed uint32), samples = 2, histograms = 3, exemplars = 4, metadata = 5,
 * created_timestamp = 6 }`.
 */
function readSeriesV2(r: Reader, end: number, where: string, refs: number[]): DecodedSeries {
  const series = emptySeries();
  while (r.pos < end) {
    const [field, wireType] = r.tag();
    if (field === 1) {
      r.where = `${where}.labels_refs`;
      if (wireType === WireType.Varint) refs.push(r.uint32());
      else {
        r.expect(wireType, WireType.LengthDelimited, r.where);
        const refsEnd = r.message(end);
        while (r.pos < refsEnd) refs.push(r.uint32());
        r.ended(refsEnd);
      }
    } else if (field === 2) readSample(r, wireType, end, where, series);
    else if (field === 3 || field === 4) {
      if (field === 3) series.histograms++;
      else series.exemplars++;
      r.skip(wireType, field);
    } else r.skip(wireType, field);
    r.where = where;
  }
  r.ended(end);
  return series;
}

/** `Sample { double value = 1; int64 timestamp = 2; (2.0: int64 start_timestamp = 3) }`, the same numbers in both. */
function readSample(r: Reader, wireType: WireType, parentEnd: number, where: string, series: DecodedSeries): void {
  r.inSample(where, series.timestamps.length);
  r.expectHere(wireType, WireType.LengthDelimited, '');
  const end = r.message(parentEnd);
  let value = 0;
  let stale = false;
  let timestamp = 0;
  while (r.pos < end) {
    const [field, type] = r.tag();
    if (field === 1) {
      r.expectHere(type, WireType.Bit64, '.value');
      value = r.double();
      stale = Number.isNaN(value) && isStaleBits(r.wire, r.pos - 8);
    } else if (field === 2) {
      r.expectHere(type, WireType.Varint, '.timestamp');
      timestamp = Number(r.int64());
    } else r.skip(type, field);
  }
  r.ended(end);
  series.timestamps.push(timestamp);
  series.values.push(value);
  series.stale.push(stale);
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

function emptySeries(): DecodedSeries {
  return { labels: [], timestamps: [], values: [], stale: [], histograms: 0, exemplars: 0 };
}
