/**
 * Partition writes: cells per partition in column order with the last write of a column kept, and the index rows
 * the batch needs, each once, with the TTL of its longest-lived series.
 */
import { describe, expect, it } from 'vitest';
import { encodeRowKey } from './format/index.js';
import { toPartitionWrites } from './partition-writes.js';
import type { RowSpec } from './store.js';
import type { SeriesWrite } from '../model/write-batch.js';

const spec: RowSpec = { unit: 'MILLISECONDS', width: 1000 };
const series = (metric: string, h: string, ttlSeconds: number, timestamps: number[]): SeriesWrite => ({
  metric,
  tags: { h },
  type: 'double',
  ttlSeconds,
  timestamps,
  values: timestamps,
});

describe('toPartitionWrites', () => {
  it('splits series into partitions by row time, cells in column order, the last write of a column kept', () => {
    const { partitions } = toPartitionWrites(spec, { series: [series('m', 'a', 0, [1500, 5, 3, 5])] });
    expect(partitions.map((p) => [p.key.rowTime, p.columns, p.values.map((v) => v.length)])).toEqual([
      [1000, [500], [8]],
      [0, [3, 5], [8, 8]],
    ]);
    const last = toPartitionWrites(spec, { series: [{ ...series('m', 'a', 0, [5, 5]), values: [1, 2] }] })
      .partitions[0]!;
    expect(Buffer.from(last.values[0]!).readDoubleBE()).toBe(2);
  });

  it("encodes the row key of an interned series' frozen tags once per partition, and again for another", () => {
    const tags = Object.freeze({ h: 'a' });
    const write = (metric: string, timestamps: number[]) =>
      toPartitionWrites(spec, { series: [{ ...series(metric, 'a', 0, timestamps), tags }] }).partitions;
    const [first] = write('m', [1]);
    expect(write('m', [2])[0]!.keyBytes).toBe(first!.keyBytes);
    for (const [metric, t] of [
      ['m', 1001],
      ['n', 1002],
    ] as const) {
      const [partition] = write(metric, [t]);
      expect(partition!.keyBytes).not.toBe(first!.keyBytes);
      expect(Buffer.from(partition!.keyBytes)).toEqual(Buffer.from(encodeRowKey(partition!.key)));
      expect(partition!.key).toEqual({ metric, rowTime: 1000, dataType: 'kairos_double', tags: { h: 'a' } });
    }
  });

  it('keeps the row keys of every series that shares frozen tags (a line of several fields), up to 32 of them', () => {
    const tags = Object.freeze({ h: 'shared' });
    const write = (metrics: string[]) =>
      toPartitionWrites(spec, {
        series: metrics.map((metric) => ({ ...series(metric, 'shared', 0, [7]), tags })),
      }).partitions;
    const fields = Array.from({ length: 40 }, (_, k) => `cpu.f${k}`);
    const first = write(fields);
    const again = write(fields);
    again.forEach((partition, k) => {
      expect(Buffer.from(partition.keyBytes)).toEqual(Buffer.from(encodeRowKey(partition.key)));
      expect(partition.key.metric).toBe(fields[k]);
      if (k < 32) expect(partition.keyBytes).toBe(first[k]!.keyBytes);
      else expect(partition.keyBytes).not.toBe(first[k]!.keyBytes);
    });
  });

  it('takes series with the same metric, type and tags in any key order as one partition', () => {
    const a = { metric: 'm', type: 'long' as const, ttlSeconds: 0 };
    const { partitions } = toPartitionWrites(spec, {
      series: [
        { ...a, tags: { x: '1', y: '2' }, timestamps: [1], values: [1] },
        { ...a, tags: { y: '2', x: '1' }, timestamps: [2], values: [2] },
        { ...a, tags: { x: '1', y: '2:' }, timestamps: [3], values: [3] },
        { ...a, type: 'double', tags: { x: '1', y: '2' }, timestamps: [4], values: [4] },
      ],
    });
    expect(partitions.map((p) => [p.key.dataType, p.key.tags, p.columns])).toEqual([
      ['kairos_long', { x: '1', y: '2' }, [1, 2]],
      ['kairos_long', { x: '1', y: '2:' }, [3]],
      ['kairos_double', { x: '1', y: '2' }, [4]],
    ]);
  });

  it('gives each partition the index TTL of its longest-lived cell plus a row width, or none when one cell never expires', () => {
    const { partitions } = toPartitionWrites(spec, {
      series: [
        series('m', 'a', 10, [1]),
        series('m', 'a', 20, [2]),
        series('m', 'b', 10, [1]),
        series('m', 'b', 0, [2]),
      ],
    });
    expect(partitions.map((p) => [p.key.tags.h, p.indexTtlSeconds])).toEqual([
      ['a', 21],
      ['b', 0],
    ]);
  });

  it('writes each row time index entry and metric name once, with the longest index TTL of its series', () => {
    const { rowTimes, metrics } = toPartitionWrites(spec, {
      series: [
        series('m', 'a', 10, [1, 1001]),
        series('m', 'b', 30, [2]),
        series('n', 'a', 10, [3]),
        series('n', 'b', 0, [4]),
        series('o', 'a', 5, []),
      ],
    });
    expect(rowTimes).toEqual([
      { metric: 'm', rowTime: 0, ttlSeconds: 31 },
      { metric: 'm', rowTime: 1000, ttlSeconds: 11 },
      { metric: 'n', rowTime: 0, ttlSeconds: 0 },
    ]);
    expect(metrics).toEqual(['m', 'n']);
  });
});
