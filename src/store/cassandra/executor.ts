// Sends every statement of one connected client: prepared, under the request limiter, with the configured
// consistency and timeout, counted by name, with driver failures turned into StoreUnavailableError.
import cassandra from 'cassandra-driver';
import { StoreUnavailableError } from '../../errors.js';
import type { Limiter } from './limiter.js';
import type { Consistency, ResolvedOptions } from './options.js';
import type { StatementName } from './statements.js';

export type StatementCounts = Partial<Record<StatementName, number>>;

/** Counters shared by every client a store creates over its life (it makes a new one per connection attempt). */
export interface ExecutorStats {
  readonly counts: StatementCounts;
  /** Driver requests sent and not yet settled. */
  inFlight: number;
}

export interface PageRequest {
  readonly fetchSize: number;
  readonly pageState?: Buffer | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface BatchQuery {
  readonly query: string;
  readonly params: unknown[];
}

export class Executor {
  private readonly read: number;
  private readonly write: number;

  constructor(
    readonly client: cassandra.Client,
    private readonly limiter: Limiter,
    private readonly stats: ExecutorStats,
    private readonly options: ResolvedOptions,
  ) {
    this.read = consistencyOf(options.readConsistency);
    this.write = consistencyOf(options.writeConsistency);
  }

  /** One page of a read; a new page is fetched only when the caller asks, which is how scans apply backpressure. */
  async page(name: StatementName, query: string, params: unknown[], request: PageRequest): Promise<cassandra.types.ResultSet> {
    const options: cassandra.QueryOptions = {
      prepare: true,
      consistency: this.read,
      fetchSize: request.fetchSize,
      autoPage: false,
      isIdempotent: true,
      readTimeout: this.options.requestTimeoutMs,
      ...(request.pageState !== undefined ? { pageState: request.pageState } : {}),
    };
    return this.send(name, () => this.client.execute(query, params, options), request.signal);
  }

  /** Every row of a read (index tables: small partitions), page by page under the limiter. */
  async all(name: StatementName, query: string, params: unknown[]): Promise<cassandra.types.Row[]> {
    const rows: cassandra.types.Row[] = [];
    let pageState: Buffer | undefined;
    do {
      const result = await this.page(name, query, params, { fetchSize: this.options.fetchSize, pageState });
      for (const row of result.rows) rows.push(row);
      pageState = pageStateOf(result);
    } while (pageState !== undefined);
    return rows;
  }

  /** A read that must see this store's own recent writes, so it runs at the write consistency. */
  async mutationRead(name: StatementName, query: string, params: unknown[]): Promise<cassandra.types.ResultSet> {
    const options = { prepare: true, consistency: this.write, isIdempotent: true, readTimeout: this.options.requestTimeoutMs };
    return this.send(name, () => this.client.execute(query, params, options));
  }

  /** A write or delete with its millisecond write time (used where the CQL has no USING TIMESTAMP of its own). */
  async mutate(name: StatementName, query: string, params: unknown[], timestampMs: number): Promise<void> {
    const options = { prepare: true, consistency: this.write, isIdempotent: true, readTimeout: this.options.requestTimeoutMs, timestamp: timestampMs };
    await this.send(name, () => this.client.execute(query, params, options));
  }

  /** An UNLOGGED batch: KairosDB groups data_points inserts this way; one partition per batch is one mutation. */
  async batch(name: StatementName, queries: BatchQuery[], timestampMs: number): Promise<void> {
    const options = {
      prepare: true,
      logged: false,
      consistency: this.write,
      isIdempotent: true,
      readTimeout: this.options.requestTimeoutMs,
      timestamp: timestampMs,
    };
    await this.send(name, () => this.client.batch(queries, options));
  }

  /** Schema lookups while connecting: not counted, not limited (nothing else runs yet). */
  async system(query: string, params: unknown[]): Promise<cassandra.types.ResultSet> {
    return this.send(undefined, () => this.client.execute(query, params, { prepare: true, readTimeout: this.options.requestTimeoutMs }), undefined, false);
  }

