/**
 * Starting the gateway: configuration → store → (demo data) → its source → HTTP server; a graceful shutdown on
 * SIGINT/SIGTERM.
 */
import { ConfigError, loadConfig, type Config } from './config.js';
import { seedDemoData } from './demo/seed.js';
import { createLogger } from './log.js';
import { createGateway, listen } from './server/create-gateway.js';
import { primaryOnly } from './sources/open-sources.js';
import { openStore } from './store/open-store.js';

export async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
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
  const sources = primaryOnly(config, store);
  const gateway = createGateway({ sources, config, log });
  const server = await listen(gateway.handle, config.host, config.port, { requestTimeoutMs: config.queryTimeoutMs });
  log.info({ url: server.url, store: store.kind, source: sources.primary.name }, `Kairograph is listening: GraphiQL at ${server.url}/graphql`);

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

