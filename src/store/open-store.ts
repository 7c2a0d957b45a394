/**
 * Opens a store: the one the configuration names (`STORE`), or one a source of SOURCES_FILE names, with the other
 * settings from the configuration. The Cassandra store returns at once and connects in the background, so the gateway
 * starts (and /ready answers 503) while Cassandra is still unreachable.
 */
import type { Config } from '../gateway/config.js';
import type { Logger } from '../lib/log.js';
import { CassandraStore } from './cassandra/cassandra-store.js';
import { EmbeddedStore } from './embedded/embedded-store.js';
import type { Store } from './store.js';

/** Which store, and where: the settings a source may give its own (the rest are the CASSANDRA_* and row settings). */
export type StoreSettings =
  | { readonly kind: 'embedded'; readonly path: string }
  | {
      readonly kind: 'cassandra';
      readonly contactPoints: readonly string[];
      readonly localDataCenter: string;
      readonly keyspace: string;
    };

/** The store `STORE` names, with DATA_DIR or the CASSANDRA_* settings. */
export function configuredStore(config: Config): StoreSettings {
  return config.store === 'embedded'
    ? { kind: 'embedded', path: config.dataDir }
    : {
        kind: 'cassandra',
        contactPoints: config.cassandraContactPoints,
        localDataCenter: config.cassandraLocalDc,
        keyspace: config.cassandraKeyspace,
      };
}

export async function openStore(
  config: Config,
  log?: Logger,
  settings: StoreSettings = configuredStore(config),
): Promise<Store> {
  const spec = { rowTimeUnit: config.rowTimeUnit, ...(config.rowWidth > 0 ? { rowWidth: config.rowWidth } : {}) };
  if (settings.kind === 'embedded')
    return EmbeddedStore.open({ path: settings.path, ...spec, tagIndexedMetrics: config.tagIndexedMetrics });
  return new CassandraStore({
    contactPoints: settings.contactPoints,
    localDataCenter: settings.localDataCenter,
    keyspace: settings.keyspace,
    tableOptions: config.cassandraTableOptions,
    createSchema: config.cassandraCreateSchema,
    ...cassandraSettings(config),
    scanDecoder: config.cassandraScanDecoder,
    writeEncoder: config.cassandraWriteEncoder,
    tagIndexedMetrics: config.tagIndexedMetrics,
    ...spec,
    ...(log ? { log: log.child({ store: 'cassandra' }) } : {}),
  });
}

/**
 * The CASSANDRA_* settings every connection to Cassandra takes, whatever tables it reads (KairosDB's store, Heroic's
 * table): credentials, TLS, consistency, replication of a keyspace it creates, page size, limits and timeouts.
 */
export function cassandraSettings(config: Config) {
  return {
    replication: config.cassandraReplication,
    username: config.cassandraUsername,
    password: config.cassandraPassword,
    readConsistency: config.cassandraReadConsistency,
    writeConsistency: config.cassandraWriteConsistency,
    tls: config.cassandraTls,
    fetchSize: config.cassandraFetchSize,
    concurrency: config.cassandraConcurrency,
    readAhead: config.cassandraReadAhead,
    requestTimeoutMs: config.cassandraRequestTimeoutMs,
  } as const;
}
