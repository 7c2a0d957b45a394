/**
 * A stand-in executor for the Cassandra store's write tests (src/store/cassandra/write*.test.ts): it records each batch
 * a write sends and settles it when the test says, and reads the cells of a data batch back whichever the encoder.
 */
import { expect } from 'vitest';
import { encodeRowKey } from '../../src/store/format/index.js';
import type { RowSpec } from '../../src/store/store.js';
import type { SeriesWrite } from '../../src/model/write-batch.js';
import type { BatchQuery, Executor } from '../../src/store/cassandra-client/executor.js';
import type { PointCells } from '../../src/store/cassandra/lean-batch-hook.js';
import type { WriteEncoder } from '../../src/store/cassandra/options.js';
import { statementsFor, type StatementName } from '../../src/store/cassandra/statements.js';
import { NO_TAG_INDEX } from '../../src/store/tag-index.js';
import type { WriteOptions } from '../../src/store/cassandra/write.js';
import { WrittenIndex } from '../../src/store/cassandra/written-index.js';

export const st = statementsFor('kg');
export const MS: RowSpec = { unit: 'MILLISECONDS', width: 1_814_400_000 };
export const TS = 1_700_000_000_123;

export interface Sent {
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
export function recorder(replicasOf: (key: Buffer) => string = () => ''): { exec: Executor; sent: Sent[] } {
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
export function fresh(
  encoder: WriteEncoder,
  written = new WrittenIndex({ maxEntries: 1000, maxAgeMs: 60_000 }),
): WriteOptions {
  return { encoder, tagIndex: NO_TAG_INDEX, written };
}

export const flush = () => new Promise((resolve) => setImmediate(resolve));

export function series(metric: string, host: string, timestamps: number[], ttlSeconds = 0): SeriesWrite {
  return { metric, tags: { host }, type: 'double', ttlSeconds, timestamps, values: timestamps.map((t) => t / 10) };
}

/** The cells of a data batch as [row key hex, column, value hex, ttl], whichever the encoder. */
export function cellsOf(s: Sent): [string, number, string, number][] {
  if (s.statements !== undefined) {
    return s.statements.map(({ params }) => [
      (params[0] as Buffer).toString('hex'),
      (params[1] as Buffer).readUInt32BE(0),
      (params[2] as Buffer).toString('hex'),
      params[3] as number,
    ]);
  }
  // PointCells' statements: kind 1, [short bytes] query id, then [short] 4, key, column1, value, TTL as [bytes].
  const { count } = s.cells!;
  const id = Buffer.alloc(16, 0xab);
  const body = s.cells!.statements(id);
  const out: [string, number, string, number][] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    expect(body.subarray(p, p + 19)).toEqual(Buffer.concat([Buffer.from([1, 0, 16]), id]));
    p += 19;
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

export const keyHex = (metric: string, host: string, rowTime: number, dataType = 'kairos_double') =>
  Buffer.from(encodeRowKey({ metric, rowTime, dataType, tags: { host } })).toString('hex');
