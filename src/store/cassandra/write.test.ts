/**
 * What a write sends, on a stand-in executor that records each batch and settles it when the test says: index
 * batches per index partition before any data, data batches under the size limits, both encoders carrying the same
 * cells, one write time for all, and a failure reported only once nothing of the write is in flight.
 */
import { describe, expect, it } from 'vitest';
import { encodeColumn, encodeDouble, encodeRowKey } from '../format/index.js';
import type { RowSpec } from '../store.js';
import type { SeriesWrite } from '../../model/write-batch.js';
import type { BatchQuery, Executor } from '../cassandra-client/executor.js';
import type { PointCells } from './lean-batch-hook.js';
import type { WriteEncoder } from './options.js';
import { statementsFor, type StatementName } from './statements.js';
import { NO_TAG_INDEX, parseTagIndexConfig } from '../tag-index.js';
import { writePartitions, type WriteOptions } from './write.js';
import { WrittenIndex } from './written-index.js';

const st = statementsFor('kg');
const MS: RowSpec = { unit: 'MILLISECONDS', width: 1_814_400_000 };
const WIDTH_S = 1_814_400;
const TS = 1_700_000_000_123;

interface Sent {
  readonly name: StatementName;
  readonly statements: BatchQuery[] | undefined;
  readonly cells: PointCells | undefined;
  readonly timestampMs: number;
  settle(error?: Error): void;
}

/**
 * An Executor whose batches stay in flight until settled; `sent` lists them in the order they were sent. Every
 * partition has the same replicas unless `replicasOf` says otherwise.
 */
function recorder(replicasOf: (key: Buffer) => string = () => ''): { exec: Executor; sent: Sent[] } {
  const sent: Sent[] = [];
  const record = (
    name: StatementName,
    statements: BatchQuery[] | undefined,
    cells: PointCells | undefined,
    timestampMs: number,
  ) =>
    new Promise<void>((resolve, reject) =>
      sent.push({ name, statements, cells, timestampMs, settle: (error) => (error ? reject(error) : resolve()) }),
    );
  const exec = {
    batch: (name: StatementName, statements: BatchQuery[], timestampMs: number) =>
      record(name, statements, undefined, timestampMs),
    cells: (name: StatementName, query: string, cells: PointCells, timestampMs: number) => {
      expect(query).toBe(st.insertPoint);
      return record(name, undefined, cells, timestampMs);
    },
    replicasOf,
  };
  return { exec: exec as unknown as Executor, sent };
}

/** Options of a write that remembers nothing from before it (a fresh written index, no tag index). */
function fresh(
  encoder: WriteEncoder,
  written = new WrittenIndex({ maxEntries: 1000, maxAgeMs: 60_000 }),
): WriteOptions {
  return { encoder, tagIndex: NO_TAG_INDEX, written };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

function series(metric: string, host: string, timestamps: number[], ttlSeconds = 0): SeriesWrite {
  return { metric, tags: { host }, type: 'double', ttlSeconds, timestamps, values: timestamps.map((t) => t / 10) };
}

/** The cells of a data batch as [row key hex, column, value hex, ttl], whichever the encoder. */
function cellsOf(s: Sent): [string, number, string, number][] {
  if (s.statements !== undefined) {
    return s.statements.map(({ params }) => [
      (params[0] as Buffer).toString('hex'),
      (params[1] as Buffer).readUInt32BE(0),
      (params[2] as Buffer).toString('hex'),
      params[3] as number,
    ]);
  }
  // PointCells' body: [short] 4, key, column1, value, TTL as [bytes] per cell.
  const { body, count } = s.cells!;
  const out: [string, number, string, number][] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    expect(body.readUInt16BE(p)).toBe(4);
    const keyLength = body.readInt32BE(p + 2);
    const key = body.subarray(p + 6, p + 6 + keyLength).toString('hex');
    p += 6 + keyLength + 4;
    const column = body.readUInt32BE(p);
    const length = body.readInt32BE(p + 4);
    const value = body.subarray(p + 8, p + 8 + length).toString('hex');
    p += 8 + length + 4;
    out.push([key, column, value, body.readInt32BE(p)]);
    p += 4;
  }
  expect(p).toBe(body.length);
  // The batch is routed by its first cell's key.
  if (count > 0) expect(s.cells!.key.toString('hex')).toBe(out[0]![0]);
  return out;
}

