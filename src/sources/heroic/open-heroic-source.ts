/**
 * A heroic source from its settings: a connection to its table with the CASSANDRA_* settings it does not name itself
 * (consistency, credentials, TLS, limits; the driver's own decoding and write times), and its catalogue.
 */
import type { Config } from '../../config.js';
import { createLogger, type Logger } from '../../log.js';
import { resolveOptions } from '../../store/cassandra/options.js';
import type { HeroicSourceSettings } from '../sources-file.js';
import { ScanCatalogue, StaticCatalogue, type Catalogue } from './catalogue.js';
import { HeroicSource } from './heroic-source.js';
import { MetricsTable } from './metrics-table.js';

/** Keys per page of the catalogue's scan: Heroic's `keys` task pages by the driver's 5,000 rows too. */
const CATALOGUE_PAGE_KEYS = 5000;

export function openHeroicSource(config: Config, settings: HeroicSourceSettings, log: Logger | undefined): HeroicSource {
  const sourceLog = (log ?? createLogger('silent')).child({ source: settings.name, layout: 'heroic' });
  const cassandra = resolveOptions({
    ...settings.cassandra,
    username: config.cassandraUsername,
    password: config.cassandraPassword,
    replication: config.cassandraReplication,
    readConsistency: config.cassandraReadConsistency,
    writeConsistency: config.cassandraWriteConsistency,
    tls: config.cassandraTls,
    fetchSize: config.cassandraFetchSize,
    concurrency: config.cassandraConcurrency,
    readAhead: config.cassandraReadAhead,
    requestTimeoutMs: config.cassandraRequestTimeoutMs,
    scanDecoder: 'driver',
    writeEncoder: 'driver',
    log: sourceLog,
  });
  const table = new MetricsTable({ cassandra, configure: settings.configure });
  const catalogue: Catalogue =
    settings.catalogue.kind === 'static'
      ? new StaticCatalogue(settings.schema, settings.catalogue.series)
      : new ScanCatalogue({
          path: settings.catalogue.path,
          schema: settings.schema,
          table,
          pageSize: CATALOGUE_PAGE_KEYS,
          refreshIntervalMs: settings.catalogue.refreshIntervalMs,
          retryDelayMs: cassandra.reconnectDelayMs,
          log: sourceLog,
        });
  return new HeroicSource({
    name: settings.name,
    schema: settings.schema,
    table,
    catalogue,
    fetchSize: cassandra.fetchSize,
    readAhead: cassandra.readAhead,
    concurrentReads: cassandra.concurrency,
  });
}
