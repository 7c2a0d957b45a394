/**
 * The shapes of a write's data batches, on the stand-in executor: partitions with the same replicas share batches of
 * at most 5 KiB as Cassandra counts a batch's size, and a partition over that has batches of its own, of at most 1000
 * cells and about 256 KiB; both encoders alike.
 */
import { describe, expect, it } from 'vitest';
import type { SeriesWrite } from '../../model/write-batch.js';
import type { WriteEncoder } from './options.js';
import { writePartitions } from './write.js';
import {
  cellsOf,
  flush,
  fresh,
  keyHex,
  MS,
  recorder,
  series,
  st,
  TS,
  type Sent,
} from '../../../test/support/write-recorder.js';

/** The data batches a write of `written` sends, every batch acknowledged, with the write settled. */
async function dataBatches(
  encoder: WriteEncoder,
  written: SeriesWrite[],
  replicasOf?: (key: Buffer) => string,
): Promise<Sent[]> {
  const { exec, sent } = recorder(replicasOf);
  const done = writePartitions(exec, st, MS, { series: written }, TS, fresh(encoder));
  await flush();
  for (const s of sent) s.settle();
  await flush();
  const data = sent.filter((s) => s.name === 'data_points.insert');
  for (const s of data) s.settle();
  await done;
  return data;
}

describe.each<WriteEncoder>(['lean', 'driver'])('the data batches of a write with the %s encoder', (encoder) => {
  it("splits a partition's cells into batches of at most 1000 cells and about 256 KiB", async () => {
    const many = Array.from({ length: 2500 }, (_, i) => i);
    const big = 'x'.repeat(60_000);
    const data = await dataBatches(encoder, [
      series('n', 'a', many),
      {
        metric: 's',
        tags: { host: 'a' },
        type: 'string',
        ttlSeconds: 0,
        timestamps: [1, 2, 3, 4, 5],
        values: [big, big, big, big, big],
      },
    ]);
    // 60,002 bytes a cell: four fit in 256 KiB, the fifth starts the next batch.
    expect(data.map((s) => cellsOf(s).length)).toEqual([1000, 1000, 500, 4, 1]);
    expect(data.flatMap((s) => cellsOf(s).map(([, column]) => column)).slice(0, 2500)).toEqual(many);
  });
  it('shares batches among partitions with the same replicas, each batch under 5 KiB as Cassandra counts it', async () => {
    // A one-cell partition without TTL counts 29 + 45 + 8 bytes, whatever its key, so 62 of them a batch (5,084 bytes;
    // 63 would be 5,166, over 5,120).
    const hosts = Array.from({ length: 300 }, (_, i) => `h${String(i).padStart(3, '0')}`);
    const data = await dataBatches(
      encoder,
      hosts.map((h) => series('m', h, [1])),
      (key) => (key.includes('host=h1') ? 'node-2' : 'node-1'),
    );
    // h000-h099 and h200-h299 on node-1 (200 partitions), h100-h199 on node-2 (100), in the order written.
    expect(data.map((s) => cellsOf(s).length)).toEqual([62, 62, 62, 14, 62, 38]);
    const hostsOf = (s: Sent) => cellsOf(s).map(([key]) => key);
    expect(data.slice(0, 4).flatMap(hostsOf)).toEqual(
      [...hosts.slice(0, 100), ...hosts.slice(200)].map((h) => keyHex('m', h, 0)),
    );
    expect(data.slice(4).flatMap(hostsOf)).toEqual(hosts.slice(100, 200).map((h) => keyHex('m', h, 0)));
  });
  it('counts 12 bytes more a cell with a TTL, as Cassandra does: 54 one-cell partitions a batch', async () => {
    const hosts = Array.from({ length: 100 }, (_, i) => `h${String(i).padStart(3, '0')}`);
    const data = await dataBatches(
      encoder,
      hosts.map((h) => series('m', h, [1], 3600)),
    );
    // 29 + 45 + 8 + 12 bytes each: 54 make 5,076 bytes, 55 would make 5,170.
    expect(data.map((s) => cellsOf(s).length)).toEqual([54, 46]);
  });
  it('gives a partition over 5 KiB batches of its own, and puts the partitions around it together', async () => {
    // 120 cells of 8 bytes: 29 + 120 × 53 bytes, over 5,120.
    const large = Array.from({ length: 120 }, (_, i) => i);
    const data = await dataBatches(encoder, [
      series('m', 'h000', [1]),
      series('m', 'h001', large),
      series('m', 'h002', [1, 2]),
    ]);
    expect(data.map((s) => [...new Set(cellsOf(s).map(([key]) => key))])).toEqual([
      [keyHex('m', 'h001', 0)],
      [keyHex('m', 'h000', 0), keyHex('m', 'h002', 0)],
    ]);
    expect(data.map((s) => cellsOf(s).length)).toEqual([120, 3]);
  });
});
