/**
 * What the KairosDB store's clients read through the lean page hook (cassandra-client/lean-page-hook.ts): their
 * keyspace's data_points scan pages, as ScanRows over the frame's own bytes.
 */
import cassandra from 'cassandra-driver';
import {
  LEAN_PAGES_KEY,
  type ColumnSpec,
  type LeanReader,
  type RowsMetadata,
} from '../cassandra-client/lean-page-hook.js';
import { ScanRows } from './scan-rows.js';

const BLOB = cassandra.types.dataTypes.blob;

/** What the KairosDB store's client carries: its keyspace's data_points pages, as ScanRows. */
class LeanPages implements LeanReader {
  constructor(readonly keyspace: string) {}

  /**
   * Exactly the scan's result columns: `column1 blob, value blob` of this keyspace's data_points. No other statement
   * of the store reads that pair, so no other result (index tables, spec, schema, control connection) is touched.
   */
  matches(meta: RowsMetadata): boolean {
    const columns = meta.columns;
    return (
      columns.length === 2 && this.isColumn(meta, columns[0]!, 'column1') && this.isColumn(meta, columns[1]!, 'value')
    );
  }

  read(buf: Buffer, start: number, count: number): ScanRows {
    return ScanRows.framed(buf, start, count);
  }

  private isColumn(meta: RowsMetadata, column: ColumnSpec, name: string): boolean {
    // With the protocol's global_tables_spec flag the keyspace and table are named once for all columns.
    return (
      column.name === name &&
      column.type.code === BLOB &&
      (column.ksname ?? meta.keyspace) === this.keyspace &&
      (column.tablename ?? meta.table) === 'data_points'
    );
  }
}

/** Client `encoding` options that opt the client's scans into lean pages (merged with its own encoding options). */
export function leanPagesEncoding(keyspace: string): Record<string, unknown> {
  return { [LEAN_PAGES_KEY]: new LeanPages(keyspace) };
}
