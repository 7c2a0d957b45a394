// The keyspace, KairosDB's tables and the spec rows: found missing in the node's catalog or in its live schema, created
// when missing (never altered) on connect and when found gone later, and the spec read, or written for a new keyspace
// exactly as a KairosDB write cluster does (§1, §10.1).
import type cassandra from 'cassandra-driver';
import { initialRowTimeUnit, initialRowWidth, parseRowSpec } from '../row-spec.js';
import type { RowSpec } from '../store.js';
import type { StoreExecutor, Statements } from './statements.js';
import { TABLE_NAMES, type ResolvedOptions, type TableName } from './options.js';

/** ClusterConnection's CREATE TABLE bodies; COMPACT STORAGE is gone (Cassandra 4+ refuses it, KairosDB #599). */
const TABLE_DEFINITIONS: Record<TableName, string> = {
  data_points: 'key blob, column1 blob, value blob, PRIMARY KEY ((key), column1)',
  row_key_index: 'key blob, column1 blob, value blob, PRIMARY KEY ((key), column1)',
  string_index: 'key blob, column1 text, value blob, PRIMARY KEY ((key), column1)',
  row_keys:
    'metric text, table_name text, row_time timestamp, data_type text, tags frozen<map<text, text>>, mtime timeuuid static, value text, ' +
    'PRIMARY KEY ((metric, table_name, row_time), data_type, tags)',
  tag_indexed_row_keys:
    'metric text, table_name text, row_time timestamp, single_tag_pair text, tag_collection_hash int, data_type text, ' +
    'tags frozen<map<text, text>>, mtime timeuuid static, value text, ' +
    'PRIMARY KEY ((metric, table_name, row_time, single_tag_pair), data_type, tag_collection_hash, tags)',
  row_key_time_index:
    'metric text, table_name text, row_time timestamp, value text, PRIMARY KEY ((metric), table_name, row_time)',
  spec: 'spec_type text, name text, value text, PRIMARY KEY ((spec_type), name)',
  service_index:
    'service text, service_key text, key text, mtime timeuuid static, value text, PRIMARY KEY ((service, service_key), key)',
};

/** DDL waits for schema agreement; on a busy node that takes seconds, far longer than a read. */
const DDL_TIMEOUT_MS = 120_000;

/** What the node's catalog (system_schema) lists of the keyspace: the keyspace, and KairosDB's tables with their ids. */
export interface Catalog {
  readonly keyspace: boolean;
  readonly tables: ReadonlyMap<TableName, string>;
}

/** A catalog read: the schema step's (exec.system) or the background check's (exec.background). */
export type CatalogRead = (query: string, params: unknown[]) => Promise<cassandra.types.ResultSet>;

export async function readCatalog(read: CatalogRead, keyspace: string): Promise<Catalog> {
  const keyspaces = await read('SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?', [keyspace]);
  if (keyspaces.rows.length === 0) return { keyspace: false, tables: new Map() };
  const rows = await read('SELECT table_name, id FROM system_schema.tables WHERE keyspace_name = ?', [keyspace]);
  const tables = new Map<TableName, string>();
  for (const row of rows.rows) {
    const name = String(row.get('table_name'));
    if ((TABLE_NAMES as readonly string[]).includes(name)) tables.set(name as TableName, String(row.get('id')));
  }
  return { keyspace: true, tables };
}

/** A part of KairosDB's schema the node lacks: the keyspace (no `table`) or a table. */
export interface Missing {
  readonly table?: TableName;
  /** Whether the catalog lists it all the same (a node that replayed its schema without loading it). */
  readonly listed: boolean;
  /** What the node answered a statement on it, where the catalog lists it. */
  readonly answer?: string;
}

const PROBE_TEXT = 'kairograph schema probe';
const PROBE_BLOB = Buffer.from(PROBE_TEXT, 'utf8');
const PROBE_TIME = new Date(0);

