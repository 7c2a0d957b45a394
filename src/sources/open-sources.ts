/**
 * The gateway's sources at start: the primary one, with the KairosDB layout over the store `STORE` names (opened by
 * the caller, which may seed demo data into it first).
 */
import type { Config } from '../config.js';
import type { Store } from '../store/store.js';
import { KairosdbSource } from './kairosdb/kairosdb-source.js';
import { Sources } from './sources.js';

/** Only the primary source, over `store`: what the gateway, and tools and tests that start one over a store, use. */
export function primaryOnly(config: Config, store: Store): Sources {
  return new Sources(new KairosdbSource(config.primarySourceName, store));
}
