/**
 * Opens a store: the primary one (`STORE`), or one a source of SOURCES_FILE names, with the options the gateway
 * builds from its configuration. The Cassandra store returns at once and connects in the background, so the gateway
 * starts (and /ready answers 503) while Cassandra is still unreachable.
 */
import type { Logger } from '../lib/log.js';
import type { ClientSettings, ConnectionSettings } from './cassandra-client/connection-options.js';
import { CassandraStore } from './cassandra/cassandra-store.js';
import type { ScanDecoder, TableName, WriteEncoder } from './cassandra/options.js';
import { EmbeddedStore } from './embedded/embedded-store.js';
import type { RowTimeUnit, Store } from './store.js';
import type { TagIndexConfig } from './tag-index.js';

/** Which store, and where: the settings a source may give its own (the rest are the options below). */
export type StoreSettings =
  | { readonly kind: 'embedded'; readonly path: string }
  | {
      readonly kind: 'cassandra';
      readonly contactPoints: readonly string[];
      readonly localDataCenter: string;
      readonly keyspace: string;
    };

/** How every store is opened. */
export interface StoreOptions {
  /** The primary store: the embedded one in a directory, or KairosDB's keyspace on Cassandra. */
  readonly primary: StoreSettings;
  /** Written to a new store's spec (an existing one keeps its own); a width of 0 takes KairosDB's default. */
  readonly rowTimeUnit: Extract<RowTimeUnit, 'MILLISECONDS' | 'SECONDS'>;
  readonly rowWidth: number;
  /** The tags whose tag index writes keep and reads use (KairosDB's tag_indexed_row_key_lookup_metrics). */
  readonly tagIndexedMetrics: TagIndexConfig;
  readonly cassandra: CassandraSettings;
}

/** How every connection to Cassandra is made, whatever it reads, and how KairosDB's keyspace is kept on it. */
export interface CassandraSettings {
  readonly connection: ConnectionSettings;
  /** Appended to CREATE TABLE of a missing KairosDB table. */
  readonly tableOptions: Readonly<Partial<Record<TableName, string>>>;
  /** Create KairosDB's keyspace and tables when missing. */
  readonly createSchema: boolean;
  /** How scan pages are decoded: `lean` also opts a user's table into decoding its pages from the frame's bytes. */
  readonly scanDecoder: ScanDecoder;
  readonly writeEncoder: WriteEncoder;
  /** Index rows writes remember having written, and for how long (ms). */
  readonly indexCacheEntries: number;
  readonly indexCacheMs: number;
}

/** How a layout over a Cassandra table of its own (Heroic's, a user's) connects with these settings. */
export function clientSettings(cassandra: CassandraSettings): ClientSettings {
  return { connection: cassandra.connection, leanPages: cassandra.scanDecoder === 'lean' };
}

export async function openStore(options: StoreOptions, log?: Logger, settings = options.primary): Promise<Store> {
  const spec = { rowTimeUnit: options.rowTimeUnit, ...(options.rowWidth > 0 ? { rowWidth: options.rowWidth } : {}) };
  if (settings.kind === 'embedded')
    return EmbeddedStore.open({ path: settings.path, ...spec, tagIndexedMetrics: options.tagIndexedMetrics });
  const { cassandra } = options;
  return new CassandraStore({
    contactPoints: settings.contactPoints,
    localDataCenter: settings.localDataCenter,
    keyspace: settings.keyspace,
    tableOptions: cassandra.tableOptions,
    createSchema: cassandra.createSchema,
    ...cassandra.connection,
    scanDecoder: cassandra.scanDecoder,
    writeEncoder: cassandra.writeEncoder,
    indexCacheEntries: cassandra.indexCacheEntries,
    indexCacheMs: cassandra.indexCacheMs,
    tagIndexedMetrics: options.tagIndexedMetrics,
    ...spec,
    ...(log ? { log: log.child({ store: 'cassandra' }) } : {}),
  });
}
