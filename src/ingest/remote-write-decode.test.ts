/**
 * Remote write's messages from exact bytes (1.0 and 2.0, checked against the test sender's encoder), into the write
 * batch, and each malformed or invalid request refused whole with an error naming the element and the value.
 */
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { embeddedKeyLimits } from '../store/embedded/keys.js';
import { encodeWriteRequestV1, encodeWriteRequestV2, writeLabelsV1 } from '../../test/support/remote-write.js';
import { remoteWriteBatch } from './remote-write-batch.js';
import { decodeWriteRequest, ProtobufError, type RemoteWriteVersion } from './remote-write-decode.js';

const LIMITS = { maxPoints: 100, keys: embeddedKeyLimits(1978) };

/** `up{job="a"} 1 @1000` as 1.0 sends it: WriteRequest.timeseries[0] { labels, labels, samples }. */
const V1 = Buffer.from(
  '0a28' +
    '0a0e' +
    '0a08' +
    Buffer.from('__name__').toString('hex') +
    '1202' +
    Buffer.from('up').toString('hex') +
    '0a08' +
    '0a03' +
    Buffer.from('job').toString('hex') +
    '1201' +
    Buffer.from('a').toString('hex') +
    '120c' +
    '09000000000000f03f' +
    '10e807',
  'hex',
);

/** The same as 2.0 sends it: symbols "", "__name__", "up", "job", "a", then timeseries { labels_refs 1 2 3 4, samples }. */
const V2 = Buffer.from(
  '2200' +
    '2208' +
    Buffer.from('__name__').toString('hex') +
    '2202' +
    Buffer.from('up').toString('hex') +
    '2203' +
    Buffer.from('job').toString('hex') +
    '2201' +
    Buffer.from('a').toString('hex') +
    '2a14' +
    '0a0401020304' +
    '120c' +
    '09000000000000f03f' +
    '10e807',
  'hex',
);

const UP = { labels: { __name__: 'up', job: 'a' }, timestampsMs: [1000], values: [1] };

/** A 1.0 request of one series with these label fields, in this order (repeats allowed), and one sample. */
function v1Labels(labels: readonly [string, string][]): Uint8Array {
  const w = new BinaryWriter();
  w.tag(1, WireType.LengthDelimited).fork();
  writeLabelsV1(w, labels);
  w.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.Bit64).double(1).tag(2, WireType.Varint).int64(1000);
  return w.join().join().finish();
}

/** A 2.0 request of one series with these labels (symbols in this order after ""), and one sample. */
function v2Labels(symbols: readonly string[]): Uint8Array {
  const w = new BinaryWriter();
  for (const text of ['', ...symbols]) w.tag(4, WireType.LengthDelimited).string(text);
  w.tag(5, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).fork();
  for (let k = 1; k <= symbols.length; k++) w.uint32(k);
  w.join().tag(2, WireType.LengthDelimited).fork().tag(1, WireType.Bit64).double(1).tag(2, WireType.Varint).int64(1);
  return w.join().join().finish();
}

function batchOf(bytes: Uint8Array, version: RemoteWriteVersion) {
  return remoteWriteBatch(decodeWriteRequest(bytes, version), LIMITS);
}

function plain(result: ReturnType<typeof batchOf>) {
  return {
    series: result.batch.series.map((s) => ({ ...s, tags: { ...s.tags } })),
    counts: result.counts,
  };
}

const NO_DROPS = { stale: 0, nan: 0, infinite: 0, histograms: 0, exemplars: 0 };

