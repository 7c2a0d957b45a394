/**
 * A Bigtable data client over raw gRPC (grpc-channel.ts) with the messages written by hand (proto-wire.ts): ReadRows
 * over one row range with a filter, merged from chunks into rows (chunk-merger.ts) and resumed after the last whole
 * row when the stream fails; MutateRows, retrying the entries that failed for a reason worth another try. Rows and
 * cells stay bytes: which keys, qualifiers and values mean what is the layout's. docs/heroic-bigtable.md says why this
 * client rather than Google's.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreUnavailableError } from '../../model/errors.js';
import { ChunkMerger, type BigtableRow } from './chunk-merger.js';
import { GrpcChannel, GrpcError } from './grpc-channel.js';
import { ProtoWriter, protoFields } from './proto-wire.js';

export interface BigtableClientOptions {
  readonly endpoint: string;
  /** The emulator speaks plain text and asks for no credentials; Google's service, TLS and an access token. */
  readonly emulator: boolean;
  /** The `authorization` header of each call to Google's service (access-token.ts). */
  readonly authorization?: () => Promise<string>;
  readonly project: string;
  readonly instance: string;
  readonly table: string;
  /** Deadline of one attempt of a call. */
  readonly deadlineMs: number;
  /** Attempts of a call that fails for a reason worth another try (UNAVAILABLE, a dropped connection). */
  readonly attempts: number;
}

/** Rows from `start` to `end` (empty: the table's ends), each bound closed unless said open. */
export interface RowRange {
  readonly start: Buffer;
  readonly startOpen?: boolean;
  readonly end: Buffer;
  readonly endOpen?: boolean;
}

/** Every mutation a row of Heroic's needs: a cell set, a column's cells deleted, the whole row deleted. */
export type Mutation =
  | { readonly set: { family: string; qualifier: Buffer; timestampMicros: number; value: Buffer } }
  | { readonly deleteColumn: { family: string; qualifier: Buffer } }
  | { readonly deleteRow: true };

const SERVICE = '/google.bigtable.v2.Bigtable/';
/** gRPC codes worth another attempt: DEADLINE_EXCEEDED, ABORTED, UNAVAILABLE. */
const RETRYABLE = new Set([4, 10, 14]);
const FIRST_BACKOFF_MS = 50;
/** Codes that say the store cannot serve now, not that the request is wrong: NOT_FOUND (the table), PERMISSION_DENIED, UNAUTHENTICATED. */
const UNAVAILABLE = new Set([5, 7, 16]);

export class BigtableClient {
  readonly tableName: string;
  private readonly channel: GrpcChannel;

  constructor(private readonly options: BigtableClientOptions) {
    this.tableName = `projects/${options.project}/instances/${options.instance}/tables/${options.table}`;
    this.channel = new GrpcChannel({
      endpoint: options.endpoint,
      tls: !options.emulator,
      // Google's front end routes a call by its table.
      headers: { 'x-goog-request-params': `table_name=${encodeURIComponent(this.tableName)}` },
      ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
    });
  }

  /**
   * The rows of a range that pass `filter` (an encoded RowFilter), in key order, at most `limit` (0: all). A failed
   * stream is read again from just after the last row it returned.
   */
  async *readRows(range: RowRange, filter: Buffer | undefined, limit: number, signal?: AbortSignal) {
    let resume = range;
    let left = limit;
    for (let attempt = 1; ; attempt++) {
      const merger = new ChunkMerger();
      let progressed = false;
      try {
        const request = new ProtoWriter().bytes(1, this.tableName).bytes(2, rowSet(resume));
        if (filter !== undefined) request.bytes(3, filter);
        request.varint(4, left);
        for await (const message of this.channel.call(
          `${SERVICE}ReadRows`,
          request.finish(),
          this.options.deadlineMs,
          signal,
        )) {
          const rows: BigtableRow[] = merger.take(message);
          for (const row of rows) {
            yield row;
            progressed = true;
            resume = { ...resume, start: row.key, startOpen: true };
            if (limit > 0 && --left === 0) return;
          }
        }
        merger.end();
        return;
      } catch (error) {
        await this.again(error, attempt, progressed, signal);
      }
    }
  }

