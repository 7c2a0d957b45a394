/**
 * A heroic source from its settings: a connection to its table with the CASSANDRA_* settings it does not name itself
 * (consistency, credentials, TLS, limits; the driver's own decoding and write times), and its catalogue.
 */
import { InputError } from '../../model/errors.js';
import { createLogger, type Logger } from '../../lib/log.js';
import { resolveConnection, type ClientSettings } from '../../store/cassandra-client/connection-options.js';
import type { HeroicSourceSettings } from './heroic-settings.js';
import type { Catalogue } from '../catalogue/catalogue.js';
import { ScanCatalogue, type KeyPages } from '../catalogue/scan-catalogue.js';
import { StaticCatalogue } from '../catalogue/static-catalogue.js';
import { heroicKeyDecoder, HeroicSource, listedTags, seriesOf } from './heroic-source.js';
import { MetricsTable } from './metrics-table.js';
import { widthOf, type HeroicSchema } from './partitions.js';
import { encodeKey } from './row-key.js';

/** Periods a query may span over series listed in the settings: about 68 years of ng partitions. */
const MAX_LISTED_PERIODS = 1000;

/** Keys per page of the catalogue's scan: Heroic's `keys` task pages by the driver's 5,000 rows too. */
const CATALOGUE_PAGE_KEYS = 5000;

export function openHeroicSource(
  client: ClientSettings,
  settings: HeroicSourceSettings,
  log: Logger | undefined,
): HeroicSource {
  const sourceLog = (log ?? createLogger('silent')).child({ source: settings.name, layout: 'heroic' });
  const cassandra = resolveConnection({
    ...settings.cassandra,
    ...client.connection,
    log: sourceLog,
  });
  const table = new MetricsTable({ cassandra, configure: settings.configure });
  const catalogue = openCatalogue(settings.catalogue, settings.schema, {
    pages: table,
    retryDelayMs: cassandra.reconnectDelayMs,
    what: `Heroic's table ${cassandra.keyspace}.metrics`,
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

/** A heroic source's catalogue: the series its settings list, or a file kept by scanning the table's keys. */
export function openCatalogue(
  settings: HeroicSourceSettings['catalogue'],
  schema: HeroicSchema,
  scan: { pages: KeyPages<Buffer>; retryDelayMs: number; what: string; log: Logger },
): Catalogue<Buffer> {
  const width = widthOf(schema);
  if (settings.kind === 'static')
    return new StaticCatalogue(
      settings.series.map((series) => ({ group: series.key, tags: listedTags(series) })),
      (fromBase, toBase) => {
        const count = Math.floor((toBase - fromBase) / width) + 1;
        // Listed series have no record of their periods: each one of the range is read, so the range is bounded.
        if (count > MAX_LISTED_PERIODS)
          throw new InputError(
            'from',
            fromBase,
            `and to span ${count} periods of ${width} ms; a source with listed series reads at most ${MAX_LISTED_PERIODS}`,
          );
        return Array.from({ length: count }, (_, i) => fromBase + i * width);
      },
      (group, tags, base) => encodeKey(schema, seriesOf({ metric: group, tags }), base),
    );
  return new ScanCatalogue({
    path: settings.path,
    pages: scan.pages,
    decode: heroicKeyDecoder(schema),
    identity: (key) => key,
    pageSize: CATALOGUE_PAGE_KEYS,
    refreshIntervalMs: settings.refreshIntervalMs,
    retryDelayMs: scan.retryDelayMs,
    what: scan.what,
    log: scan.log,
  });
}
