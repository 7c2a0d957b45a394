/**
 * The store conformance suite: what every Store implementation must do, written once and run against the
 * embedded store (unit run) and Cassandra (integration run).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RowTimeUnit, Store } from '../src/store/store.js';
import type { Slice } from '../src/model/series.js';
import type { WriteBatch } from '../src/model/write-batch.js';
import { partitionsOf, scanAll } from './support/store-reads.js';

export { partitionsOf, scanAll };

export interface StoreFactoryOptions {
  readonly rowWidth?: number;
  readonly rowTimeUnit?: RowTimeUnit;
}

/** Creates a fresh, empty store; the suite closes it. */
export type StoreFactory = (options?: StoreFactoryOptions) => Promise<Store>;

const WIDTH = 1000;

export function describeStoreConformance(name: string, create: StoreFactory): void {
  describe(`${name} store conformance`, () => {
    const open: Store[] = [];
    const fresh = async (options?: StoreFactoryOptions) => {
      const store = await create(options);
      open.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    const write = (store: Store, batch: WriteBatch['series']) => store.write({ series: batch });

    it('writes the spec of a new store as KairosDB does', async () => {
      expect(await (await fresh()).spec()).toEqual({ unit: 'MILLISECONDS', width: 1_814_400_000 });
      expect(await (await fresh({ rowWidth: WIDTH })).spec()).toEqual({ unit: 'MILLISECONDS', width: WIDTH });
    });

    it('keeps the type and exact value of long, double and string points', async () => {
      const store = await fresh({ rowWidth: WIDTH });
      const big = 2n ** 62n + 3n;
      await write(store, [
        {
          metric: 'm',
          tags: { host: 'a' },
          type: 'long',
          ttlSeconds: 0,
          timestamps: [10, 11, 12, 13],
          values: [0, -1, big, -(2n ** 63n)],
        },
        { metric: 'm', tags: { host: 'a' }, type: 'double', ttlSeconds: 0, timestamps: [10, 11], values: [1.5, -0.25] },
        {
          metric: 'm',
          tags: { host: 'a' },
          type: 'string',
          ttlSeconds: 0,
          timestamps: [10],
          values: ['hé\u0000llo 🌍'],
        },
      ]);
      const keys = await partitionsOf(store, 'm', 0, 100);
      const byType = Object.fromEntries(keys.map((k) => [k.dataType, k]));
      expect(Object.keys(byType).sort()).toEqual(['kairos_double', 'kairos_long', 'kairos_string']);
      expect(await scanAll(store, byType.kairos_long!, 0, 100)).toEqual([
        { t: 10, v: 0n, kind: 'long' },
        { t: 11, v: -1n, kind: 'long' },
        { t: 12, v: big, kind: 'long' },
        { t: 13, v: -(2n ** 63n), kind: 'long' },
      ]);
      expect(await scanAll(store, byType.kairos_double!, 0, 100)).toEqual([
        { t: 10, v: 1.5, kind: 'double' },
        { t: 11, v: -0.25, kind: 'double' },
      ]);
      expect(await scanAll(store, byType.kairos_string!, 0, 100)).toEqual([
        { t: 10, v: 'hé\u0000llo 🌍', kind: 'string' },
      ]);
    });

    it('gives safe longs as numbers without an exact column', async () => {
      const store = await fresh({ rowWidth: WIDTH });
      await write(store, [
        {
          metric: 'm',
          tags: { h: 'a' },
          type: 'long',
          ttlSeconds: 0,
          timestamps: [1, 2],
          values: [5, Number.MAX_SAFE_INTEGER],
        },
      ]);
      const [key] = await partitionsOf(store, 'm', 0, 10);
      const slices: Slice[] = [];
      for await (const slice of store.scan(key!, 0, 10)) slices.push(slice);
      expect(slices).toHaveLength(1);
      expect(slices[0]!.kind).toBe('long');
      expect([...(slices[0]!.values as Float64Array)]).toEqual([5, Number.MAX_SAFE_INTEGER]);
      expect('exact' in slices[0]! && slices[0].exact !== undefined).toBe(false);
    });

    it('splits a series into partitions at row boundaries and indexes each', async () => {
      const store = await fresh({ rowWidth: WIDTH });
      await write(store, [
        {
          metric: 'cpu',
          tags: { host: 'a' },
          type: 'double',
          ttlSeconds: 0,
          timestamps: [998, 999, 1000, 1001, 2500],
          values: [1, 2, 3, 4, 5],
        },
      ]);
      expect(await store.rowTimes('cpu', 0, 3000)).toEqual([0, 1000, 2000]);
      expect(await store.rowTimes('cpu', 1500, 3000)).toEqual([1000, 2000]);
      expect(await store.rowTimes('cpu', 0, 999)).toEqual([0]);
      expect(await store.rowKeys('cpu', 1000)).toEqual([
        { metric: 'cpu', rowTime: 1000, dataType: 'kairos_double', tags: { host: 'a' } },
      ]);
      const keys = await partitionsOf(store, 'cpu', 0, 3000);
      const points = (await Promise.all(keys.map((k) => scanAll(store, k, 0, 3000)))).flat();
      expect(points.map((p) => [p.t, p.v])).toEqual([
        [998, 1],
        [999, 2],
        [1000, 3],
        [1001, 4],
        [2500, 5],
      ]);
    });

    it('reads row_keys at many row times together as it reads each alone, in the order asked', async () => {
      const store = await fresh({ rowWidth: WIDTH });
      // 40 rows (more than one statement's worth on Cassandra), two series in the even ones, a negative row time.
      const rows = Array.from({ length: 40 }, (_, i) => (i - 1) * WIDTH);
      await write(store, [
        { metric: 'many', tags: { host: 'a' }, type: 'long', ttlSeconds: 0, timestamps: rows, values: rows },
        {
          metric: 'many',
          tags: { host: 'b' },
          type: 'double',
          ttlSeconds: 0,
          timestamps: rows.filter((_, i) => i % 2 === 0),
          values: rows.filter((_, i) => i % 2 === 0),
        },
        { metric: 'other', tags: { host: 'a' }, type: 'long', ttlSeconds: 0, timestamps: rows, values: rows },
      ]);
      // Out of order, with a row time no series has.
      const asked = [...rows].reverse().concat([rows.length * WIDTH]);
      const together = await store.rowKeysAt('many', asked);
      expect(together).toEqual(await Promise.all(asked.map((rowTime) => store.rowKeys('many', rowTime))));
      expect(together.map((keys) => keys.length)).toEqual(asked.map((_, i) => (i === 40 ? 0 : i % 2 === 0 ? 1 : 2)));
      expect(together[39]).toEqual([
        { metric: 'many', rowTime: -WIDTH, dataType: 'kairos_double', tags: { host: 'b' } },
        { metric: 'many', rowTime: -WIDTH, dataType: 'kairos_long', tags: { host: 'a' } },
      ]);
      expect(await store.rowKeysAt('many', [rows[3]!])).toEqual([
        [{ metric: 'many', rowTime: rows[3], dataType: 'kairos_long', tags: { host: 'a' } }],
      ]);
      expect(await store.rowKeysAt('many', [])).toEqual([]);
    });

    it("stores negative timestamps in KairosDB's unaligned rows and reads them back", async () => {
      const store = await fresh({ rowWidth: WIDTH });
      const timestamps = [-2500, -1001, -1000, -999, -1, 0, 1];
      await write(store, [
        {
          metric: 'neg',
          tags: { k: 'v' },
          type: 'long',
          ttlSeconds: 0,
          timestamps,
          values: timestamps.map((t) => t * 2),
        },
      ]);
      // rowTime = ts - |ts| % width: -1 → -2, -999 → -1998, -1000 → -1000, -1001 → -1002, -2500 → -3000.
      expect(await store.rowTimes('neg', -3000, 10)).toEqual([-3000, -1998, -1002, -1000, -2, 0]);
      const keys = await partitionsOf(store, 'neg', -3000, 10);
      const points = (await Promise.all(keys.map((k) => scanAll(store, k, -3000, 10))))
        .flat()
        .sort((a, b) => a.t - b.t);
      expect(points.map((p) => [p.t, p.v])).toEqual(timestamps.map((t) => [t, BigInt(t * 2)]));
    });

    it('indexes and reads points at both ends of ±8.64e15 ms, though the earliest row starts before it', async () => {
      const store = await fresh({ rowWidth: WIDTH });
      const [first, last] = [-8_639_999_999_999_999, 8_640_000_000_000_000];
      await write(store, [
        { metric: 'edge', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [first, last], values: [1, 2] },
      ]);
      // KairosDB's rows of negative times are unaligned: that point's row starts 999 ms earlier, outside a Date's range.
      expect(await store.rowTimes('edge', first - WIDTH, last)).toEqual([-8_640_000_000_000_998, last]);
      const keys = await partitionsOf(store, 'edge', first - WIDTH, last);
      expect(await Promise.all(keys.map((key) => scanAll(store, key, first, last)))).toEqual([
        [{ t: first, v: 1n, kind: 'long' }],
        [{ t: last, v: 2n, kind: 'long' }],
      ]);
    });

    it('keeps the last write of a series and time, within a batch and across batches', async () => {
      const store = await fresh({ rowWidth: WIDTH });
      await write(store, [
        { metric: 'dup', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [5, 5, 6], values: [4, 42, 1] },
      ]);
      await write(store, [
        { metric: 'dup', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [6], values: [7] },
      ]);
      const [key] = await partitionsOf(store, 'dup', 0, 10);
      expect((await scanAll(store, key!, 0, 10)).map((p) => [p.t, p.v])).toEqual([
        [5, 42n],
        [6, 7n],
      ]);
    });

    it('honours inclusive bounds, page size, limit and descending order', async () => {
      const store = await fresh({ rowWidth: WIDTH });
      const timestamps = Array.from({ length: 700 }, (_, i) => i);
      await write(store, [
        {
          metric: 'r',
          tags: { h: 'a' },
          type: 'double',
          ttlSeconds: 0,
          timestamps,
          values: timestamps.map((t) => t / 2),
        },
      ]);
      const [key] = await partitionsOf(store, 'r', 0, 999);
      expect((await scanAll(store, key!, 10, 12)).map((p) => p.t)).toEqual([10, 11, 12]);
      const paged: number[] = [];
      for await (const slice of store.scan(key!, 0, 999, { pageSize: 1 })) {
        expect(slice.timestamps.length).toBe(1);
        paged.push(slice.timestamps[0]!);
      }
      expect(paged).toEqual(timestamps);
      expect((await scanAll(store, key!, 0, 999, { limit: 3 })).map((p) => p.t)).toEqual([0, 1, 2]);
      expect((await scanAll(store, key!, 100, 600, { order: 'desc', limit: 4 })).map((p) => p.t)).toEqual([
        600, 599, 598, 597,
      ]);
      expect((await scanAll(store, key!, 0, 999, { order: 'desc' })).map((p) => p.t)).toEqual(
        [...timestamps].reverse(),
      );
    });

    it('lists metric names by prefix in order', async () => {
      const store = await fresh();
      for (const metric of ['sys.mem', 'app.x', 'sys.cpu', 'sysadmin']) {
        await write(store, [{ metric, tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [1], values: [1] }]);
      }
      expect(await store.metricNames()).toEqual(['app.x', 'sys.cpu', 'sys.mem', 'sysadmin']);
      expect(await store.metricNames('sys.')).toEqual(['sys.cpu', 'sys.mem']);
      expect(await store.metricNames('sys', 2)).toEqual(['sys.cpu', 'sys.mem']);
      expect(await store.metricNames('nope')).toEqual([]);
    });

    it('deletes a partial range with one range delete and keeps the index', async () => {
      const store = await fresh({ rowWidth: WIDTH });
      const timestamps = Array.from({ length: 20 }, (_, i) => 100 + i);
      await write(store, [
        { metric: 'd', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps, values: timestamps },
      ]);
      const [key] = await partitionsOf(store, 'd', 0, 999);
      await store.deleteRange(key!, 105, 114);
      expect((await scanAll(store, key!, 0, 999)).map((p) => p.t)).toEqual([
        100, 101, 102, 103, 104, 115, 116, 117, 118, 119,
      ]);
      expect(await store.rowKeys('d', 0)).toHaveLength(1);
    });

    it('deletes a covered partition whole, with its row_keys entry, and the row time once no series is left', async () => {
      const store = await fresh({ rowWidth: WIDTH });
      await write(store, [
        { metric: 'w', tags: { h: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [10, 1010], values: [1, 2] },
        { metric: 'w', tags: { h: 'b' }, type: 'long', ttlSeconds: 0, timestamps: [20], values: [3] },
      ]);
      const a0 = (await store.rowKeys('w', 0)).find((k) => k.tags.h === 'a')!;
      await store.deleteRange(a0, 0, 999);
      expect(await scanAll(store, a0, 0, 999)).toEqual([]);
      expect((await store.rowKeys('w', 0)).map((k) => k.tags)).toEqual([{ h: 'b' }]);
      expect(await store.rowTimes('w', 0, 2000)).toEqual([0, 1000]);
      const b0 = (await store.rowKeys('w', 0))[0]!;
      await store.deleteRange(b0, -5, 5000);
      expect(await store.rowKeys('w', 0)).toEqual([]);
      expect(await store.rowTimes('w', 0, 2000)).toEqual([1000]);
      const a1 = (await store.rowKeys('w', 1000))[0]!;
      expect((await scanAll(store, a1, 0, 2000)).map((p) => p.v)).toEqual([2n]);
    });

    it('expires points and index entries after their TTL', { timeout: 15_000 }, async () => {
      const store = await fresh({ rowWidth: WIDTH });
      await write(store, [
        { metric: 'ttl', tags: { h: 'short' }, type: 'long', ttlSeconds: 1, timestamps: [1], values: [1] },
        { metric: 'ttl', tags: { h: 'long' }, type: 'long', ttlSeconds: 0, timestamps: [2], values: [2] },
      ]);
      const keys = await partitionsOf(store, 'ttl', 0, 10);
      expect(keys).toHaveLength(2);
      // Index rows live a row width (1 s here) longer than their points, as in KairosDB.
      await new Promise((resolve) => setTimeout(resolve, 3200));
      const short = keys.find((k) => k.tags.h === 'short')!;
      const long = keys.find((k) => k.tags.h === 'long')!;
      expect(await scanAll(store, short, 0, 10)).toEqual([]);
      expect((await scanAll(store, long, 0, 10)).map((p) => p.v)).toEqual([2n]);
      expect((await store.rowKeys('ttl', 0)).map((k) => k.tags)).toEqual([{ h: 'long' }]);
    });

    it('stops a scan whose signal is aborted', async () => {
      const store = await fresh({ rowWidth: 1_000_000 });
      const timestamps = Array.from({ length: 5000 }, (_, i) => i);
      await write(store, [
        { metric: 'a', tags: { h: 'a' }, type: 'double', ttlSeconds: 0, timestamps, values: timestamps },
      ]);
      const [key] = await partitionsOf(store, 'a', 0, 10_000);
      const controller = new AbortController();
      const seen: number[] = [];
      await expect(
        (async () => {
          for await (const slice of store.scan(key!, 0, 10_000, { signal: controller.signal, pageSize: 100 })) {
            seen.push(slice.timestamps.length);
            controller.abort(new Error('client went away'));
          }
        })(),
      ).rejects.toThrow('client went away');
      expect(seen.length).toBeLessThan(50);
    });

    it('answers ping: nothing, or each server of the store up', async () => {
      const store = await fresh();
      const report = await store.ping();
      // The embedded store has no servers to report; Cassandra's names every node the driver knows, all up here.
      if (store.kind === 'embedded') expect(report).toBeUndefined();
      else expect(report).toMatchObject({ status: 'ready', hosts: [{ datacenter: 'datacenter1', up: true }] });
    });

    describe('service_index', () => {
      // Cassandra's text order (UTF-8 bytes): U+FF71 before U+1F600, which JavaScript's UTF-16 `<` puts the other way.
      const KEYS = ['b', 'a', 'ab', 'a\u{10FFFF}', '\u{1F600}', '\uFF71', 'a b', 'ac'];

      it('lists keys and service keys in text order, by prefix, and reads values back exactly', async () => {
        const index = (await fresh()).serviceIndex;
        const before = Date.now();
        for (const key of KEYS) await index.set('svc', 'sk 1', key, `value of ${key}`);
        await index.set('svc', 'sk 2', 'k', '');
        await index.set('svc', '\u{1F600}', 'k', 'emoji');
        await index.set('other', 'sk 3', 'k', 'other service');
        expect(await index.keys('svc', 'sk 1')).toEqual([
          'a',
          'a b',
          'ab',
          'ac',
          'a\u{10FFFF}',
          'b',
          '\uFF71',
          '\u{1F600}',
        ]);
        expect(await index.keys('svc', 'sk 1', 'a')).toEqual(['a', 'a b', 'ab', 'ac', 'a\u{10FFFF}']);
        expect(await index.keys('svc', 'sk 1', 'a\u{10FFFF}')).toEqual(['a\u{10FFFF}']);
        expect(await index.keys('svc', 'sk 1', 'z')).toEqual([]);
        expect(await index.keys('svc', 'nothing')).toEqual([]);
        expect(await index.serviceKeys('svc')).toEqual(['sk 1', 'sk 2', '\u{1F600}']);
        expect(await index.serviceKeys('other')).toEqual(['sk 3']);
        expect(await index.serviceKeys('none')).toEqual([]);
        const value = await index.value('svc', 'sk 1', '\u{1F600}');
        expect(value?.value).toBe('value of \u{1F600}');
        expect(value!.writtenMs).toBeGreaterThanOrEqual(before - 1000);
        expect(value!.writtenMs).toBeLessThanOrEqual(Date.now() + 1000);
        expect((await index.value('svc', 'sk 2', 'k'))?.value).toBe('');
        expect(await index.value('svc', 'sk 1', 'missing')).toBeUndefined();
      });

      it('overwrites a value and deletes keys; a service key whose keys are all gone is not listed', async () => {
        const index = (await fresh()).serviceIndex;
        await index.set('svc', 'a', 'k1', 'first');
        await index.set('svc', 'a', 'k1', 'second');
        await index.set('svc', 'a', 'k2', 'kept');
        await index.set('svc', 'b', 'k', 'only');
        expect((await index.value('svc', 'a', 'k1'))?.value).toBe('second');
        await index.delete('svc', 'a', 'k1');
        await index.delete('svc', 'a', 'never there');
        await index.delete('svc', 'b', 'k');
        expect(await index.value('svc', 'a', 'k1')).toBeUndefined();
        expect(await index.keys('svc', 'a')).toEqual(['k2']);
        expect(await index.keys('svc', 'b')).toEqual([]);
        expect(await index.serviceKeys('svc')).toEqual(['a']);
        await index.set('svc', 'b', 'k', 'again');
        expect(await index.serviceKeys('svc')).toEqual(['a', 'b']);
      });

      it('grants a claim to one owner at a time, to another once it expired, and never again once completed', async () => {
        const index = (await fresh()).serviceIndex;
        const t = 1_000_000;
        expect(await index.claim('_claims', 'task', 'p1', 'a', t, t + 100)).toEqual({
          granted: true,
          completed: false,
          owner: 'a',
          untilMs: t + 100,
        });
        // Held by a: b is refused and told who holds it until when; a extends its own claim.
        expect(await index.claim('_claims', 'task', 'p1', 'b', t + 50, t + 150)).toEqual({
          granted: false,
          completed: false,
          owner: 'a',
          untilMs: t + 100,
        });
        expect(await index.claim('_claims', 'task', 'p1', 'a', t + 60, t + 160)).toEqual({
          granted: true,
          completed: false,
          owner: 'a',
          untilMs: t + 160,
        });
        // Expired: b takes it over, and a can no longer complete it.
        expect(await index.claim('_claims', 'task', 'p1', 'b', t + 161, t + 261)).toEqual({
          granted: true,
          completed: false,
          owner: 'b',
          untilMs: t + 261,
        });
        expect(await index.complete('_claims', 'task', 'p1', 'a', t + 170)).toBe(false);
        expect(await index.complete('_claims', 'task', 'p1', 'b', t + 180)).toBe(true);
        expect(await index.complete('_claims', 'task', 'p1', 'b', t + 190)).toBe(false);
        // Completed: nobody gets it again, however late.
        expect(await index.claim('_claims', 'task', 'p1', 'a', t + 10_000, t + 10_100)).toEqual({
          granted: false,
          completed: true,
          owner: 'b',
          untilMs: t + 180,
        });
        expect(await index.claim('_claims', 'task', 'p1', 'b', t + 10_000, t + 10_100)).toMatchObject({
          granted: false,
          completed: true,
        });
        // Keys are independent, and a key never claimed cannot be completed.
        expect(await index.complete('_claims', 'task', 'p2', 'a', t)).toBe(false);
        expect((await index.claim('_claims', 'task', 'p2', 'b', t, t + 100)).granted).toBe(true);
        expect(await index.keys('_claims', 'task')).toEqual(['p1', 'p2']);
      });

      it('grants each key once among owners that claim it at the same time', async () => {
        const index = (await fresh()).serviceIndex;
        const owners = ['g1', 'g2', 'g3', 'g4'];
        for (const key of ['k1', 'k2', 'k3']) {
          const claims = await Promise.all(
            owners.map((owner) => index.claim('_claims', 'race', key, owner, 0, 60_000)),
          );
          expect(claims.filter((c) => c.granted)).toHaveLength(1);
          const winner = claims.find((c) => c.granted)!.owner;
          expect(claims.filter((c) => !c.granted).every((c) => c.owner === winner && !c.completed)).toBe(true);
          // Completions race too: only the holder's counts.
          const done = await Promise.all(owners.map((owner) => index.complete('_claims', 'race', key, owner, 1)));
          expect(done.filter(Boolean)).toHaveLength(1);
        }
      });
    });
  });
}
