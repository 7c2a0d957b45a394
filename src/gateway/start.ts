/**
 * Starting the gateway: configuration (and SOURCES_FILE) → primary store → sources → gateway → (demo data, kept
 * flowing) → HTTP server; a graceful shutdown on SIGINT/SIGTERM.
 */
import { invalidConfiguration, loadConfig, type Config } from './config.js';
import { keepDemoFlowing } from '../demo/demo-flow.js';
import { createLogger } from '../lib/log.js';
import { loadAuthPolicy, type AuthPolicy } from '../http/auth-policy.js';
import { createGateway, listen } from './create-gateway.js';
import { isLoopback } from '../http/browser-policy.js';
import { openSources } from '../sources/open-sources.js';
import { loadSourcesFile } from '../sources/sources-file.js';
import { openStore } from '../store/open-store.js';
import { sourcesFileOptions, sourcesOptions, storeOptions } from './layer-options.js';

export async function main(): Promise<void> {
  // Before the store opens (and the demo data is seeded): a gateway open to the network without credentials, or a
  // credentials file that is wrong, stops here. The gateway checks the file again against the configured sources.
  const { config, sourceSettings, policy } = await step(invalidConfiguration, () => {
    const config = loadConfig();
    const sourceSettings = loadSourcesFile(sourcesFileOptions(config));
    return { config, sourceSettings, policy: loadAuthPolicy(config) };
  });
  const log = createLogger(config.logLevel, config.logFormat);
  for (const warning of deprecatedSettings(config, policy)) log.warn({ setting: warning.setting }, warning.message);
  const store = await step(
    (error) => storeFailure(config, error),
    () => openStore(storeOptions(config), log),
  );
  // A source's settings that do not fit what it reads (a table's mapping against its schema).
  const sources = await step(
    invalidConfiguration,
    () => openSources(sourcesOptions(config), store, sourceSettings, log),
    () => store.close(),
  );
  const gateway = await step(
    invalidConfiguration,
    () => createGateway({ sources, config, log }),
    () => sources.close(),
  );
  // Demo data is for trying the gateway on one machine; a Cassandra keyspace holds someone's real data. Written through
  // the gateway's source, so live queries and the results cache see each new point.
  const demo =
    config.seedDemo && store.kind === 'embedded'
      ? await keepDemoFlowing(gateway.shared.sources.primary, { log })
      : undefined;
  const server = await step(
    (error) => listenFailure(config, error),
    () =>
      listen(gateway.handle, config.host, config.port, {
        requestTimeoutMs: config.queryTimeoutMs,
        webSockets: gateway.webSockets,
      }),
    () => sources.close(),
  );
  // Collectors' TCP ports, once the HTTP listener is up (a port in use stops start-up naming its setting).
  await step(
    tcpListenFailure,
    () => gateway.tcpIngest.listen(),
    async () => {
      await gateway.tcpIngest.close();
      await server.close();
      await sources.close();
    },
  );
  for (const { protocol, host } of gateway.tcpIngest.listeners) {
    const address = gateway.tcpIngest.address(protocol);
    log.info({ protocol, address }, `${protocol} ingest is listening on ${host}:${address?.port}`);
    if (!isLoopback(host))
      log.warn(
        { protocol, host },
        `${protocol} ingest listens on ${host}, not a loopback address: it has no credentials, so anyone who reaches the port can write`,
      );
  }
  // Roll-up tasks run in the gateway, each period once across gateways on the store (ROLLUPS=off leaves them to others).
  if (config.rollups === 'on') gateway.rollups.start();
  const names = sources.all.map((source) => source.name);
  log.info(
    { url: server.url, store: store.kind, sources: names },
    `Kairograph is listening: the explorer at ${server.url}/, GraphiQL at ${server.url}/graphql`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    demo?.stop();
    await gateway.rollups.stop();
    // Live subscriptions hold their connections open: they complete, so the server can close.
    gateway.live.close();
    // Points held by collectors' connections are written before the sources close.
    await gateway.tcpIngest.close();
    await server.close();
    await gateway.flushTraces();
    await sources.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** Settings that still work but are on their way out, each with what to use instead: logged once at start. */
function deprecatedSettings(
  config: Pick<Config, 'trustedClientTokens'>,
  policy?: Pick<AuthPolicy, 'legacyTokens'>,
): { setting: string; message: string }[] {
  const warnings: { setting: string; message: string }[] = [];
  const legacy = policy?.legacyTokens.map((token) => JSON.stringify(token.principal.name)) ?? [];
  if (legacy.length > 0) {
    warnings.push({
      setting: 'CREDENTIALS_FILE',
      message:
        `CREDENTIALS_FILE: the token(s) ${legacy.join(', ')} have scrypt hashes, so every unknown token costs a scrypt for each of them; ` +
        'replace each hash with its $sha256$ digest (`kairograph hash-secret --token`, the token on standard input)',
    });
  }
  if (config.trustedClientTokens.length > 0) {
    warnings.push({
      setting: 'TRUSTED_CLIENT_TOKENS',
      message:
        `TRUSTED_CLIENT_TOKENS is deprecated: its ${config.trustedClientTokens.length} token(s) are kept in plain text and carry only the anonymous scopes; ` +
        'put them in CREDENTIALS_FILE as hashed tokens (`kairograph hash-secret`) with the scopes they need',
    });
  }
  return warnings;
}

/** The one line to print when the listener cannot be opened, naming the setting to change; undefined for other errors. */
function listenFailure(config: Pick<Config, 'host' | 'port'>, error: unknown): string | undefined {
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

/** The one line to print when a TCP ingest port cannot be opened, naming its setting; undefined for other errors. */
function tcpListenFailure(error: unknown): string | undefined {
  const { code, protocol, message } = error as NodeJS.ErrnoException & { protocol?: string };
  if (protocol === undefined || !['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND'].includes(code ?? ''))
    return undefined;
  const setting = protocol.toUpperCase();
  return `kairograph: cannot listen for ${protocol} ingest: ${message}; set ${setting}_PORT to a free port or ${setting}_HOST to an address of this machine`;
}

/** The one line to print when the primary store cannot be opened for a reason the configuration can fix. */
function storeFailure(config: Pick<Config, 'store' | 'dataDir'>, error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (
    config.store !== 'embedded' ||
    code === undefined ||
    !['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOSPC'].includes(code)
  )
    return undefined;
  return `kairograph: cannot open the embedded store in DATA_DIR=${config.dataDir}: ${(error as Error).message}; set DATA_DIR to a directory this user can write`;
}

/**
 * Runs one step of start-up. A failure `explain` has a line for (a configuration the gateway cannot run with, or a
 * port in use) closes what is open (`cleanup`), prints that line and exits: 2 for configuration, 1 for the rest.
 */
async function step<T>(
  explain: (error: unknown) => string | undefined,
  run: () => T | Promise<T>,
  cleanup?: () => Promise<void>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const message = explain(error);
    if (message === undefined) throw error;
    await cleanup?.();
    process.stderr.write(message.endsWith('\n') ? message : `${message}\n`);
    process.exit(invalidConfiguration(error) !== undefined ? 2 : 1);
  }
}