const keyHex = (metric: string, host: string, rowTime: number, dataType = 'kairos_double') =>
  Buffer.from(encodeRowKey({ metric, rowTime, dataType, tags: { host } })).toString('hex');

describe.each<WriteEncoder>(['lean', 'driver'])('a write with the %s encoder', (encoder) => {
  it('sends the index rows, one batch per index partition, and only once they are acknowledged the data', async () => {
    const { exec, sent } = recorder();
    const rowTwo = MS.width;
    const written = writePartitions(
      exec,
      st,
      MS,
      {
        series: [
          series('cpu', 'a', [10, 20, rowTwo + 5], 3600),
          series('cpu', 'b', [30]),
          series('mem', 'a', [40], 60),
        ],
      },
      TS,
      fresh(encoder),
    );
    await flush();
    expect(sent.map((s) => [s.name, s.statements!.length])).toEqual([
      // cpu@0 holds a and b, cpu@row two holds a, mem@0 holds a.
      ['row_keys.insert', 2],
      ['row_keys.insert', 1],
      ['row_keys.insert', 1],
      // One partition per metric.
      ['row_key_time_index.insert', 2],
      ['row_key_time_index.insert', 1],
      ['string_index.insert', 2],
    ]);
    const [cpuRow0, cpuRow2, memRow0, cpuTimes, memTimes, names] = sent;
    expect(
      cpuRow0!.statements!.map((q) => [
        q.query,
        q.params[0],
        q.params[2],
        q.params[3],
        Object.fromEntries(q.params[4] as Map<string, string>),
        q.params[5],
      ]),
    ).toEqual([
      // The index outlives the data by a row width; a series that never expires has no TTL.
      [st.insertRowKey, 'cpu', 0, 'kairos_double', { host: 'a' }, 3600 + WIDTH_S],
      [st.insertRowKey, 'cpu', 0, 'kairos_double', { host: 'b' }, 0],
    ]);
    expect(cpuRow2!.statements!.map((q) => [q.params[2], q.params[5]])).toEqual([[rowTwo, 3600 + WIDTH_S]]);
    expect(memRow0!.statements!.map((q) => [q.params[0], q.params[5]])).toEqual([['mem', 60 + WIDTH_S]]);
    // The row time of cpu@0 holds a series that never expires, so its entry never expires either.
    expect(cpuTimes!.statements!.map((q) => [q.query, ...q.params])).toEqual([
      [st.insertRowTime, 'cpu', 'data_points', 0, 0],
      [st.insertRowTime, 'cpu', 'data_points', rowTwo, 3600 + WIDTH_S],
    ]);
    expect(memTimes!.statements!.map((q) => q.params)).toEqual([['mem', 'data_points', 0, 60 + WIDTH_S]]);
    expect(names!.statements!.map((q) => [q.query, (q.params[0] as Buffer).toString(), q.params[1]])).toEqual([
      [st.insertName, 'metric_names', 'cpu'],
      [st.insertName, 'metric_names', 'mem'],
    ]);

    for (const s of sent.slice(0, 5)) s.settle();
    await flush();
    expect(sent).toHaveLength(6);
    sent[5]!.settle();
    await flush();
    // Every partition in one batch: the same replicas, and far under 5 KiB.
    const data = sent.slice(6);
    expect(data.map((s) => s.name)).toEqual(['data_points.insert']);
    expect(data.every((s) => (encoder === 'lean' ? s.cells !== undefined : s.statements !== undefined))).toBe(true);
    const value = (v: number) => Buffer.from(encodeDouble(v)).toString('hex');
    expect(cellsOf(data[0]!)).toEqual([
      [keyHex('cpu', 'a', 0), 10, value(1), 3600],
      [keyHex('cpu', 'a', 0), 20, value(2), 3600],
      [keyHex('cpu', 'a', rowTwo), encodeColumn(MS, rowTwo, rowTwo + 5), value((rowTwo + 5) / 10), 3600],
      [keyHex('cpu', 'b', 0), 30, value(3), 0],
      [keyHex('mem', 'a', 0), 40, value(4), 60],
    ]);
    expect(sent.every((s) => s.timestampMs === TS)).toBe(true);
    for (const s of data) s.settle();
    await expect(written).resolves.toBeUndefined();
  });

  it("splits a partition's cells into batches of at most 1000 cells and about 256 KiB", async () => {
    const { exec, sent } = recorder();
    const many = Array.from({ length: 2500 }, (_, i) => i);
    const big = 'x'.repeat(60_000);
    const written = writePartitions(
      exec,
      st,
      MS,
      {
        series: [
          series('n', 'a', many),
          {
            metric: 's',
            tags: { host: 'a' },
            type: 'string',
            ttlSeconds: 0,
            timestamps: [1, 2, 3, 4, 5],
            values: [big, big, big, big, big],
          },
        ],
      },
      TS,
      fresh(encoder),
    );
    await flush();
    for (const s of sent) s.settle();
    await flush();
    const data = sent.filter((s) => s.name === 'data_points.insert');
    // 60,002 bytes a cell: four fit in 256 KiB, the fifth starts the next batch.
    expect(data.map((s) => cellsOf(s).length)).toEqual([1000, 1000, 500, 4, 1]);
    expect(data.flatMap((s) => cellsOf(s).map(([, column]) => column)).slice(0, 2500)).toEqual(many);
    for (const s of data) s.settle();
    await written;
  });

  it('fails when an index batch fails, after every index batch settled, and sends no data', async () => {
    const { exec, sent } = recorder();
    let outcome: unknown = 'pending';
    const written = writePartitions(
      exec,
      st,
      MS,
      { series: [series('cpu', 'a', [1]), series('mem', 'a', [2])] },
      TS,
      fresh(encoder),
    ).then(
      () => (outcome = 'resolved'),
      (error: unknown) => (outcome = error),
    );
    await flush();
    expect(sent.map((s) => s.name)).toEqual([
      'row_keys.insert',
      'row_keys.insert',
      'row_key_time_index.insert',
      'row_key_time_index.insert',
      'string_index.insert',
    ]);
    const failure = new Error('row_keys is gone');
    sent[0]!.settle(failure);
    for (const s of sent.slice(1, 4)) s.settle();
    await flush();
    expect(outcome).toBe('pending');
    sent[4]!.settle();
    await written;
    expect(outcome).toBe(failure);
    expect(sent.some((s) => s.name === 'data_points.insert')).toBe(false);
  });

  it('fails when a data batch fails, only once every data batch settled', async () => {
    // Each partition on replicas of its own: a batch each.
    const { exec, sent } = recorder((key) => key.toString('hex'));
    let outcome: unknown = 'pending';
    const written = writePartitions(
      exec,
      st,
      MS,
      { series: [series('cpu', 'a', [1]), series('cpu', 'b', [2]), series('cpu', 'c', [3])] },
      TS,
      fresh(encoder),
    ).then(
      () => (outcome = 'resolved'),
      (error: unknown) => (outcome = error),
    );
    await flush();
    for (const s of sent) s.settle();
    await flush();
    const data = sent.filter((s) => s.name === 'data_points.insert');
    expect(data).toHaveLength(3);
    const failure = new Error('write timeout');
    data[0]!.settle(failure);
    data[1]!.settle();
    await flush();
    expect(outcome).toBe('pending');
    data[2]!.settle();
    await written;
    expect(outcome).toBe(failure);
  });

  it('shares batches among partitions with the same replicas, each batch under 5 KiB as Cassandra counts it', async () => {
    // Row keys of 35 bytes (m, the row time, kairos_double, host=hNNN:): 35 + 44 bytes a one-cell partition, so 64 of
    // them a batch (5,056 bytes; 65 would be 5,135, over 5,120).
    const { exec, sent } = recorder((key) => (key.includes('host=h1') ? 'node-2' : 'node-1'));
    const hosts = Array.from({ length: 300 }, (_, i) => `h${String(i).padStart(3, '0')}`);
    expect(encodeRowKey({ metric: 'm', rowTime: 0, dataType: 'kairos_double', tags: { host: 'h000' } })).toHaveLength(
      35,
    );
    const written = writePartitions(
      exec,
      st,
      MS,
      { series: hosts.map((h) => series('m', h, [1])) },
      TS,
      fresh(encoder),
    );
    await flush();
    for (const s of sent) s.settle();
    await flush();
    const data = sent.filter((s) => s.name === 'data_points.insert');
    // h000-h099 and h200-h299 on node-1 (200 partitions), h100-h199 on node-2 (100), in the order written.
    expect(data.map((s) => cellsOf(s).length)).toEqual([64, 64, 64, 8, 64, 36]);
    const hostsOf = (s: Sent) => cellsOf(s).map(([key]) => key);
    expect(data.slice(0, 4).flatMap(hostsOf)).toEqual(
      [...hosts.slice(0, 100), ...hosts.slice(200)].map((h) => keyHex('m', h, 0)),
    );
    expect(data.slice(4).flatMap(hostsOf)).toEqual(hosts.slice(100, 200).map((h) => keyHex('m', h, 0)));
    for (const s of data) s.settle();
    await written;
  });

  it('gives a partition over 5 KiB batches of its own, and puts the partitions around it together', async () => {
    const { exec, sent } = recorder();
    // 120 cells of 8 bytes: 35 + 120 × 44 bytes, over 5,120.
    const large = Array.from({ length: 120 }, (_, i) => i);
    const written = writePartitions(
      exec,
      st,
      MS,
      { series: [series('m', 'h000', [1]), series('m', 'h001', large), series('m', 'h002', [1, 2])] },
      TS,
      fresh(encoder),
    );
    await flush();
    for (const s of sent) s.settle();
    await flush();
    const data = sent.filter((s) => s.name === 'data_points.insert');
    expect(data.map((s) => [...new Set(cellsOf(s).map(([key]) => key))])).toEqual([
      [keyHex('m', 'h001', 0)],
      [keyHex('m', 'h000', 0), keyHex('m', 'h002', 0)],
    ]);
    expect(data.map((s) => cellsOf(s).length)).toEqual([120, 3]);
    for (const s of data) s.settle();
    await written;
  });

  it('sends nothing for a batch without points', async () => {
    const { exec, sent } = recorder();
    await writePartitions(exec, st, MS, { series: [] }, TS, fresh(encoder));
    expect(sent).toEqual([]);
  });
});

