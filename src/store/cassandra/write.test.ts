/**
 * What a write sends, on a stand-in executor that records each batch and settles it when the test says: index
 * batches per index partition before any data, both encoders carrying the same cells, one write time for all, and a
 * failure reported only once nothing of the write is in flight. (The data batches' shapes: write-batches.test.ts; the
 * index rows a write skips: write-index-rows.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { encodeColumn, encodeDouble } from '../format/index.js';
import type { SeriesWrite } from '../../model/write-batch.js';
import type { WriteEncoder } from './options.js';
import { parseTagIndexConfig } from '../tag-index.js';
import { writePartitions } from './write.js';
import { cellsOf, flush, fresh, keyHex, MS, recorder, series, st, TS } from '../../../test/support/write-recorder.js';

const WIDTH_S = 1_814_400;

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
