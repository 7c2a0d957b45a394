/**
 * The catalogue over scripted pages of Heroic's partition keys (the real tables' scans are in test/integration/):
 * what a pass finds, what it skips and counts, where a restarted catalogue resumes, what a later pass forgets, and
 * what writes teach it at once.
 */
import { getEventListeners } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../../../test/support/temp-dir.js';
import { createLogger } from '../../lib/log.js';
import { heroicKeyDecoder, listedTags } from '../heroic/heroic-source.js';
import type { HeroicSeries } from '../heroic/key-bytes.js';
import { NG_WIDTH_MS } from '../heroic/partitions.js';
import { encodeKey } from '../heroic/row-key.js';
import type { Tags } from '../../model/series.js';
import type { CataloguedPartition } from './catalogue.js';
import { FIRST_TOKEN, ScanCatalogue, type KeyPages } from './scan-catalogue.js';

afterAll(removeTempDirs);

const series = (key: string, tags: Record<string, string>, resource: Record<string, string> = {}): HeroicSeries => ({
  key,
  tags,
  resource,
});
const B = 1_599_875_317_015;
const cpuA = series('cpu', { host: 'a' });
const cpuB = series('cpu', { host: 'b' }, { pod: 'p-1' });
const mem = series('mem', { host: 'a' });

/** The table's keys in token order (tokens 1, 2, 3, ...), served `limit` at a time; `asked` records each page's start. */
function table(keys: Buffer[], asked: bigint[] = []): KeyPages<Buffer> {
  const all = keys.map((key, i) => ({ key, token: BigInt(i + 1) }));
  return {
    async keys(after, limit) {
      asked.push(after);
      const page = all.filter((k) => k.token > after).slice(0, limit);
      return { keys: page, done: page.length < limit };
    },
  };
}

function catalogue(path: string, pages: KeyPages<Buffer>, refreshIntervalMs = 60_000) {
  return new ScanCatalogue({
    path,
    pages,
    decode: heroicKeyDecoder('ng'),
    identity: (key) => key,
    pageSize: 2,
    refreshIntervalMs,
    retryDelayMs: 10,
    what: 'a test table',
    log: createLogger('silent'),
  });
}