describe('decodeWriteRequest', () => {
  it('reads 1.0 and 2.0 bytes into the same series, metric from __name__ and the rest as tags', () => {
    expect(Buffer.from(encodeWriteRequestV1([UP]))).toEqual(V1);
    expect(Buffer.from(encodeWriteRequestV2([UP]))).toEqual(V2);
    const expected = {
      series: [{ metric: 'up', tags: { job: 'a' }, type: 'double', ttlSeconds: 0, timestamps: [1000], values: [1] }],
      counts: { stored: 1, ...NO_DROPS },
    };
    expect(plain(batchOf(V1, 1))).toEqual(expected);
    expect(plain(batchOf(V2, 2))).toEqual(expected);
  });

  it('leaves out staleness markers, other NaNs and ±Inf, counting each, and names kept samples by wire index', () => {
    const stale = Buffer.from(
      encodeWriteRequestV1([
        {
          labels: { __name__: 'x', h: 'a' },
          timestampsMs: [1, 2, 3, 4, 5],
          values: [Number.NaN, 2, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 5],
        },
      ]),
    );
    // The test sender writes NaN as an ordinary NaN; the first sample becomes the staleness marker by its bits.
    const at = stale.indexOf(Buffer.from('000000000000f87f', 'hex'));
    Buffer.from('020000000000f07f', 'hex').copy(stale, at);
    const result = batchOf(stale, 1);
    expect(plain(result)).toEqual({
      series: [{ metric: 'x', tags: { h: 'a' }, type: 'double', ttlSeconds: 0, timestamps: [2, 5], values: [2, 5] }],
      counts: { stored: 2, stale: 1, nan: 0, infinite: 2, histograms: 0, exemplars: 0 },
    });
    const nan = encodeWriteRequestV2([{ labels: { __name__: 'x', h: 'a' }, timestampsMs: [1], values: [Number.NaN] }]);
    expect(plain(batchOf(nan, 2))).toEqual({ series: [], counts: { stored: 0, ...NO_DROPS, nan: 1 } });
  });

  it('names the kept sample by its index on the wire when a timestamp is refused', () => {
    const bytes = encodeWriteRequestV1([
      { labels: { __name__: 'x', h: 'a' }, timestampsMs: [1, 9e15], values: [Number.NaN, 2] },
    ]);
    expect(() => batchOf(bytes, 1)).toThrow(
      'timeseries[0].samples[1].timestamp must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got 9000000000000000)',
    );
  });

  it('skips unknown fields, counts histograms and exemplars, and drops empty label values', () => {
    const w = new BinaryWriter();
    w.tag(1, WireType.LengthDelimited).fork();
    for (const [name, value] of [
      ['__name__', 'm'],
      ['empty', ''],
      ['h', 'a'],
    ])
      w.tag(1, WireType.LengthDelimited)
        .fork()
        .tag(1, WireType.LengthDelimited)
        .string(name!)
        .tag(2, WireType.LengthDelimited)
        .string(value!)
        .join();
    w.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.Bit64).double(7).tag(2, WireType.Varint).int64(5);
    w.tag(9, WireType.Varint).uint32(1).join();
    w.tag(3, WireType.LengthDelimited).bytes(new Uint8Array([1, 2]));
    w.tag(4, WireType.LengthDelimited).bytes(new Uint8Array([3]));
    w.tag(15, WireType.Bit32).fixed32(7);
    w.join();
    w.tag(3, WireType.LengthDelimited).bytes(new Uint8Array([8, 1]));
    w.tag(77, WireType.LengthDelimited).string('future');
    expect(plain(batchOf(w.finish(), 1))).toEqual({
      series: [{ metric: 'm', tags: { h: 'a' }, type: 'double', ttlSeconds: 0, timestamps: [5], values: [7] }],
      counts: { stored: 1, stale: 0, nan: 0, infinite: 0, histograms: 1, exemplars: 1 },
    });
  });

  it('counts 2.0 histograms and exemplars by their own field numbers, and ignores metadata and start timestamps', () => {
    const w = new BinaryWriter();
    for (const text of ['', '__name__', 'm', 'h', 'a']) w.tag(4, WireType.LengthDelimited).string(text);
    w.tag(5, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).fork().uint32(1).uint32(2).uint32(3).uint32(4).join();
    w.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.Bit64).double(2).tag(2, WireType.Varint).int64(9);
    w.tag(3, WireType.Varint).int64(1).join();
    w.tag(3, WireType.LengthDelimited).bytes(new Uint8Array([8, 1]));
    w.tag(3, WireType.LengthDelimited).bytes(new Uint8Array([8, 2]));
    w.tag(4, WireType.LengthDelimited).bytes(new Uint8Array([8, 3]));
    w.tag(5, WireType.LengthDelimited).bytes(new Uint8Array([8, 1]));
    w.tag(6, WireType.Varint).int64(5);
    w.join();
    expect(plain(batchOf(w.finish(), 2))).toEqual({
      series: [{ metric: 'm', tags: { h: 'a' }, type: 'double', ttlSeconds: 0, timestamps: [9], values: [2] }],
      counts: { stored: 1, stale: 0, nan: 0, infinite: 0, histograms: 2, exemplars: 1 },
    });
  });

  it('writes a series with __name__ alone', () => {
    const bytes = encodeWriteRequestV2([{ labels: { __name__: 'lonely' }, timestampsMs: [3], values: [4] }]);
    expect(plain(batchOf(bytes, 2)).series).toEqual([
      { metric: 'lonely', tags: {}, type: 'double', ttlSeconds: 0, timestamps: [3], values: [4] },
    ]);
  });
});

