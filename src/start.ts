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
  let store;
  try {
    store = await openStore(config, log);
  } catch (error) {
    exitIfFailed(storeFailure(config, error));
    throw error;
  }
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
  let server;
  try {
    server = await listen(gateway.handle, config.host, config.port, { requestTimeoutMs: config.queryTimeoutMs });
  } catch (error) {
    const message = listenFailure(config, error);
    if (message !== undefined) await sources.close();
    exitIfFailed(message);
    throw error;
  }
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

/** The one line to print when the listener cannot be opened, naming the setting to change; undefined for other errors. */
export function listenFailure(config: Pick<Config, 'host' | 'port'>, error: unknown): string | undefined {
  const at = `kairograph: cannot listen on ${config.host}:${config.port}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return `${at}: the port is in use; set PORT to a free port, or stop what listens there`;
    case 'EACCES':
      return `${at}: permission denied (ports below 1024 need privileges); set PORT to 1024 or above`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${at}: this machine has no such address; set HOST to one of its addresses (127.0.0.1, or 0.0.0.0 for all)`;
    default:
      return undefined;
  }
}

/** The one line to print when the primary store cannot be opened for a reason the configuration can fix. */
export function storeFailure(config: Pick<Config, 'store' | 'dataDir'>, error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (config.store !== 'embedded' || code === undefined || !['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOSPC'].includes(code)) return undefined;
  return `kairograph: cannot open the embedded store in DATA_DIR=${config.dataDir}: ${(error as Error).message}; set DATA_DIR to a directory this user can write`;
}

/** Exits 1 with `message` (a start-up failure the configuration can fix), when there is one. */
function exitIfFailed(message: string | undefined): void {
  if (message === undefined) return;
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** Exits 2, saying why, when `error` is a configuration the gateway cannot run with. */
function exitIfInvalid(error: unknown): void {
  const message = invalidConfiguration(error);
  if (message === undefined) return;
  process.stderr.write(message);
  process.exit(2);
}
