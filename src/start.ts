/**
 * Starting the gateway: configuration (and SOURCES_FILE) → primary store → (demo data) → sources → HTTP server;
 * a graceful shutdown on SIGINT/SIGTERM.
 */
import { invalidConfiguration, loadConfig, type Config } from './config.js';
import { seedDemoData } from './demo/seed.js';
import { createLogger } from './log.js';
import { loadAuthPolicy } from './server/auth.js';
import { createGateway, listen } from './server/create-gateway.js';
import { openSources } from './sources/open-sources.js';
import { loadSourcesFile, type SourceSettings } from './sources/sources-file.js';
import { openStore } from './store/open-store.js';

export async function main(): Promise<void> {
  let config: Config;
  let sourceSettings: SourceSettings[];
  try {
    config = loadConfig();
    sourceSettings = loadSourcesFile(config);
    // Before the store opens (and the demo data is seeded): a gateway open to the network without credentials, or a
    // credentials file that is wrong, stops here. The gateway checks the file again against the configured sources.
    loadAuthPolicy(config);
  } catch (error) {
    exitIfInvalid(error);
    throw error;
  }
  const log = createLogger(config.logLevel);
  const store = await openStore(config, log);
  // Demo data is for a first start on one machine; a Cassandra keyspace holds someone's real data.
  if (config.seedDemo && store.kind === 'embedded' && (await store.metricNames('', 1)).length === 0) {
    const started = performance.now();
    const summary = await seedDemoData(store, { endMs: Date.now() });
    log.info({ ...summary, ms: Math.round(performance.now() - started) }, 'seeded the demo dataset (SEED_DEMO=false turns this off)');
  }
  let sources;
  try {
    sources = await openSources(config, store, sourceSettings, log);
  } catch (error) {
    // A source's settings that do not fit what it reads (a table's mapping against its schema).
    if (invalidConfiguration(error) !== undefined) await store.close();
    exitIfInvalid(error);
    throw error;
  }
  let gateway;
  try {
    gateway = createGateway({ sources, config, log });
  } catch (error) {
    if (invalidConfiguration(error) !== undefined) await sources.close();
    exitIfInvalid(error);
    throw error;
  }
  const server = await listen(gateway.handle, config.host, config.port, { requestTimeoutMs: config.queryTimeoutMs });
  const names = sources.all.map((source) => source.name);
  log.info({ url: server.url, store: store.kind, sources: names }, `Kairograph is listening: GraphiQL at ${server.url}/graphql`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await server.close();
    await sources.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** Exits 2, saying why, when `error` is a configuration the gateway cannot run with. */
function exitIfInvalid(error: unknown): void {
  const message = invalidConfiguration(error);
  if (message === undefined) return;
  process.stderr.write(message);
  process.exit(2);
}