describe('malformed and invalid requests', () => {
  it('names a truncated message and where it broke', () => {
    expect(() => decodeWriteRequest(V1.subarray(0, 20), 1)).toThrow(
      'protobuf: timeseries[0] declares 40 bytes, past the end of its enclosing message by 22',
    );
    expect(() => decodeWriteRequest(V2.subarray(0, V2.length - 2), 2)).toThrow(
      'protobuf: timeseries[0] declares 20 bytes, past the end of its enclosing message by 2',
    );
    expect(() => decodeWriteRequest(Buffer.from('0a0212', 'hex'), 1)).toThrow(
      'protobuf: timeseries[0] declares 2 bytes, past the end of its enclosing message by 1',
    );
  });

  it('names a field of the wrong wire type and garbage that is not protobuf', () => {
    expect(() => decodeWriteRequest(Buffer.from('0801', 'hex'), 1)).toThrow(
      'protobuf: timeseries[0] has wire type Varint, not LengthDelimited',
    );
    expect(() => decodeWriteRequest(Buffer.from('0a0412020801', 'hex'), 1)).toThrow(
      'protobuf: timeseries[0].samples[0].value has wire type Varint, not Bit64',
    );
    expect(() => decodeWriteRequest(Buffer.from('ff', 'hex'), 1)).toThrow(
      'protobuf: the request is malformed: premature EOF',
    );
    expect(() => decodeWriteRequest(Buffer.from('07', 'hex'), 2)).toThrow(
      'protobuf: the request is malformed: illegal tag: field no 0 wire type 7',
    );
  });

  it('gives a series the same frozen tags in every request that names it, and refuses bad labels in every request', () => {
    for (const [bytes, version] of [
      [V1, 1],
      [V2, 2],
    ] as const) {
      const first = batchOf(bytes, version).batch.series[0]!.tags;
      expect(batchOf(bytes, version).batch.series[0]!.tags).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);
      expect({ ...first }).toEqual({ job: 'a' });
    }
    const repeated = v1Labels([
      ['__name__', 'up'],
      ['job', 'a'],
      ['job', 'b'],
    ]);
    for (let request = 0; request < 2; request++)
      expect(() => batchOf(repeated, 1)).toThrow(
        'timeseries[0].labels[2].name repeats a label of the series (got "job")',
      );
  });

  it('reads 1.0 label fields once: a later request naming the series by the same bytes does not read them', () => {
    const bytes = v1Labels([
      ['__name__', 'once'],
      ['host', 'a'],
    ]);
    const first = batchOf(bytes, 1).batch.series[0]!;
    const again = decodeWriteRequest(bytes, 1);
    again.series[0]!.labels = () => {
      throw new Error('read again');
    };
    const series = remoteWriteBatch(again, LIMITS).batch.series[0]!;
    expect(series.tags).toBe(first.tags);
    expect(series.metric).toBe('once');
  });

  it('reads 1.0 labels that come after a sample or around unknown fields', () => {
    const w = new BinaryWriter();
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string('__name__');
    w.tag(2, WireType.LengthDelimited).string('late').join();
    w.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.Bit64).double(3).tag(2, WireType.Varint).int64(7).join();
    w.tag(9, WireType.Varint).uint32(1);
    w.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string('h');
    w.tag(2, WireType.LengthDelimited).string('b').join();
    expect(plain(batchOf(w.join().finish(), 1)).series).toEqual([
      { metric: 'late', tags: { h: 'b' }, type: 'double', ttlSeconds: 0, timestamps: [7], values: [3] },
    ]);
  });

  it('refuses a series without __name__, a repeated label and an empty label name', () => {
    // labels_refs 3 4 1 2 → 3 4 3 4: "job" twice and no __name__.
    const noName = Buffer.from(V2);
    noName.set([3, 4], noName.indexOf(Buffer.from('0a0401020304', 'hex')) + 2);
    expect(() => batchOf(noName, 2)).toThrow('timeseries[0].labels[1].name repeats a label of the series (got "job")');
    for (const [bytes, version] of [
      [v1Labels([['job', 'a']]), 1],
      [v2Labels(['job', 'a']), 2],
    ] as const)
      expect(() => batchOf(bytes, version)).toThrow('timeseries[0].labels must hold __name__ (got {"job":"a"})');
    // Past 16 labels, repeats are found through a set rather than by looking back.
    const many: [string, string][] = [['__name__', 'up']];
    for (let k = 0; k < 20; k++) many.push([`l${k}`, 'v']);
    many.push(['l7', 'w']);
    expect(() => batchOf(v1Labels(many), 1)).toThrow(
      'timeseries[0].labels[21].name repeats a label of the series (got "l7")',
    );
    expect(() =>
      batchOf(
        v1Labels([
          ['__name__', 'up'],
          ['', 'b'],
        ]),
        1,
      ),
    ).toThrow('timeseries[0].labels[1].name must not be empty (got "")');
  });

  it('refuses 2.0 label references that are odd in number or past the symbol table', () => {
    const odd = Buffer.from(V2);
    odd[odd.indexOf(Buffer.from('0a0401020304', 'hex')) + 5] = 0x09;
    expect(() => decodeWriteRequest(odd, 2)).toThrow(
      'timeseries[0].labels_refs[3] refers to symbol 9, past the 5 symbols of the request',
    );
    const w = new BinaryWriter();
    w.tag(4, WireType.LengthDelimited).string('');
    w.tag(5, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).fork().uint32(0).join().join();
    expect(() => decodeWriteRequest(w.finish(), 2)).toThrow(
      'timeseries[0].labels_refs must hold name and value pairs (got 1 references)',
    );
  });

  it('refuses invalid UTF-8 and malformed fields in a label, in every request', () => {
    const bad = Buffer.from(V1);
    bad[bad.indexOf(Buffer.from('job'))] = 0xff;
    for (let request = 0; request < 2; request++)
      expect(() => batchOf(bad, 1)).toThrow(
        new ProtobufError('protobuf: timeseries[0].labels[1].name is not valid UTF-8'),
      );
    // The second label's name declares 9 bytes: it takes in the value's field and 3 bytes past its label.
    const long = Buffer.from(V1);
    long[long.indexOf(Buffer.from('job')) - 1] = 9;
    expect(() => batchOf(long, 1)).toThrow(
      new ProtobufError('protobuf: timeseries[0].labels[1] overruns its declared length by 3 bytes'),
    );
    const wrongType = Buffer.from(V1);
    wrongType[wrongType.indexOf(Buffer.from('job')) - 2] = 0x08;
    expect(() => batchOf(wrongType, 1)).toThrow(
      new ProtobufError('protobuf: timeseries[0].labels[1].name has wire type Varint, not LengthDelimited'),
    );
  });

  it('refuses a batch over MAX_WRITE_POINTS whole', () => {
    const many = encodeWriteRequestV1([
      { labels: { __name__: 'x', h: 'a' }, timestampsMs: [1, 2, 3], values: [1, 2, 3] },
    ]);
    expect(() => remoteWriteBatch(decodeWriteRequest(many, 1), { ...LIMITS, maxPoints: 2 })).toThrow(
      'timeseries must hold at most 2 points in one batch (got 3)',
    );
  });
});
