/**
 * The per-request context: the store, the request's own index loaders (never shared between requests), and the
 * request's clock so every relative time in one request means the same "now".
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { IndexLoaders } from '../query/index-loaders.js';
import type { Store } from '../store/store.js';

export interface GatewayContext {
  readonly store: Store;
  readonly config: Config;
  readonly loaders: IndexLoaders;
  readonly nowMs: number;
  readonly log: Logger;
  readonly signal?: AbortSignal;
}

export function createContext(store: Store, config: Config, log: Logger, signal?: AbortSignal): GatewayContext {
  return { store, config, loaders: new IndexLoaders(store), nowMs: Date.now(), log, ...(signal ? { signal } : {}) };
}
