/**
 * The gateway's sources at start: the primary one, with the KairosDB layout over the store `STORE` names (opened by
 * the caller, which may seed demo data into it first), and each source of SOURCES_FILE: a KairosDB layout over a store
 * of its own, Heroic's table or a user's table; or, for tools, one configured source by its name, opened alone.
 */
import type { Config } from '../gateway/config.js';
import type { Logger } from '../lib/log.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { openHeroicSource } from './heroic/open-heroic-source.js';
import { openTableSource } from './table/open-table-source.js';
import { KairosdbSource } from './kairosdb/kairosdb-source.js';
import type { Source } from './source.js';
import type { SourceSettings } from './sources-file.js';
import { Sources } from './sources.js';

export async function openSources(
  config: Config,
  primary: Store,
  settings: readonly SourceSettings[],
  log?: Logger,
): Promise<Sources> {
  const others: Source[] = [];
  try {
    for (const source of settings) others.push(await openConfigured(config, source, log));
  } catch (error) {
    // The primary store is the caller's to close; the ones opened here are not left open behind a failed start.
    await Promise.allSettled(others.map((source) => source.close()));
    throw error;
  }
  return new Sources(new KairosdbSource(config.primarySourceName, primary), others);
}

/** Only the primary source, over `store`: what tools and tests that start a gateway over one store use. */
export function primaryOnly(config: Config, store: Store): Sources {
  return new Sources(new KairosdbSource(config.primarySourceName, store));
}

/** The names of the configured sources, the primary first, without opening any: what a tool checks its arguments against. */
export function configuredSourceNames(config: Config, settings: readonly SourceSettings[]): string[] {
  return [config.primarySourceName, ...settings.map((source) => source.name)];
}

/**
 * The configured source `name` (one of configuredSourceNames), opened alone as the gateway would open it, never seeded
 * with demo data: a tool that works on two sources should not connect to every other one.
 */
export async function openSource(
  config: Config,
  settings: readonly SourceSettings[],
  name: string,
  log?: Logger,
): Promise<Source> {
  if (name === config.primarySourceName) return new KairosdbSource(name, await openStore(config, log));
  const source = settings.find((s) => s.name === name);
  if (source === undefined) throw new Error(`no source is configured as ${JSON.stringify(name)}`);
  return openConfigured(config, source, log);
}

/** A source of SOURCES_FILE, with its layout. */
async function openConfigured(config: Config, source: SourceSettings, log: Logger | undefined): Promise<Source> {
  if (source.layout === 'heroic') return openHeroicSource(config, source, log);
  if (source.layout === 'table') return openTableSource(config, source, log);
  return new KairosdbSource(source.name, await openStore(config, log?.child({ source: source.name }), source.store));
}
