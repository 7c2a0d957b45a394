/**
 * A heroic source on the bigtable store from its settings: a client of its table (bigtable-table.ts) and its
 * catalogue, scanned from the row keys as the Cassandra source scans its partition keys.
 */
import { createLogger, type Logger } from '../../lib/log.js';
import type { KeyLimits } from '../../model/key-limits.js';
import { metadataAuthorization } from '../../store/bigtable/access-token.js';
import { BigtableTable, keyProgress } from './bigtable-table.js';
import type { HeroicBigtableSettings } from './heroic-bigtable-settings.js';
import { HeroicSource } from './heroic-source.js';
import { openCatalogue } from './open-heroic-source.js';
import { CATALOGUE_MAX_GROUP_BYTES } from '../catalogue/scan-catalogue.js';

/** Heroic drops writes whose row key is 4,000 bytes or more. */
const LIMITS: KeyLimits = {
  store: "Heroic's Bigtable",
  maxMetricBytes: CATALOGUE_MAX_GROUP_BYTES,
  maxRowKeyBytes: 3999,
  doublesOnly: "the heroic layout's",
  minTimestampMs: 0,
};

/** One attempt of a call; reads of a partition row stream within it. */
const DEADLINE_MS = 60_000;
const ATTEMPTS = 5;
const RETRY_DELAY_MS = 5000;
/** Cells per page of a read that asks for none. */
const FETCH_SIZE = 5000;
/** Partition reads in flight: each is one ReadRows over one row. */
const CONCURRENCY = 16;

export function openHeroicBigtableSource(settings: HeroicBigtableSettings, log: Logger | undefined): HeroicSource {
  const sourceLog = (log ?? createLogger('silent')).child({
    source: settings.name,
    layout: 'heroic',
    store: 'bigtable',
  });
  const { project, instance, table: tableId, endpoint, google } = settings.bigtable;
  const table = new BigtableTable({
    endpoint,
    emulator: !google,
    ...(google ? { authorization: metadataAuthorization() } : {}),
    project,
    instance,
    table: tableId,
    deadlineMs: DEADLINE_MS,
    attempts: ATTEMPTS,
  });
  const pages = { keys: (after: bigint, limit: number) => table.keys(after, limit), progress: keyProgress };
  const catalogue = openCatalogue(settings.catalogue, 'bigtable', {
    pages,
    retryDelayMs: RETRY_DELAY_MS,
    what: `Heroic's Bigtable table ${table.client.tableName}`,
    log: sourceLog,
  });
  return new HeroicSource({
    name: settings.name,
    schema: 'bigtable',
    table,
    catalogue,
    limits: LIMITS,
    fetchSize: FETCH_SIZE,
    readAhead: 2,
    concurrentReads: CONCURRENCY,
  });
}