describe('a write of indexed tags', () => {
  it("adds KairosDB's tag_indexed_row_keys rows, one batch per metric, row time and tag=value, before any data", async () => {
    const { exec, sent } = recorder();
    const tagged = (host: string, dc: string, timestamps: number[], ttlSeconds = 0): SeriesWrite => ({
      ...series('cpu', host, timestamps, ttlSeconds),
      tags: { host, dc },
    });
    const written = writePartitions(
      exec,
      st,
      MS,
      {
        series: [
          tagged('a', 'x', [10], 3600),
          tagged('b', 'x', [20]),
          tagged('a', 'y', [MS.width + 5]),
          series('mem', 'a', [40]),
        ],
      },
      TS,
      { ...fresh('lean'), tagIndex: parseTagIndexConfig({ cpu: ['host'] }) },
    );
    await flush();
    const tagIndex = sent.filter((s) => s.name === 'tag_indexed_row_keys.insert');
    expect(
      tagIndex.map((s) =>
        s.statements!.map((q) => [
          q.query,
          q.params[0],
          q.params[1],
          q.params[2],
          q.params[3],
          q.params[4],
          q.params[5],
          Object.fromEntries(q.params[6] as Map<string, string>),
          q.params[7],
        ]),
      ),
    ).toEqual([
      // The reference's hash of the indexed tags (host=a), the full tag map, the TTL of the row_keys row.
      [
        [
          st.insertTagIndexed,
          'cpu',
          'data_points',
          0,
          'kairos_double',
          'host=a',
          -1147264974,
          { dc: 'x', host: 'a' },
          3600 + WIDTH_S,
        ],
      ],
      [
        [
          st.insertTagIndexed,
          'cpu',
          'data_points',
          0,
          'kairos_double',
          'host=b',
          expect.any(Number),
          { dc: 'x', host: 'b' },
          0,
        ],
      ],
      [
        [
          st.insertTagIndexed,
          'cpu',
          'data_points',
          MS.width,
          'kairos_double',
          'host=a',
          expect.any(Number),
          { dc: 'y', host: 'a' },
          0,
        ],
      ],
    ]);
    expect(sent.some((s) => s.name === 'data_points.insert')).toBe(false);
    for (const s of sent) s.settle();
    await flush();
    for (const s of sent.filter((s) => s.name === 'data_points.insert')) s.settle();
    await written;
  });
});

