/** The tag index conformance suite against the real Cassandra of the integration run. */
import { afterAll, beforeAll } from 'vitest';
import type cassandra from 'cassandra-driver';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.js';
import type { Store } from '../../src/store/store.js';
import type { TagIndexConfig } from '../../src/store/tag-index.js';
import { describeTagIndexConformance } from '../tag-index-conformance.js';
import { emptyKeyspace, plainClient, storeOptions } from './cassandra-stores.js';

let cql: cassandra.Client;
beforeAll(async () => {
  cql = await plainClient();
});
afterAll(() => cql?.shutdown());

const keyspaces = new WeakMap<Store, string>();
let made = 0;

async function openOn(keyspace: string, tagIndexedMetrics: TagIndexConfig | undefined): Promise<Store> {
  const store = await CassandraStore.open(storeOptions(keyspace, { rowWidth: 1000, ...(tagIndexedMetrics ? { tagIndexedMetrics } : {}) }));
  keyspaces.set(store, keyspace);
  return store;
}

describeTagIndexConformance('cassandra', {
  async fresh(config) {
    // A few keyspaces in turn: a property run's store is closed before the next one opens.
    const keyspace = `kg_tagindex_${made++ % 3}`;
    await emptyKeyspace(cql, keyspace);
    return openOn(keyspace, config);
  },
  async reopen(store, config) {
    await store.close();
    return openOn(keyspaces.get(store)!, config);
  },
  runs: 25,
});
