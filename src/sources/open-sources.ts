/**
 * The gateway's sources at start: the primary one, with the KairosDB layout over the store `STORE` names (opened by
 * the caller, which may seed demo data into it first), and each source of SOURCES_FILE: a KairosDB layout over a store
 * of its own, or Heroic's table.
 */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { openHeroicSource } from './heroic/open-heroic-source.js';
import { KairosdbSource } from './kairosdb/kairosdb-source.js';
import type { Source } from './source.js';
import type { SourceSettings } from './sources-file.js';
import { Sources } from './sources.js';

export async function openSources(config: Config, primary: Store, settings: readonly SourceSettings[], log?: Logger): Promise<Sources> {
  const others: Source[] = [];
  try {
    for (const source of settings) {
      others.push(
        source.layout === 'heroic'
          ? openHeroicSource(config, source, log)
          : new KairosdbSource(source.name, await openStore(config, log?.child({ source: source.name }), source.store)),
      );
    }
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