  /** Applies each row's mutations; resolves once all are applied, or throws naming the first entry that failed. */
  async mutateRows(entries: ReadonlyArray<{ key: Buffer; mutations: readonly Mutation[] }>, signal?: AbortSignal) {
    let pending = entries.map((_, i) => i);
    for (let attempt = 1; pending.length > 0; attempt++) {
      const request = new ProtoWriter().bytes(1, this.tableName);
      for (const i of pending) {
        const entry = new ProtoWriter().bytes(1, entries[i]!.key);
        for (const m of entries[i]!.mutations) entry.bytes(2, mutation(m));
        request.bytes(2, entry.finish());
      }
      const failed: Array<{ index: number; error: GrpcError }> = [];
      try {
        for await (const message of this.channel.call(
          `${SERVICE}MutateRows`,
          request.finish(),
          this.options.deadlineMs,
          signal,
        ))
          for (const f of protoFields(message)) if (f.field === 1 && f.wire === 2) failed.push(...entryStatus(f.bytes));
      } catch (error) {
        // Setting a cell again is harmless (its latest version is what counts), so the whole request is retried.
        await this.again(error, attempt, false, signal);
        continue;
      }
      const lasting = failed.find((f) => !RETRYABLE.has(f.error.code) || attempt >= this.options.attempts);
      if (lasting !== undefined) throw this.mapped(lasting.error);
      const retry = failed.map((f) => pending[f.index]!);
      if (retry.length > 0) await sleep(FIRST_BACKOFF_MS * 2 ** (attempt - 1), undefined, { signal });
      pending = retry;
    }
  }

  close(): void {
    this.channel.close();
  }

  /** Waits before the next attempt of a call, or throws the call's error as the gateway reports it. */
  private async again(error: unknown, attempt: number, progressed: boolean, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    const retryable = !(error instanceof GrpcError) || RETRYABLE.has(error.code);
    // A stream that returned rows before failing made progress: it starts its attempts over.
    if (!retryable || (attempt >= this.options.attempts && !progressed)) throw this.mapped(error);
    await sleep(FIRST_BACKOFF_MS * 2 ** Math.min(attempt - 1, 6), undefined, { signal });
  }

  private mapped(error: unknown): Error {
    if (error instanceof GrpcError && !RETRYABLE.has(error.code) && !UNAVAILABLE.has(error.code)) return error;
    // A missing table or refused credentials are the store's state, as a dropped Cassandra table is for that store.
    const cause =
      error instanceof GrpcError && error.code === 5
        ? new Error(`Bigtable table ${this.tableName} not found: ${error.details}`, { cause: error })
        : error;
    return new StoreUnavailableError('bigtable', cause);
  }
}

/** A RowFilter chain (a single filter needs none). */
export function chain(filters: readonly Buffer[]): Buffer {
  if (filters.length === 1) return filters[0]!;
  const c = new ProtoWriter();
  for (const f of filters) c.bytes(1, f);
  return new ProtoWriter().bytes(1, c.finish()).finish();
}

/** Cells of `family` with qualifiers from `from` to `to`, both closed. */
export function columnRange(family: string, from: Buffer, to: Buffer): Buffer {
  const range = new ProtoWriter().bytes(1, family).bytes(2, from).bytes(4, to).finish();
  return new ProtoWriter().bytes(7, range).finish();
}

/** Only the latest version of each column. */
export function latestOnly(): Buffer {
  return new ProtoWriter().varint(12, 1).finish();
}

/** The first `n` cells of each row (after the filters before it in a chain). */
export function firstCells(n: number): Buffer {
  return new ProtoWriter().varint(11, n).finish();
}

/** Cells without their values. */
export function stripValues(): Buffer {
  return new ProtoWriter().varint(13, true).finish();
}

function rowSet(range: RowRange): Buffer {
  const r = new ProtoWriter();
  if (range.start.length > 0) r.bytes(range.startOpen ? 2 : 1, range.start);
  if (range.end.length > 0) r.bytes(range.endOpen ? 3 : 4, range.end);
  return new ProtoWriter().bytes(2, r.finish()).finish();
}

function mutation(m: Mutation): Buffer {
  if ('set' in m) {
    const { family, qualifier, timestampMicros, value } = m.set;
    const set = new ProtoWriter().bytes(1, family).bytes(2, qualifier).varint(3, timestampMicros).bytes(4, value);
    return new ProtoWriter().bytes(1, set.finish()).finish();
  }
  if ('deleteColumn' in m) {
    const column = new ProtoWriter().bytes(1, m.deleteColumn.family).bytes(2, m.deleteColumn.qualifier);
    return new ProtoWriter().bytes(2, column.finish()).finish();
  }
  return new ProtoWriter().bytes(4, Buffer.alloc(0)).finish();
}

/** A MutateRowsResponse entry: its index and, when not OK, its status as a GrpcError. */
function entryStatus(entry: Buffer): Array<{ index: number; error: GrpcError }> {
  let index = 0;
  let code = 0;
  let details = '';
  for (const f of protoFields(entry)) {
    if (f.field === 1 && f.wire === 0) index = f.value;
    if (f.field === 2 && f.wire === 2)
      for (const s of protoFields(f.bytes)) {
        if (s.field === 1 && s.wire === 0) code = s.value;
        if (s.field === 2 && s.wire === 2) details = s.bytes.toString('utf8');
      }
  }
  return code === 0 ? [] : [{ index, error: new GrpcError(code, details, `${SERVICE}MutateRows`) }];
}
