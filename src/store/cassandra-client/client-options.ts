/** The driver's client options from a Cassandra connection's validated settings, the same for every schema it reads. */
import cassandra from 'cassandra-driver';
import type { ResolvedConnection } from './connection-options.js';

export interface ClientChoices {
  /** How write times are made: the driver's own (microseconds) unless the schema's writer used another unit. */
  readonly timestampGeneration?: cassandra.policies.timestampGeneration.TimestampGenerator;
  /** Decoding beyond the defaults (the lean data_points pages of KairosDB's keyspace). */
  readonly encoding?: cassandra.ClientOptions['encoding'];
}

export function clientOptions(options: ResolvedConnection, choices: ClientChoices = {}): cassandra.ClientOptions {
  const { policies, auth } = cassandra;
  const port = discoveredPort(options.contactPoints);
  return {
    contactPoints: [...options.contactPoints],
    localDataCenter: options.localDataCenter,
    // Driver 4.10 knows no protocol v5: offered v5-era servers, it first tries DSE_V2 and reconnects after the refusal.
    protocolOptions: { maxVersion: 4, ...(port !== undefined ? { port } : {}) },
    policies: {
      ...(choices.timestampGeneration !== undefined ? { timestampGeneration: choices.timestampGeneration } : {}),
      // Recover within seconds once Cassandra is back, however long it was gone.
      reconnection: new policies.reconnection.ExponentialReconnectionPolicy(500, 10_000, false),
    },
    // Maps decode as Map, so a tag named __proto__ stays data.
    encoding: { map: Map, ...choices.encoding },
    socketOptions: { readTimeout: options.requestTimeoutMs, connectTimeout: Math.min(5000, options.requestTimeoutMs) },
    ...(options.credentials
      ? { authProvider: new auth.PlainTextAuthProvider(options.credentials.username, options.credentials.password) }
      : {}),
    ...(options.tls ? { sslOptions: { rejectUnauthorized: true } } : {}),
  };
}

/**
 * The port of the nodes the driver discovers: driver 4.10 reads `system.peers`, which has no native port, and reaches
 * every peer on `protocolOptions.port` (9042 unless set). When the contact points agree on a port, peers use it too;
 * a cluster whose nodes listen on other ports than its contact points cannot be reached beyond them.
 */
export function discoveredPort(contactPoints: readonly string[]): number | undefined {
  const ports = new Set(contactPoints.map((point) => /:(\d+)$/.exec(point)?.[1] ?? '9042'));
  return ports.size === 1 ? Number([...ports][0]) : undefined;
}
