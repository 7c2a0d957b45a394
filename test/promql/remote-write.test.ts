/**
 * The remote-write encoder the Prometheus oracle writes with (test/support/remote-write.ts), decoded here field by
 * field: the receiver's side of the messages, the staleness marker's exact bits, and requests cut in time order.
 */
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import snappy from 'snappyjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { STALE_NAN } from '../../src/engine/promql/values.js';
import { encodeWriteRequestV1, encodeWriteRequestV2, remoteWrite } from '../support/remote-write.js';

interface Field {
  no: number;
  wire: WireType;
  bytes?: Uint8Array;
  varint?: bigint;
  bits?: bigint;
}

function fields(bytes: Uint8Array): Field[] {
  const r = new BinaryReader(bytes);
  const out: Field[] = [];
  while (r.pos < r.len) {
    const [no, wire] = r.tag();
    if (wire === WireType.LengthDelimited) out.push({ no, wire, bytes: r.bytes() });
    else if (wire === WireType.Varint) out.push({ no, wire, varint: BigInt(r.uint64()) });
    else if (wire === WireType.Bit64) out.push({ no, wire, bits: BigInt(r.fixed64()) });
    else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

const text = (b: Uint8Array | undefined) => new TextDecoder().decode(b);

function samples(series: Field[]): [bigint, bigint][] {
  return series
    .filter((f) => f.no === 2)
    .map((f) => {
      const s = fields(f.bytes!);
      return [s.find((x) => x.no === 2)!.varint!, s.find((x) => x.no === 1)!.bits!];
    });
}

const bitsOf = (v: number) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  return view.getBigUint64(0);
};

const SERIES = [
  { labels: { job: 'demo', __name__: 'up', instance: 'a:1' }, timestampsMs: [1000, 2000], values: [1, STALE_NAN] },
];

describe('remote write encoding', () => {
  it('1.0: labels sorted by name, samples as double and int64, the staleness marker bit for bit', () => {
    const request = fields(encodeWriteRequestV1(SERIES));
    expect(request.map((f) => f.no)).toEqual([1]);
    const series = fields(request[0]!.bytes!);
    const labels = series.filter((f) => f.no === 1).map((f) => fields(f.bytes!).map((x) => text(x.bytes)));
    expect(labels).toEqual([
      ['__name__', 'up'],
      ['instance', 'a:1'],
      ['job', 'demo'],
    ]);
    expect(samples(series)).toEqual([
      [1000n, bitsOf(1)],
      [2000n, 0x7ff0000000000002n],
    ]);
  });

  it('2.0: a symbol table starting with "", label references into it, the same samples', () => {
    const request = fields(encodeWriteRequestV2(SERIES));
    const symbols = request.filter((f) => f.no === 4).map((f) => text(f.bytes));
    expect(symbols[0]).toBe('');
    const series = fields(request.find((f) => f.no === 5)!.bytes!);
    const refs = new BinaryReader(series.find((f) => f.no === 1)!.bytes!);
    const names: string[] = [];
    while (refs.pos < refs.len) names.push(symbols[refs.uint32()]!);
    expect(names).toEqual(['__name__', 'up', 'instance', 'a:1', 'job', 'demo']);
    expect(samples(series)).toEqual([
      [1000n, bitsOf(1)],
      [2000n, 0x7ff0000000000002n],
    ]);
  });

  it('refuses an empty label value and a series without a name', () => {
    expect(() => encodeWriteRequestV1([{ labels: { __name__: 'x', a: '' }, timestampsMs: [], values: [] }])).toThrow(
      /empty label/,
    );
    expect(() => encodeWriteRequestV1([{ labels: { a: 'b' }, timestampsMs: [], values: [] }])).toThrow(/__name__/);
  });
});

describe('remoteWrite', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sends snappy-compressed requests in time order, none older than the one before', async () => {
    const bodies: { headers: Record<string, string>; times: number[] }[] = [];
    vi.stubGlobal('fetch', async (_url: string, init: { headers: Record<string, string>; body: Uint8Array }) => {
      const request = fields(snappy.uncompress(new Uint8Array(init.body)));
      bodies.push({
        headers: init.headers,
        times: request.flatMap((f) => samples(fields(f.bytes!)).map(([t]) => Number(t))),
      });
      return new Response(null, { status: 204 });
    });
    const long = (offset: number) => ({
      labels: { __name__: `s${offset}` },
      timestampsMs: Array.from({ length: 100 }, (_, i) => i * 10 + offset),
      values: Array.from({ length: 100 }, (_, i) => i),
    });
    const summary = await remoteWrite('http://prometheus', [long(0), long(3), long(7)], { maxSamplesPerRequest: 40 });
    expect(summary).toEqual({ requests: 8, samples: 300 });
    expect(bodies.every((b) => b.times.length <= 40)).toBe(true);
    for (let i = 1; i < bodies.length; i++)
      expect(Math.min(...bodies[i]!.times)).toBeGreaterThanOrEqual(Math.max(...bodies[i - 1]!.times));
    expect(bodies[0]!.headers).toMatchObject({
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
    });
  });
});
