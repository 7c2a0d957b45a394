/**
 * What reading any source of SOURCES_FILE shares, whatever its layout: a field given or left out, the one wording of a
 * failure, where a Cassandra source's keyspace is, and a value shown in a message. Apart from the file's reading
 * (sources-file.ts) and from each layout's settings (heroic/heroic-settings.ts, table/table-settings.ts), which all
 * use it, so that none of them imports another.
 */
import { contactPointProblem, keyspaceProblem } from '../store/cassandra-client/connection-options.js';

/** What a source takes from the gateway's configuration for the fields it leaves out. */
export interface SourceDefaults {
  /** Where a source keeps its catalogue unless it names a place (under `heroic-catalogues/` or `table-catalogues/`). */
  readonly dataDir: string;
  /** BIGTABLE_EMULATOR_HOST: where a Bigtable source that names no endpoint is (empty: none). */
  readonly bigtableEmulatorHost?: string;
  /** Where a Cassandra source's table is unless it says (contact points, data centre, KairosDB's keyspace). */
  readonly cassandra: {
    readonly contactPoints: readonly string[];
    readonly localDataCenter: string;
    readonly keyspace: string;
  };
}

/** A field of the source as given (even as null), or `fallback` when it is left out. */
export type Given = (field: string, fallback?: unknown) => unknown;
/** A field that must be a non-empty string, trimmed. */
export type Text = (field: string, fallback?: string) => string;
/** Stops start-up with a ConfigError that names the source and the field. */
export type Fail = (field: string, problem: string) => never;

/** A catalogue's pause between passes over the table, by default. */
export const DEFAULT_REFRESH_SECONDS = 600;

/**
 * Where a Cassandra source's keyspace is: given fields, or the CASSANDRA_* settings; `keyspace` defaults to
 * `defaultKeyspace`, or must be given when that is empty.
 */
export function cassandraPlace(given: Given, text: Text, fail: Fail, options: SourceDefaults, defaultKeyspace: string) {
  const points = given('contactPoints', options.cassandra.contactPoints);
  if (!Array.isArray(points) || points.length === 0)
    fail('contactPoints', `must be a non-empty list of "host" or "host:port" (got ${show(points)})`);
  const contactPoints = (points as unknown[]).map((point, k) => {
    if (typeof point !== 'string') fail(`contactPoints[${k}]`, `must be "host" or "host:port" (got ${show(point)})`);
    const problem = contactPointProblem((point as string).trim());
    if (problem !== undefined) fail(`contactPoints[${k}]:`, problem);
    return (point as string).trim();
  });
  const keyspace = text('keyspace', defaultKeyspace === '' ? undefined : defaultKeyspace);
  const problem = keyspaceProblem(keyspace);
  if (problem !== undefined) fail('keyspace:', problem);
  return { contactPoints, localDataCenter: text('localDataCenter', options.cassandra.localDataCenter), keyspace };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as JSON in a message, cut short: a whole file could be shown otherwise. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}
