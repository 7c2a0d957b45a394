/**
 * Opens the store the configuration names.
 */
import type { Config } from '../config.js';
import { EmbeddedStore } from './embedded/embedded-store.js';
import type { Store } from './store.js';

export async function openStore(config: Config): Promise<Store> {
  return EmbeddedStore.open({ path: config.dataDir });
}
