/**
 * The lower layers' own options, built from the gateway's configuration: how stores and sources are opened, how
 * SOURCES_FILE is read, and what the gateway's requests share. The one place that speaks both vocabularies.
 */
import type { SharedReadOptions } from '../sharing/shared-reads.js';
import type { SourcesOptions } from '../sources/open-sources.js';
import type { SourcesFileOptions } from '../sources/sources-file.js';
import type { ClientSettings } from '../store/cassandra-client/connection-options.js';
import { clientSettings as clientOf, type StoreOptions } from '../store/open-store.js';
import type { Config } from './config.js';

export function storeOptions(config: Config): StoreOptions {
  return {
    primary:
      config.store === 'embedded'
        ? { kind: 'embedded', path: config.dataDir }
        : {
            kind: 'cassandra',
            contactPoints: config.cassandraContactPoints,
            localDataCenter: config.cassandraLocalDc,
            keyspace: config.cassandraKeyspace,
          },
    rowTimeUnit: config.rowTimeUnit,
    rowWidth: config.rowWidth,
    tagIndexedMetrics: config.tagIndexedMetrics,
    cassandra: {
      connection: {
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
      },
      tableOptions: config.cassandraTableOptions,
      createSchema: config.cassandraCreateSchema,
      scanDecoder: config.cassandraScanDecoder,
      writeEncoder: config.cassandraWriteEncoder,
      indexCacheEntries: config.cassandraIndexCacheEntries,
      indexCacheMs: config.cassandraIndexCacheMs,
    },
  };
}

/** How a layout over a Cassandra table of its own connects: tools and tests that open one alone. */
export function clientSettings(config: Config): ClientSettings {
  return clientOf(storeOptions(config).cassandra);
}

export function sourcesOptions(config: Config): SourcesOptions {
  return { primaryName: config.primarySourceName, stores: storeOptions(config) };
}

export function sourcesFileOptions(config: Config): SourcesFileOptions {
  return {
    file: config.sourcesFile,
    primaryName: config.primarySourceName,
    dataDir: config.dataDir,
    bigtableEmulatorHost: config.bigtableEmulatorHost,
    cassandra: {
      contactPoints: config.cassandraContactPoints,
      localDataCenter: config.cassandraLocalDc,
      keyspace: config.cassandraKeyspace,
    },
  };
}

export function sharedReadOptions(config: Config): SharedReadOptions {
  return {
    cache: { maxBytes: config.cacheMaxBytes, freshnessMs: config.cacheFreshnessMs, ttlMs: config.cacheTtlMs },
  };
}
