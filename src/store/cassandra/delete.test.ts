/**
 * What deletes do to the written index, on a stand-in executor: a covered partition's rows are forgotten (every tag's,
 * whatever is indexed now, and its row time's), a partial range forgets nothing, a metric delete forgets its name, and
 * a write stamped while a delete ran records nothing, even when the delete fails.
 */
import { describe, expect, it } from 'vitest';
import { encodeRowKey } from '../format/index.js';
import type { RowKey, RowSpec } from '../store.js';
import type { Executor } from '../cassandra-client/executor.js';
import { bufferOf } from './buffer-of.js';
import { deleteName, deletePartitionRange } from './delete.js';
import { statementsFor, type StatementName } from './statements.js';
import { indexKey, WrittenIndex, type WriteStamp } from './written-index.js';

const st = statementsFor('kg');
const MS: RowSpec = { unit: 'MILLISECONDS', width: 1_814_400_000 };
const TS = 1_700_000_000_123;
const KEY: RowKey = { metric: 'cpu', rowTime: 0, dataType: 'kairos_double', tags: { host: 'a', dc: 'x' } };
const OTHER: RowKey = { ...KEY, tags: { host: 'b', dc: 'x' } };

/** The entries a write of `key` leaves: its row_keys row, a tag row of each tag, its row time and its name. */
function entriesOf(key: RowKey): string[] {
  const bytes = bufferOf(encodeRowKey(key));
  return [
    indexKey.rowKey(bytes),
    ...Object.entries(key.tags).map(([tag, value]) => indexKey.tagged(bytes, `${tag}=${value}`)),
    indexKey.rowTime(key.metric, key.rowTime),
    indexKey.name(key.metric),
  ];
}

/**
 * An executor whose mutations succeed (or fail with `failing`) and whose reads find another series left; `during` runs
 * as each mutation is sent, while the delete is under way.
 */
function executor(during: () => void, failing?: Error): { exec: Executor; names: StatementName[] } {
  const names: StatementName[] = [];
  const exec = {
    mutate: async (name: StatementName) => {
      names.push(name);
      during();
      if (failing !== undefined) throw failing;
    },
    mutationRead: async (name: StatementName) => {
      names.push(name);
      return { rows: [{ get: () => 'kairos_double' }] };
    },
  };
  return { exec: exec as unknown as Executor, names };
}

function remembering(...keys: RowKey[]): WrittenIndex {
  const written = new WrittenIndex({ maxEntries: 100, maxAgeMs: 300_000 });
  const stamp = written.stamp();
  for (const key of keys) for (const entry of entriesOf(key)) written.add(stamp, entry, 0);
  return written;
}

const covered = (written: WrittenIndex, key: RowKey) => entriesOf(key).map((entry) => written.covers(entry, 0));

describe('a delete through the store', () => {
  it("forgets a covered partition's row_keys row, its tag rows and its row time, and nothing else", async () => {
    const written = remembering(KEY, OTHER);
    const { exec, names } = executor(() => {});
    await deletePartitionRange(exec, st, MS, KEY, 0, MS.width, TS, written);
    expect(names).toEqual([
      'data_points.delete_partition',
      'row_keys.delete',
      'row_key_index.delete',
      'row_keys.select_any',
    ]);
    // OTHER's rows stay but for the row time it shares with KEY; a name goes only with its metric.
    expect(covered(written, KEY)).toEqual([false, false, false, false, true]);
    expect(covered(written, OTHER)).toEqual([true, true, true, false, true]);
  });

  it('forgets nothing for a partial range, which leaves the index rows in place', async () => {
    const written = remembering(KEY);
    const { exec, names } = executor(() => {});
    await deletePartitionRange(exec, st, MS, KEY, 10, 20, TS, written);
    expect(names).toEqual(['data_points.delete_range']);
    expect(covered(written, KEY)).toEqual([true, true, true, true, true]);
  });

  it("forgets a deleted metric's name", async () => {
    const written = remembering(KEY);
    const { exec } = executor(() => {});
    await deleteName(exec, st, 'cpu', TS, written);
    expect(covered(written, KEY)).toEqual([true, true, true, true, false]);
  });

  it.each([
    ['succeeds', undefined, 3],
    ['fails', new Error('write timeout'), 1],
  ])(
    'keeps a write stamped while the delete ran from recording its rows when the delete %s',
    async (_, failing, sends) => {
      const written = remembering();
      const stamps: WriteStamp[] = [];
      const { exec } = executor(() => stamps.push(written.stamp()), failing);
      const deleted = deletePartitionRange(exec, st, MS, KEY, 0, MS.width, TS, written);
      await (failing === undefined ? deleted : expect(deleted).rejects.toBe(failing));
      const rowKey = indexKey.rowKey(bufferOf(encodeRowKey(KEY)));
      expect(stamps).toHaveLength(sends);
      for (const stamp of stamps) written.add(stamp, rowKey, 0);
      expect(written.covers(rowKey, 0)).toBe(false);
    },
  );
});
