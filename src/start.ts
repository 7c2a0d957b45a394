/**
 * Starting the gateway: configuration (and SOURCES_FILE) → primary store → (demo data) → sources → HTTP server;
 * a graceful shutdown on SIGINT/SIGTERM.
 */
import { ConfigError, loadConfig, type Config } from './config.js';
import { seedDemoData } from './demo/seed.js';
import { createLogger } from './log.js';
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
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`kairograph: invalid configuration: ${error.message}\n`);
      process.exit(2);
    }
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
    if (error instanceof ConfigError) {
      process.stderr.write(`kairograph: invalid configuration: ${error.message}\n`);
      await store.close();
      process.exit(2);
    }
    throw error;
  }
  const gateway = createGateway({ sources, config, log });
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