/** Per table, a partition no writer makes: reading it costs a lookup and returns nothing. */
const PROBES: Record<TableName, { readonly where: string; readonly params: readonly unknown[] }> = {
  data_points: { where: 'key = ?', params: [PROBE_BLOB] },
  row_key_index: { where: 'key = ?', params: [PROBE_BLOB] },
  string_index: { where: 'key = ?', params: [PROBE_BLOB] },
  row_keys: { where: 'metric = ? AND table_name = ? AND row_time = ?', params: [PROBE_TEXT, PROBE_TEXT, PROBE_TIME] },
  tag_indexed_row_keys: {
    where: 'metric = ? AND table_name = ? AND row_time = ? AND single_tag_pair = ?',
    params: [PROBE_TEXT, PROBE_TEXT, PROBE_TIME, PROBE_TEXT],
  },
  row_key_time_index: { where: 'metric = ?', params: [PROBE_TEXT] },
  spec: { where: 'spec_type = ?', params: [PROBE_TEXT] },
  service_index: { where: 'service = ? AND service_key = ?', params: [PROBE_TEXT, PROBE_TEXT] },
};

/**
 * What the node lacks. The catalog alone is not enough: a node killed before it flushed a schema change replays the
 * change into its catalog at the next start without loading it, and then refuses every statement on a keyspace its
 * catalog lists ("keyspace kairosdb does not exist"). So each table the catalog lists is also read once, prepared
 * afresh, which only the node's live schema can answer.
 */
export async function findMissing(exec: StoreExecutor, keyspace: string, catalog: Catalog): Promise<Missing[]> {
  if (!catalog.keyspace) return [{ listed: false }, ...TABLE_NAMES.map((table) => ({ table, listed: false }))];
  exec.forgetPrepared();
  const tables: Missing[] = [];
  let keyspaceAnswer: string | undefined;
  for (const table of TABLE_NAMES) {
    if (!catalog.tables.has(table)) {
      tables.push({ table, listed: false });
      continue;
    }
    const probe = PROBES[table];
    const answer = await exec.probe(`SELECT * FROM ${keyspace}.${table} WHERE ${probe.where} LIMIT 1`, [
      ...probe.params,
    ]);
    if (answer === undefined) continue;
    tables.push({ table, listed: true, answer });
    if (answer === `keyspace ${keyspace} does not exist`) keyspaceAnswer = answer;
  }
  return keyspaceAnswer === undefined ? tables : [{ listed: true, answer: keyspaceAnswer }, ...tables];
}

/** Parts of KairosDB's schema are missing and the store may not create them (CASSANDRA_CREATE_SCHEMA=false). */
export class SchemaNotCreatedError extends Error {}

/** `kairosdb` or `kairosdb.row_keys`: how logs, errors and /ready name a missing part. */
export function objectName(keyspace: string, missing: Missing): string {
  return missing.table === undefined ? keyspace : `${keyspace}.${missing.table}`;
}

/** What the catalog lists, in words: `keyspace kairosdb and its 8 tables`, `keyspace kairosdb without kairosdb.spec`, `no keyspace kairosdb`. */
export function describeCatalog(keyspace: string, catalog: Catalog): string {
  if (!catalog.keyspace) return `no keyspace ${keyspace}`;
  const absent = TABLE_NAMES.filter((table) => !catalog.tables.has(table));
  if (absent.length === 0) return `keyspace ${keyspace} and its ${TABLE_NAMES.length} tables`;
  return `keyspace ${keyspace} without ${absent.map((table) => `${keyspace}.${table}`).join(', ')}`;
}

/** What the node answered statements on what its catalog lists, each answer once; undefined when every one was served. */
export function describeAnswers(missing: readonly Missing[]): string | undefined {
  const answers = [...new Set(missing.flatMap((m) => (m.answer === undefined ? [] : [m.answer])))];
  return answers.length === 0 ? undefined : answers.join('; ');
}

/**
 * What is missing in words for logs and clients, or undefined when nothing is: `keyspace kairosdb does not exist`,
 * `table kairosdb.row_keys does not exist`, and for parts the catalog lists, what the node answered and that the
 * catalog lists them.
 */
