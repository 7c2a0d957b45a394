/**
 * The embedded store's own tag index: the tag index conformance suite, plus its rebuild when the configuration changes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { describeTagIndexConformance } from '../../../test/tag-index-conformance.js';
import { removeTempDirs, tempDir } from '../../../test/support/temp-dir.js';
import type { Store } from '../store.js';
import { parseTagIndexConfig, type TagIndexConfig } from '../tag-index.js';
import { EmbeddedStore } from './embedded-store.js';

afterAll(removeTempDirs);

const paths = new WeakMap<Store, string>();

async function openAt(path: string, tagIndexedMetrics: TagIndexConfig | undefined): Promise<Store> {
  const store = await EmbeddedStore.open({ path, rowWidth: 1000, ...(tagIndexedMetrics ? { tagIndexedMetrics } : {}) });
  paths.set(store, path);
  return store;
}

describeTagIndexConformance('embedded', {
  fresh: (config) => openAt(tempDir(), config),
  async reopen(store, config) {
    await store.close();
    return openAt(paths.get(store)!, config);
  },
  runs: 60,
});

describe('embedded tag index', () => {
  it('is built again from row_keys when the indexed tags change, and dropped when none are', async () => {
    const path = tempDir();
    const write = (store: Store, tags: Record<string, string>) =>
      store.write({ series: [{ metric: 'm', tags, type: 'double', ttlSeconds: 0, timestamps: [100], values: [1] }] });
    let store = await openAt(path, parseTagIndexConfig({ m: ['host'] }));
    await write(store, { host: 'a', dc: 'x' });
    expect(await store.indexedTags!('m', 0)).toEqual(new Set(['host']));
    expect((await store.tagIndexedRowKeys!('m', 0, 'dc', 'x')).keys).toEqual([]);
    await store.close();
    store = await openAt(path, parseTagIndexConfig({ m: ['dc'] }));
    expect(await store.indexedTags!('m', 0)).toEqual(new Set(['dc']));
    expect((await store.tagIndexedRowKeys!('m', 0, 'dc', 'x')).keys).toEqual([
      { metric: 'm', rowTime: 0, dataType: 'kairos_double', tags: { dc: 'x', host: 'a' } },
    ]);
    expect((await store.tagIndexedRowKeys!('m', 0, 'host', 'a')).keys).toEqual([]);
    await store.close();
    store = await openAt(path, undefined);
    expect(await store.indexedTags!('m', 0)).toEqual(new Set());
    expect((await store.tagIndexedRowKeys!('m', 0, 'dc', 'x')).keys).toEqual([]);
    await store.close();
  });
});
