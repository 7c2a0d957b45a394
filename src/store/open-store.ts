/**
 * Opens the store the configuration names. The Cassandra store returns at once and connects in the background,
 * so the gateway starts (and /ready answers 503) while Cassandra is still unreachable.
 */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { CassandraStore } from './cassandra/cassandra-store.js';
import { EmbeddedStore } from './embedded/embedded-store.js';
import type { Store } from './store.js';

export async function openStore(config: Config, log?: Logger): Promise<Store> {
  const spec = { rowTimeUnit: config.rowTimeUnit, ...(config.rowWidth > 0 ? { rowWidth: config.rowWidth } : {}) };
  if (config.store === 'embedded') return EmbeddedStore.open({ path: config.dataDir, ...spec, tagIndexedMetrics: config.tagIndexedMetrics });
  return new CassandraStore({
    contactPoints: config.cassandraContactPoints,
    localDataCenter: config.cassandraLocalDc,
    keyspace: config.cassandraKeyspace,
    replication: config.cassandraReplication,
    tableOptions: config.cassandraTableOptions,
    username: config.cassandraUsername,
    password: config.cassandraPassword,
    readConsistency: config.cassandraReadConsistency,
    writeConsistency: config.cassandraWriteConsistency,
    tls: config.cassandraTls,
    fetchSize: config.cassandraFetchSize,
    concurrency: config.cassandraConcurrency,
    readAhead: config.cassandraReadAhead,
    requestTimeoutMs: config.cassandraRequestTimeoutMs,
    scanDecoder: config.cassandraScanDecoder,
    writeEncoder: config.cassandraWriteEncoder,
    tagIndexedMetrics: config.tagIndexedMetrics,
    ...spec,
    ...(log ? { log: log.child({ store: 'cassandra' }) } : {}),
  });
}