/** A catalogued partition of a Heroic series. */
const partition = (s: HeroicSeries, base: number): CataloguedPartition<Buffer> => ({
  group: s.key,
  base,
  tags: listedTags(s),
  stored: encodeKey('ng', s, base),
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

const tagsOf = (found: { group: string; tags: Tags; base: number }[]) =>
  found.map((p) => [p.group, { ...p.tags }, p.base]);

describe('ScanCatalogue', () => {
  it('finds every partition in a pass, by metric and base, and counts the keys it cannot use', async () => {
    const keys = [
      encodeKey('ng', cpuA, B),
      encodeKey('ng', cpuB, B),
      encodeKey('ng', cpuA, B + NG_WIDTH_MS),
      Buffer.from('ffff', 'hex'),
      encodeKey('legacy', cpuA, 2 ** 32),
      encodeKey('ng', mem, B),
    ];
    const c = catalogue(tempDir(), table(keys));
    await until(() => c.status().passes === 1);
    expect(c.groups('')).toEqual(['cpu', 'mem']);
    expect(c.groups('m')).toEqual(['mem']);
    expect(c.groups('', 1)).toEqual(['cpu']);
    // Within a period, partitions come in the order of their keys' digests: sorted here by host.
    expect(
      tagsOf(c.partitions('cpu', B, B)).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
    ).toEqual([
      ['cpu', { host: 'a' }, B],
      ['cpu', { host: 'b', 'resource:pod': 'p-1' }, B],
    ]);
    expect(tagsOf(c.partitions('cpu', B + NG_WIDTH_MS, B + NG_WIDTH_MS))).toEqual([
      ['cpu', { host: 'a' }, B + NG_WIDTH_MS],
    ]);
    expect(c.partitions('cpu', B, B + NG_WIDTH_MS)).toHaveLength(3);
    // The key bytes are the table's own.
    expect(c.partitions('mem', 0, B)[0]!.stored.equals(keys[5]!)).toBe(true);
    expect(c.status()).toMatchObject({
      kind: 'scan',
      partitions: 4,
      passes: 1,
      undecodableKeys: 1,
      otherSchemaKeys: 1,
      uncataloguedKeys: 0,
    });
    await c.close();
  });

  it('resumes a pass after a restart from the last page it kept', async () => {
    const path = tempDir();
    const keys = [
      encodeKey('ng', cpuA, B),
      encodeKey('ng', cpuB, B),
      encodeKey('ng', mem, B),
      encodeKey('ng', cpuA, B + NG_WIDTH_MS),
    ];
    // The first catalogue is stopped after its first page: the table fails every later one.
    const first: KeyPages<Buffer> = {
      async keys(after, limit) {
        if (after !== FIRST_TOKEN) throw new Error('Cassandra went away');
        return table(keys).keys(after, limit);
      },
    };
    const c1 = catalogue(path, first);
    await until(() => c1.status().keysScanned === 2);
    expect(c1.status()).toMatchObject({ passes: 0, partitions: 2 });
    await c1.close();
    const asked: bigint[] = [];
    const c2 = catalogue(path, table(keys, asked));
    await until(() => c2.status().passes === 1);
    expect(asked[0]).toBe(2n);
    expect(c2.status()).toMatchObject({ passes: 1, partitions: 4 });
    await c2.close();
  });

  it('forgets, at the end of a later pass, partitions and metrics that pass did not see', async () => {
    const path = tempDir();
    const keys = [encodeKey('ng', cpuA, B), encodeKey('ng', mem, B)];
    const live = { keys };
    const pages: KeyPages<Buffer> = { keys: (after, limit) => table(live.keys).keys(after, limit) };
    const c = catalogue(path, pages, 20);
    await until(() => c.status().passes === 1);
    live.keys = [keys[0]!];
    await until(() => c.status().passes >= 2);
    expect(c.groups('')).toEqual(['cpu']);
    expect(c.partitions('mem', 0, B)).toEqual([]);
    await c.close();
  });

  it('learns written partitions at once, and forgets deleted ones', async () => {
    const c = catalogue(tempDir(), table([]));
    await until(() => c.status().passes === 1);
    c.learn([partition(mem, B)]);
    expect(c.groups('')).toEqual(['mem']);
    expect(tagsOf(c.partitions('mem', B, B))).toEqual([['mem', { host: 'a' }, B]]);
    c.forget(partition(mem, B));
    expect(c.partitions('mem', B, B)).toEqual([]);
    c.forgetGroup('mem');
    expect(c.groups('')).toEqual([]);
    await c.close();
  });
});

describe('pauses between passes', () => {
  it('leave no listener behind on the catalogue: passes every few milliseconds keep one at most', async () => {
    const keys = [encodeKey('ng', cpuA, B)];
    const c = catalogue(tempDir(), table(keys), 5);
    await until(() => c.status().passes >= 15);
    const { signal } = (c as unknown as { stop: AbortController }).stop;
    expect(getEventListeners(signal, 'abort').length).toBeLessThanOrEqual(1);
    await c.close();
  });
});

describe('close', () => {
  it('ends at once when called while a pass ends, not after the pause that would follow', async () => {
    const path = tempDir();
    const first = catalogue(path, table([encodeKey('ng', cpuA, B)]), 3_600_000);
    await until(() => first.status().passes === 1);
    await first.close();
    // The next pass finds the partition gone, and closing starts while it forgets it (the pass yields there).
    let closed: Promise<void> | undefined;
    const c = catalogue(
      path,
      {
        async keys() {
          setImmediate(() => {
            closed = c.close();
          });
          return { keys: [], done: true };
        },
      },
      3_600_000,
    );
    await until(() => closed !== undefined);
    const outcome = await Promise.race([
      closed!.then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still closing after 2 s'), 2000)),
    ]);
    expect(outcome).toBe('closed');
  });
});