  async ddl(query: string, timeoutMs: number): Promise<void> {
    await this.send(undefined, () => this.client.execute(query, [], { readTimeout: timeoutMs }), undefined, false);
  }

  /** Outside the limiter: readiness must answer even while queries hold every permit. */
  async ping(query: string): Promise<void> {
    await this.send('system.ping', () => this.client.execute(query, [], { readTimeout: this.options.requestTimeoutMs, isIdempotent: true }), undefined, false);
  }

  private async send<T>(name: StatementName | undefined, request: () => Promise<T>, signal?: AbortSignal, limited = true): Promise<T> {
    if (limited) await this.limiter.acquire(signal);
    if (name !== undefined) this.stats.counts[name] = (this.stats.counts[name] ?? 0) + 1;
    this.stats.inFlight++;
    const sent = request().finally(() => {
      this.stats.inFlight--;
      if (limited) this.limiter.release();
    });
    try {
      return await (signal === undefined ? sent : abortable(sent, signal));
    } catch (error) {
      throw storeError(error);
    }
  }
}

/** The driver's next-page token; absent on the last page. */
export function pageStateOf(result: cassandra.types.ResultSet): Buffer | undefined {
  const state = (result as unknown as { rawPageState?: Buffer }).rawPageState;
  return state === undefined || state === null ? undefined : state;
}

/**
 * Driver failures that mean "Cassandra cannot answer now" (nobody reachable, a timeout, replicas missing or
 * overloaded) become StoreUnavailableError; anything else (a bad statement) is a bug and passes as it is.
 */
export function storeError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !(error instanceof Error)) return error;
  const { errors } = cassandra;
  const unavailable =
    error instanceof errors.NoHostAvailableError ||
    error instanceof errors.OperationTimedOutError ||
    error instanceof errors.BusyConnectionError ||
    (error instanceof errors.ResponseError && UNAVAILABLE_CODES.has(error.code)) ||
    // The driver's own refusal once the client is shut down (a request racing close()).
    (error instanceof errors.DriverError && /shutdown|shut down/i.test(error.message));
  return unavailable ? unavailableError(error) : error;
}

/**
 * A StoreUnavailableError whose message a client can read: NoHostAvailableError's own message embeds each host's
 * error with its stack trace, so it is rebuilt from the hosts' messages (the driver error stays as the cause).
 */
export function unavailableError(error: unknown): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  if (!(error instanceof cassandra.errors.NoHostAvailableError)) return new StoreUnavailableError('cassandra', error);
  const hosts = Object.entries((error.innerErrors ?? {}) as Record<string, unknown>).map(
    ([host, inner]) => `${host}: ${inner instanceof Error ? inner.message : String(inner)}`,
  );
  const message = hosts.length > 0 ? `no Cassandra host answered (${hosts.join('; ')})` : 'no Cassandra host answered';
  return new StoreUnavailableError('cassandra', new Error(message, { cause: error }));
}

const UNAVAILABLE_CODES = new Set<number>([
  cassandra.types.responseErrorCodes.unavailableException,
  cassandra.types.responseErrorCodes.overloaded,
  cassandra.types.responseErrorCodes.isBootstrapping,
  cassandra.types.responseErrorCodes.writeTimeout,
  cassandra.types.responseErrorCodes.readTimeout,
  cassandra.types.responseErrorCodes.readFailure,
  cassandra.types.responseErrorCodes.writeFailure,
]);

/**
 * Rejects with the signal's reason as soon as it aborts. The driver cannot cancel a sent request, so it runs to
 * its end in the background (it still counts as in flight and keeps its permit until then) and its outcome is dropped.
 */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function consistencyOf(level: Consistency): number {
  const c = cassandra.types.consistencies;
  const map: Record<Consistency, number> = {
    ANY: c.any,
    ONE: c.one,
    TWO: c.two,
    THREE: c.three,
    QUORUM: c.quorum,
    ALL: c.all,
    LOCAL_QUORUM: c.localQuorum,
    EACH_QUORUM: c.eachQuorum,
    LOCAL_ONE: c.localOne,
  };
  return map[level];
}
