/**
 * A table source from its settings: a connection with the CASSANDRA_* settings it does not name itself, its buckets and
 * its catalogue. Its mapping is checked against the table's schema as it connects; start-up waits for that check a
 * few seconds, so a mapping that does not fit stops it, while a Cassandra that cannot be reached yet does not.
 */
import { ConfigError } from '../../model/errors.js';
import { createLogger, type Logger } from '../../lib/log.js';
import { resolveConnection, type ClientSettings } from '../../store/cassandra-client/connection-options.js';
import type { Catalogue } from '../catalogue/catalogue.js';
import { ScanCatalogue } from '../catalogue/scan-catalogue.js';
import { StaticCatalogue } from '../catalogue/static-catalogue.js';
import type { TableSourceSettings } from './table-settings.js';
import { Buckets, BUCKET_COLUMN_TYPES } from './buckets.js';
import { tableKeyDecoder, TableSource } from './table-source.js';
import { MappingError } from './table-connection.js';
import { UserTable } from './user-table.js';

/** Keys per page of the catalogue's scan. */
const CATALOGUE_PAGE_KEYS = 5000;
/** How long start-up waits for the mapping's check before going on without it (Cassandra unreachable). */
const CHECK_WAIT_MS = 10_000;

export async function openTableSource(
  client: ClientSettings,
  settings: TableSourceSettings,
  log: Logger | undefined,
): Promise<TableSource> {
  const sourceLog = (log ?? createLogger('silent')).child({ source: settings.name, layout: 'table' });
  const cassandra = resolveConnection({
    ...settings.cassandra,
    ...client.connection,
    log: sourceLog,
  });
  const { mapping } = settings;
  const table = new UserTable(mapping, cassandra, settings.name, client.leanPages);
  await Promise.race([table.checked(), waitMs(CHECK_WAIT_MS)]).catch(async (error: unknown) => {
    if (!(error instanceof MappingError)) return undefined;
    await table.close();
    throw new ConfigError(`SOURCES_FILE ${error.message}`);
  });
  // The bucket column's type decides how a bucket is bound: known once the table was reached, which may be after start.
  const byType = new Map<string, Buckets>();
  const buckets = (of: { readonly bucketType: string }): Buckets => {
    let made = byType.get(of.bucketType);
    if (made === undefined) byType.set(of.bucketType, (made = new Buckets(mapping.bucket, of.bucketType)));
    return made;
  };
  const listedBuckets = () => buckets(table.current ?? { bucketType: BUCKET_COLUMN_TYPES[mapping.bucket.kind][0]! });
  const catalogue: Catalogue<string> =
    settings.catalogue.kind === 'static'
      ? new StaticCatalogue(
          settings.catalogue.series.map((tags) => ({ group: '', tags })),
          (fromBase, toBase) =>
            listedBuckets()
              .between(fromBase, toBase, settings.maxBuckets)
              .map((b) => b.startMs),
          (_, tags) => JSON.stringify(Object.entries(tags)),
        )
      : new ScanCatalogue({
          path: settings.catalogue.path,
          pages: table,
          // Keys are read only over a live connection, so its checked table is there.
          decode: (key) => tableKeyDecoder(mapping, buckets(table.current!))(key),
          identity: (stored) => stored,
          pageSize: CATALOGUE_PAGE_KEYS,
          refreshIntervalMs: settings.catalogue.refreshIntervalMs,
          retryDelayMs: cassandra.reconnectDelayMs,
          what: `table ${mapping.keyspace}.${mapping.table}`,
          log: sourceLog,
        });
  return new TableSource({
    name: settings.name,
    mapping,
    table,
    buckets,
    catalogue,
    writable: settings.writable,
    maxBuckets: settings.maxBuckets,
    fetchSize: cassandra.fetchSize,
    readAhead: cassandra.readAhead,
    concurrentReads: cassandra.concurrency,
  });
}

/** Resolves undefined after `ms`, without keeping the process alive. */
function waitMs(ms: number): Promise<undefined> {
  return new Promise((resolve) => {
    const timer: NodeJS.Timeout = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
}
