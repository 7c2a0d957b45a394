/**
 * The ReadRows chunk merger on answers shaped as the service and the emulator send them: keys repeated or sent once,
 * qualifiers kept across chunks, values split over chunks, rows reset half-way, and answers that break the protocol.
 */
import { describe, expect, it } from 'vitest';
import { ChunkMerger } from './chunk-merger.js';
import { ProtoWriter, protoFields } from './proto-wire.js';

interface Chunk {
  key?: string;
  family?: string;
  qualifier?: string;
  micros?: number;
  value?: string;
  valueSize?: number;
  reset?: boolean;
  commit?: boolean;
}

const wrap = (field: number, bytes: Buffer): Buffer =>
  new ProtoWriter().bytes(field, new ProtoWriter().bytes(1, bytes).finish()).finish();

/** A ReadRowsResponse of the chunks. */
function response(...chunks: Chunk[]): Buffer {
  const r = new ProtoWriter();
  for (const c of chunks) {
    const parts: Buffer[] = [];
    const w = new ProtoWriter();
    if (c.key !== undefined) w.bytes(1, Buffer.from(c.key));
    parts.push(w.finish());
    if (c.family !== undefined) parts.push(wrap(2, Buffer.from(c.family)));
    if (c.qualifier !== undefined) parts.push(wrap(3, Buffer.from(c.qualifier, 'hex')));
    const tail = new ProtoWriter().varint(4, c.micros ?? 0);
    if (c.value !== undefined) tail.bytes(6, Buffer.from(c.value));
    tail
      .varint(7, c.valueSize ?? 0)
      .varint(8, c.reset ?? false)
      .varint(9, c.commit ?? false);
    parts.push(tail.finish());
    r.bytes(1, Buffer.concat(parts));
  }
  return r.finish();
}

const shown = (rows: ReturnType<ChunkMerger['take']>) =>
  rows.map((r) => ({
    key: r.key.toString(),
    cells: r.qualifiers.map(
      (q, i) => `${r.families[i]}:${q.toString('hex')}@${r.timestampsMicros[i]}=${r.values[i]!.toString()}`,
    ),
  }));

describe('ChunkMerger', () => {
  it('merges cells into rows, keeping family and qualifier until they change, a key sent once or on every chunk', () => {
    const m = new ChunkMerger();
    expect(
      shown(
        m.take(
          response(
            { key: 'r1', family: 'points', qualifier: '00000001', micros: 2000, value: 'a' },
            { micros: 1000, value: 'b' },
            { qualifier: '00000002', micros: 3000, value: 'c', commit: true },
            { key: 'r2', family: 'points', qualifier: '00', micros: 5000, value: 'd' },
            { key: 'r2', family: 'events', qualifier: '', value: '', commit: true },
          ),
        ),
      ),
    ).toEqual([
      { key: 'r1', cells: ['points:00000001@2000=a', 'points:00000001@1000=b', 'points:00000002@3000=c'] },
      { key: 'r2', cells: ['points:00@5000=d', 'events:@0='] },
    ]);
    m.end();
  });

  it('joins a value split over chunks, and keeps a row across responses until it is committed', () => {
    const m = new ChunkMerger();
    expect(
      m.take(response({ key: 'r', family: 'f', qualifier: '01', micros: 7000, value: 'he', valueSize: 5 })),
    ).toEqual([]);
    expect(shown(m.take(response({ value: 'llo', commit: true })))).toEqual([{ key: 'r', cells: ['f:01@7000=hello'] }]);
  });

  it('drops a row reset half-way, and takes it again as sent after the reset', () => {
    const m = new ChunkMerger();
    const rows = m.take(
      response(
        { key: 'r', family: 'f', qualifier: '01', value: 'old' },
        { reset: true },
        { key: 'r', family: 'f', qualifier: '02', value: 'new', commit: true },
      ),
    );
    expect(shown(rows)).toEqual([{ key: 'r', cells: ['f:02@0=new'] }]);
  });

  it('refuses answers that break the protocol, naming what', () => {
    expect(() => new ChunkMerger().take(response({ family: 'f', qualifier: '01', value: 'x' }))).toThrow(
      'ReadRows sent a row without a key',
    );
    expect(() =>
      new ChunkMerger().take(
        response(
          { key: 'b', family: 'f', qualifier: '01', commit: true },
          { key: 'a', family: 'f', qualifier: '01', commit: true },
        ),
      ),
    ).toThrow('ReadRows sent rows out of key order');
    const cut = new ChunkMerger();
    cut.take(response({ key: 'r', family: 'f', qualifier: '01', value: 'x' }));
    expect(() => cut.end()).toThrow('ReadRows ended inside a row that was never committed');
  });
});

describe('the protobuf wire format', () => {
  it('writes varints as protobuf does, negatives in ten bytes, and leaves defaults out', () => {
    expect(new ProtoWriter().varint(1, 150).finish().toString('hex')).toBe('089601');
    expect(new ProtoWriter().varint(3, -1).finish().toString('hex')).toBe('18ffffffffffffffffff01');
    expect(new ProtoWriter().varint(1, 0).varint(2, false).finish().toString('hex')).toBe('');
    expect(new ProtoWriter().bytes(2, 'ab').bytes(3, Buffer.alloc(0)).finish().toString('hex')).toBe('120261621a00');
  });

  it('reads fields back, skipping fixed-width ones, and names a message cut short', () => {
    const message = Buffer.from('0896011102030405060708091a026162', 'hex');
    expect(
      [...protoFields(message)].map((f) => (f.wire === 0 ? [f.field, f.value] : [f.field, f.bytes.toString()])),
    ).toEqual([
      [1, 150],
      [3, 'ab'],
    ]);
    expect(() => [...protoFields(Buffer.from('1a05ab', 'hex'))]).toThrow(
      "protobuf: field 3 runs past the message's end",
    );
    expect(() => [...protoFields(Buffer.from('0896', 'hex'))]).toThrow('protobuf: the message ends inside a varint');
  });
});