export function describeMissing(keyspace: string, missing: readonly Missing[]): string | undefined {
  const parts: string[] = [];
  const absent = missing.filter((m) => !m.listed);
  if (absent.some((m) => m.table === undefined)) parts.push(`keyspace ${keyspace} does not exist`);
  else if (absent.length > 0) {
    const tables = absent.map((m) => objectName(keyspace, m));
    parts.push(tables.length === 1 ? `table ${tables[0]} does not exist` : `tables ${tables.join(', ')} do not exist`);
  }
  const listed = missing.filter((m) => m.listed);
  if (listed.length > 0)
    parts.push(
      `${describeAnswers(listed)}, though the catalog lists ${listed.map((m) => objectName(keyspace, m)).join(', ')}`,
    );
  return parts.length === 0 ? undefined : parts.join('; ');
}

/**
 * Creates what is missing, in KairosDB's order, with the configured replication and table options, one statement at
 * a time, each IF NOT EXISTS and sent to `host`; alters nothing. The driver waits for schema agreement after each.
 */
export async function createMissing(
  exec: StoreExecutor,
  options: ResolvedOptions,
  missing: readonly Missing[],
  host: cassandra.Host | undefined,
): Promise<void> {
  const { keyspace } = options;
  if (missing.some((m) => m.table === undefined)) {
    await exec.ddl(
      `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH REPLICATION = ${options.replication}`,
      DDL_TIMEOUT_MS,
      host,
    );
  }
  for (const table of TABLE_NAMES) {
    if (!missing.some((m) => m.table === table)) continue;
    const suffix = options.tableOptions[table];
    await exec.ddl(
      `CREATE TABLE IF NOT EXISTS ${keyspace}.${table} (${TABLE_DEFINITIONS[table]})${suffix ? ` ${suffix}` : ''}`,
      DDL_TIMEOUT_MS,
      host,
    );
  }
}

/**
 * The coordinator of every DDL: the first node by address that the driver sees up. Every gateway that sees the same
 * nodes up picks the same one, and a node applies schema changes one at a time, so of two gateways creating the same
 * table at once the second's IF NOT EXISTS finds the first's table instead of making a second table id.
 */
export function ddlHost(client: cassandra.Client): cassandra.Host | undefined {
  const up = client.hosts.values().filter((host) => host.isUp());
  return up.sort((a, b) => a.address.localeCompare(b.address, 'en', { numeric: true }))[0];
}

const CLUSTER_CONFIG = 'cluster_config';
const ROW_TIME_UNIT = 'row_time_unit';
const ROW_WIDTH = 'row_width';
/** The string_index partition of metric names; KairosDB writes it as the UTF-8 bytes of this text. */
export const METRIC_NAMES_KEY = Buffer.from('metric_names', 'utf8');

/** KairosDB's readRowSpec: missing spec rows are written (row-spec.ts has the rules), then the spec is read. */
export async function readSpec(
  exec: StoreExecutor,
  statements: Statements,
  options: ResolvedOptions,
  timestampMs: number,
): Promise<RowSpec> {
  const read = async (name: string): Promise<string | undefined> => {
    const result = await exec.mutationRead('spec.select', statements.selectSpec, [CLUSTER_CONFIG, name]);
    const value = result.rows[0]?.get('value');
    return value === null || value === undefined ? undefined : String(value);
  };
  const write = (name: string, value: string) =>
    exec.mutate('spec.insert', statements.insertSpec, [CLUSTER_CONFIG, name, value], timestampMs);
  let unit = await read(ROW_TIME_UNIT);
  if (unit === undefined) {
    const names = await exec.mutationRead('string_index.select', statements.selectNamesLimit, [METRIC_NAMES_KEY, 1]);
    unit = initialRowTimeUnit(names.rows.length > 0, options.rowTimeUnit);
    await write(ROW_TIME_UNIT, unit);
  }
  let widthText = await read(ROW_WIDTH);
  if (widthText === undefined) {
    widthText = initialRowWidth(unit, options.rowWidth);
    await write(ROW_WIDTH, widthText);
  }
  return parseRowSpec(unit, widthText, `keyspace ${options.keyspace}`);
}
