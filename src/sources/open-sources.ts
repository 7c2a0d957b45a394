/**
 * The gateway's sources at start: the primary one, with the KairosDB layout over the primary store (opened by the
 * caller, which may seed demo data into it first), and each source of SOURCES_FILE: a KairosDB layout over a store
 * of its own, Heroic's table or a user's table; or, for tools, one configured source by its name, opened alone.
 */
import type { Logger } from '../lib/log.js';
import { clientSettings, openStore, type StoreOptions } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { openHeroicBigtableSource } from './heroic/open-heroic-bigtable-source.js';
import { openHeroicSource } from './heroic/open-heroic-source.js';
import { KairosdbSource } from './kairosdb/kairosdb-source.js';
import type { Source } from './source.js';
import type { SourceSettings } from './sources-file.js';
import { Sources } from './sources.js';
import { openTableSource } from './table/open-table-source.js';

/** What opening the sources takes, from the gateway's configuration. */
export interface SourcesOptions {
  /** The primary source's name. */
  readonly primaryName: string;
  /** How a source's store is opened, and its Cassandra connection made. */
  readonly stores: StoreOptions;
}

export async function openSources(
  options: SourcesOptions,
  primary: Store,
  settings: readonly SourceSettings[],
  log?: Logger,
): Promise<Sources> {
  const others: Source[] = [];
  try {
    for (const source of settings) others.push(await openConfigured(options, source, log));
  } catch (error) {
    // The primary store is the caller's to close; the ones opened here are not left open behind a failed start.
    await Promise.allSettled(others.map((source) => source.close()));
    throw error;
  }
  return new Sources(new KairosdbSource(options.primaryName, primary), others);
}

/** Only the primary source, named `name`, over `store`: what tools and tests that start a gateway over one store use. */
export function primaryOnly(name: string, store: Store): Sources {
  return new Sources(new KairosdbSource(name, store));
}

/** The names of the configured sources, the primary first, without opening any: what a tool checks its arguments against. */
export function configuredSourceNames(primaryName: string, settings: readonly SourceSettings[]): string[] {
  return [primaryName, ...settings.map((source) => source.name)];
}

/**
 * The configured source `name` (one of configuredSourceNames), opened alone as the gateway would open it, never seeded
 * with demo data: a tool that works on two sources should not connect to every other one.
 */
export async function openSource(
  options: SourcesOptions,
  settings: readonly SourceSettings[],
  name: string,
  log?: Logger,
): Promise<Source> {
  if (name === options.primaryName) return new KairosdbSource(name, await openStore(options.stores, log));
  const source = settings.find((s) => s.name === name);
  if (source === undefined) throw new Error(`no source is configured as ${JSON.stringify(name)}`);
  return openConfigured(options, source, log);
}

/** A source of SOURCES_FILE, with its layout. */
async function openConfigured(
  options: SourcesOptions,
  source: SourceSettings,
  log: Logger | undefined,
): Promise<Source> {
  const client = clientSettings(options.stores.cassandra);
  if (source.layout === 'heroic')
    return 'bigtable' in source ? openHeroicBigtableSource(source, log) : openHeroicSource(client, source, log);
  if (source.layout === 'table') return openTableSource(client, source, log);
  return new KairosdbSource(
    source.name,
    await openStore(options.stores, log?.child({ source: source.name }), source.store),
  );
}