describe('a write with a written index', () => {
  /**
   * Runs a write to its end, settling each batch as it is sent (failing those `fail` picks); returns what it sent as
   * [name, statements or cells] and how it ended.
   */
  async function drive(
    sent: Sent[],
    write: () => Promise<void>,
    fail: (s: Sent) => Error | undefined = () => undefined,
  ): Promise<{ batches: [StatementName, number][]; error: unknown }> {
    const from = sent.length;
    let done = false;
    let error: unknown;
    write().then(
      () => (done = true),
      (e: unknown) => {
        done = true;
        error = e;
      },
    );
    let settled = from;
    while (!done) {
      await flush();
      while (settled < sent.length) {
        const s = sent[settled++]!;
        s.settle(fail(s));
      }
    }
    return {
      batches: sent.slice(from).map((s) => [s.name, s.statements?.length ?? s.cells!.count]),
      error,
    };
  }

  const options = (written: WrittenIndex, tagIndex = NO_TAG_INDEX): WriteOptions => ({
    encoder: 'lean',
    tagIndex,
    written,
  });

  function clocked(maxAgeMs = 300_000): { written: WrittenIndex; clock: { t: number } } {
    const clock = { t: TS };
    return { written: new WrittenIndex({ maxEntries: 100, maxAgeMs, now: () => clock.t }), clock };
  }

  it("sends no index row a second time while it is remembered, and a new series' row_keys row alone", async () => {
    const { exec, sent } = recorder();
    const { written } = clocked();
    const write = (...hosts: string[]) =>
      drive(sent, () =>
        writePartitions(
          exec,
          st,
          MS,
          { series: hosts.map((h, i) => series('cpu', h, [100 + i])) },
          TS,
          options(written),
        ),
      );
    expect((await write('a', 'b')).batches).toEqual([
      ['row_keys.insert', 2],
      ['row_key_time_index.insert', 1],
      ['string_index.insert', 1],
      ['data_points.insert', 2],
    ]);
    expect((await write('a', 'b')).batches).toEqual([['data_points.insert', 2]]);
    const third = sent.length;
    expect((await write('a', 'c')).batches).toEqual([
      ['row_keys.insert', 1],
      ['data_points.insert', 2],
    ]);
    expect(Object.fromEntries(sent[third]!.statements![0]!.params[4] as Map<string, string>)).toEqual({ host: 'c' });
  });

  it('sends again the rows of an index batch that failed, and only those', async () => {
    const { exec, sent } = recorder();
    const { written } = clocked();
    const batch = { series: [series('cpu', 'a', [1]), series('cpu', 'b', [2])] };
    const failure = new Error('write timeout');
    const first = await drive(
      sent,
      () => writePartitions(exec, st, MS, batch, TS, options(written)),
      (s) => (s.name === 'row_keys.insert' ? failure : undefined),
    );
    expect(first).toEqual({
      batches: [
        ['row_keys.insert', 2],
        ['row_key_time_index.insert', 1],
        ['string_index.insert', 1],
      ],
      error: failure,
    });
    expect((await drive(sent, () => writePartitions(exec, st, MS, batch, TS, options(written)))).batches).toEqual([
      ['row_keys.insert', 2],
      ['data_points.insert', 2],
    ]);
  });

  it('writes the rows again when the cells outlive them, and every row once the age limit passed', async () => {
    const { exec, sent } = recorder();
    const { written, clock } = clocked();
    const write = (ttlSeconds: number) =>
      drive(sent, () =>
        writePartitions(exec, st, MS, { series: [series('cpu', 'a', [1], ttlSeconds)] }, TS, options(written)),
      );
    await write(3600);
    expect((await write(3600)).batches).toEqual([['data_points.insert', 1]]);
    // Cells that never expire need rows that never expire; the name never expires.
    const forever = sent.length;
    expect((await write(0)).batches).toEqual([
      ['row_keys.insert', 1],
      ['row_key_time_index.insert', 1],
      ['data_points.insert', 1],
    ]);
    expect(sent.slice(forever, forever + 2).map((s) => s.statements!.map((q) => q.params.at(-1)))).toEqual([[0], [0]]);
    expect((await write(3600)).batches).toEqual([['data_points.insert', 1]]);
    clock.t = TS + 300_000;
    expect((await write(3600)).batches).toEqual([
      ['row_keys.insert', 1],
      ['row_key_time_index.insert', 1],
      ['string_index.insert', 1],
      ['data_points.insert', 1],
    ]);
  });

  it('remembers nothing of a write whose index rows were acknowledged after a drop began', async () => {
    const { exec, sent } = recorder();
    const { written } = clocked();
    const batch = { series: [series('cpu', 'a', [1])] };
    await drive(sent, async () => {
      const first = writePartitions(exec, st, MS, batch, TS, options(written));
      written.drop([]);
      await first;
    });
    expect((await drive(sent, () => writePartitions(exec, st, MS, batch, TS, options(written)))).batches).toEqual([
      ['row_keys.insert', 1],
      ['row_key_time_index.insert', 1],
      ['string_index.insert', 1],
      ['data_points.insert', 1],
    ]);
  });

  it('remembers tag_indexed_row_keys rows per series and tag=value', async () => {
    const { exec, sent } = recorder();
    const { written } = clocked();
    const tagIndex = parseTagIndexConfig({ cpu: ['host', 'dc'] });
    const write = (dc: string) =>
      drive(sent, () =>
        writePartitions(
          exec,
          st,
          MS,
          { series: [{ ...series('cpu', 'a', [1]), tags: { host: 'a', dc } }] },
          TS,
          options(written, tagIndex),
        ),
      );
    expect((await write('x')).batches).toEqual([
      ['row_keys.insert', 1],
      ['tag_indexed_row_keys.insert', 1],
      ['tag_indexed_row_keys.insert', 1],
      ['row_key_time_index.insert', 1],
      ['string_index.insert', 1],
      ['data_points.insert', 1],
    ]);
    expect((await write('x')).batches).toEqual([['data_points.insert', 1]]);
    // Another series: its own row_keys row and both of its tag rows, host=a's partition holding the new series too.
    expect((await write('y')).batches).toEqual([
      ['row_keys.insert', 1],
      ['tag_indexed_row_keys.insert', 1],
      ['tag_indexed_row_keys.insert', 1],
      ['data_points.insert', 1],
    ]);
  });
});
