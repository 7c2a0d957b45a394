/**
 * A connection to a user's table: the client, the schema read from system_schema and the mapping checked against it,
 * and the table watched for its loss. user-table.ts reads and writes through it.
 */
import cassandra from 'cassandra-driver';
import { StoreUnavailableError } from '../../model/errors.js';
import { clientOptions } from '../../store/cassandra-client/client-options.js';
import type { ResolvedConnection } from '../../store/cassandra-client/connection-options.js';
import { Executor, type ExecutorStats, type WatchedSchema } from '../../store/cassandra-client/executor.js';
import { LEAN_PAGES_KEY } from '../../store/cassandra-client/lean-page-hook.js';
import type { Limiter } from '../../store/cassandra-client/limiter.js';
import { checkMapping, type CheckedTable, type SchemaColumn, type SchemaIndex, type TableMapping } from './mapping.js';
import { TimeValuePages } from './time-value-rows.js';

/** What the table's requests are counted by. */
export type TableStatement =
  | 'table.select'
  | 'table.keys'
  | 'table.series'
  | 'table.index'
  | 'table.insert'
  | 'table.delete';

/** A live connection, with the table it found. */
export interface Connection {
  readonly exec: Executor<TableStatement>;
  readonly checked: CheckedTable;
}

/** The mapping does not fit the table: start-up stops on it; later, requests say it. */
export class MappingError extends Error {}

/**
 * One connection to the table: a client (decoding the mapped columns' pages itself when `lean`), the table's columns,
 * TTL and indexes read from system_schema, and the mapping checked against them (a MappingError when it does not fit).
 */
export async function connectTable(
  mapping: TableMapping,
  options: ResolvedConnection,
  source: string,
  lean: boolean,
  limiter: Limiter,
  stats: ExecutorStats<TableStatement>,
): Promise<Connection> {
  const { keyspace: ks, table: tbl, time } = mapping;
  const client = new cassandra.Client(
    clientOptions(
      options,
      lean
        ? {
            encoding: {
              [LEAN_PAGES_KEY]: new TimeValuePages(
                ks,
                tbl,
                time,
                new Set(Object.values(mapping.metrics)),
                (mapping.timeUnit ?? 'milliseconds') === 'milliseconds',
              ),
            } as cassandra.ClientOptions['encoding'],
          }
        : {},
    ),
  );
  try {
    await client.connect();
    const exec = new Executor<TableStatement>(client, limiter, stats, options, () => {}, watched(mapping, source));
    const { keyspace, table } = mapping;
    const columns = await exec.system(
      'SELECT column_name, kind, position, type, clustering_order FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?',
      [keyspace, table],
    );
    const tables = await exec.system(
      'SELECT default_time_to_live FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?',
      [keyspace, table],
    );
    const indexRows = await exec.system(
      'SELECT index_name, options FROM system_schema.indexes WHERE keyspace_name = ? AND table_name = ?',
      [keyspace, table],
    );
    const indexes: SchemaIndex[] = indexRows.rows.map((row) => {
      const options = (row['options'] ?? {}) as Record<string, string> | Map<string, string>;
      const option = (name: string) => (options instanceof Map ? options.get(name) : options[name]);
      return { name: row['index_name'] as string, className: option('class_name'), target: option('target') };
    });
    const schema: SchemaColumn[] = columns.rows.map((row) => ({
      name: row['column_name'] as string,
      kind: row['kind'] as SchemaColumn['kind'],
      position: row['position'] as number,
      type: row['type'] as string,
      order: row['clustering_order'] as SchemaColumn['order'],
    }));
    let checked: CheckedTable;
    try {
      checked = checkMapping(
        mapping,
        schema,
        (tables.rows[0]?.['default_time_to_live'] as number | undefined) ?? 0,
        indexes,
      );
    } catch (error) {
      throw new MappingError(`source ${JSON.stringify(source)}: ${(error as Error).message}`);
    }
    exec.schemaReady();
    return { exec, checked };
  } catch (error) {
    await client.shutdown().catch(() => {});
    throw error;
  }
}

/** The table, whose loss a failing request reveals: reported as gone, never created again. */
function watched(mapping: TableMapping, source: string): WatchedSchema {
  const { keyspace, table } = mapping;
  return {
    tables: [table],
    lostError: (reason, _last, cause) =>
      new StoreUnavailableError(
        'cassandra',
        new Error(`${reason}: the table of source ${JSON.stringify(source)} (${keyspace}.${table}) is gone`, {
          cause,
        }),
      ),
  };
}

/** A checked name (mapping.ts CQL_NAME) as a quoted CQL identifier, so its case is kept. */
export function quote(name: string): string {
  return `"${name}"`;
}
