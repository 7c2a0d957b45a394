/**
 * The request's index loaders: the keys of one tick are read together (one batch read per read and metric), each key
 * at most once per request, counted per key, forgotten when a write moved its metric or the read failed.
 */
import { describe, expect, it } from 'vitest';
import { eachAlone, IndexLoaders, type IndexRead } from './index-loaders.js';

/** A read that records each batch it is asked for and answers `metric:key`, failing keys in `failing`. */
function recordingRead(source: string, name: string, failing = new Set<number>()) {
  const batches: [string, number[]][] = [];
  const read: IndexRead<number, string> = {
    source,
    name,
    readMany: async (metric, keys) => {
      batches.push([metric, [...keys]]);
      return keys.map((key) => (failing.has(key) ? new Error(`key ${key} failed`) : `${metric}:${key}`));
    },
  };
  return { read, batches };
}

describe('IndexLoaders', () => {
  it("reads one tick's keys of a read and metric in one batch, in the order asked, each once", async () => {
    const loaders = new IndexLoaders();
    const rows = recordingRead('main', 'rowKeys');
    const times = recordingRead('main', 'rowTimes');
    const answers = await Promise.all([
      loaders.load(rows.read, 'cpu', 30),
      loaders.load(rows.read, 'cpu', 10),
      loaders.load(rows.read, 'mem', 10),
      loaders.load(rows.read, 'cpu', 30),
      loaders.load(times.read, 'cpu', 20),
      loaders.load(rows.read, 'cpu', 20),
    ]);
    expect(answers).toEqual(['cpu:30', 'cpu:10', 'mem:10', 'cpu:30', 'cpu:20', 'cpu:20']);
    expect(rows.batches).toEqual([
      ['cpu', [30, 10, 20]],
      ['mem', [10]],
    ]);
    expect(times.batches).toEqual([['cpu', [20]]]);
    // Statistics count keys read, as when each was a call of its own.
    expect(loaders.calls).toEqual(new Map([['main', { rowKeys: 4, rowTimes: 1 }]]));
  });

  it('reads a key again in the same request only after clear()', async () => {
    const loaders = new IndexLoaders();
    const rows = recordingRead('main', 'rowKeys');
    await loaders.load(rows.read, 'cpu', 1);
    await Promise.all([loaders.load(rows.read, 'cpu', 1), loaders.load(rows.read, 'cpu', 2)]);
    expect(rows.batches).toEqual([
      ['cpu', [1]],
      ['cpu', [2]],
    ]);
    loaders.clear();
    await loaders.load(rows.read, 'cpu', 1);
    expect(rows.batches.at(-1)).toEqual(['cpu', [1]]);
  });

  it('forgets what it read once a write moved the write generation of a metric it read', async () => {
    const generation = new Map<string, number>();
    const loaders = new IndexLoaders({ of: (source, metric) => generation.get(`${source}/${metric}`) ?? 0 });
    const rows = recordingRead('main', 'rowKeys');
    await loaders.load(rows.read, 'cpu', 1);
    await loaders.load(rows.read, 'cpu', 1);
    generation.set('other/cpu', 1);
    await loaders.load(rows.read, 'cpu', 1);
    expect(rows.batches).toHaveLength(1);
    generation.set('main/cpu', 1);
    await loaders.load(rows.read, 'cpu', 1);
    expect(rows.batches).toEqual([
      ['cpu', [1]],
      ['cpu', [1]],
    ]);
  });

  it('fails only the keys whose read failed, and does not remember them', async () => {
    const loaders = new IndexLoaders();
    const rows = recordingRead('main', 'rowKeys', new Set([2]));
    const broken: IndexRead<number, string> = {
      source: 'main',
      name: 'rowTimes',
      readMany: async () => {
        throw new Error('the store is down');
      },
    };
    const settled = await Promise.allSettled([
      loaders.load(rows.read, 'cpu', 1),
      loaders.load(rows.read, 'cpu', 2),
      loaders.load(broken, 'cpu', 1),
      loaders.load(broken, 'cpu', 2),
    ]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      'cpu:1',
      'key 2 failed',
      'the store is down',
      'the store is down',
    ]);
    await expect(loaders.load(rows.read, 'cpu', 2)).rejects.toThrow('key 2 failed');
    expect(rows.batches).toEqual([
      ['cpu', [1, 2]],
      ['cpu', [2]],
    ]);
  });

  it('fails every key of a batch read that answers for the wrong number of keys', async () => {
    const loaders = new IndexLoaders();
    const short: IndexRead<number, string> = { source: 'main', name: 'rowKeys', readMany: async () => ['one'] };
    const settled = await Promise.allSettled([loaders.load(short, 'cpu', 1), loaders.load(short, 'cpu', 2)]);
    expect(settled.map((s) => s.status === 'rejected' && (s.reason as Error).message)).toEqual([
      "main's rowKeys answered 1 keys for 2",
      "main's rowKeys answered 1 keys for 2",
    ]);
  });

  it('eachAlone reads each key on its own, a failing one failing alone', async () => {
    const asked: string[] = [];
    const read = eachAlone('main', 'legacyRowKeys', async (metric, [from, to]: readonly [number, number]) => {
      asked.push(`${metric} ${from}-${to}`);
      if (from < 0) throw new Error('before the epoch');
      return to - from;
    });
    expect(
      await read.readMany('cpu', [
        [0, 10],
        [-5, 5],
        [3, 4],
      ]),
    ).toEqual([10, new Error('before the epoch'), 1]);
    expect(asked).toEqual(['cpu 0-10', 'cpu -5-5', 'cpu 3-4']);
  });
});
