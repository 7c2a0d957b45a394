/**
 * A Cassandra connection made in the background and made again after a failure, for everything that talks to
 * Cassandra (KairosDB's store, Heroic's table): callers never wait on a dead node, and the gateway starts (and /ready
 * says 503) while Cassandra is unreachable.
 */
import { StoreUnavailableError } from '../../model/errors.js';
import { retryAfterSeconds, unavailableError } from './store-errors.js';

export interface ReconnectingEvents<C> {
  connected(connection: C): void;
  /** `repeated`: the attempt failed as the last one did (worth a log line only once). */
  failed(error: unknown, repeated: boolean): void;
}

export class Reconnecting<C> {
  private current: C | undefined;
  private attempt: Promise<C> | undefined;
  private lastFailure: { readonly error: unknown; readonly atMs: number } | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /**
   * Starts the first attempt. `connect` makes a whole connection (a fresh client per attempt: a client whose
   * connect() failed cannot be connected again); `dispose` ends one.
   */
  constructor(
    private readonly connect: () => Promise<C>,
    private readonly dispose: (connection: C) => Promise<void>,
    private readonly delayMs: number,
    private readonly events: ReconnectingEvents<C>,
  ) {
    this.startAttempt();
  }

  /** The live connection, if there is one now. */
  get value(): C | undefined {
    return this.current;
  }

  /** Puts a connection in place of the current one (a store that repaired its schema on the same client). */
  replace(connection: C): void {
    this.current = connection;
  }

  /**
   * The live connection. Without one, a caller waits for the attempt under way, or starts one when the last failed
   * at least a reconnect delay ago; otherwise it fails at once with the last failure, never waiting on a dead node.
   */
  async get(): Promise<C> {
    if (this.current !== undefined) return this.current;
    if (this.closed) throw new StoreUnavailableError('cassandra', new Error('the store is closed'));
    if (
      this.attempt === undefined &&
      (this.lastFailure === undefined || Date.now() - this.lastFailure.atMs >= this.delayMs)
    )
      this.startAttempt();
    try {
      if (this.attempt !== undefined) return await this.attempt;
      throw this.lastFailure!.error;
    } catch (error) {
      throw unavailableError(error, retryAfterSeconds(this.delayMs));
    }
  }

  /** Stops retrying and ends the connection (waiting for an attempt under way, which it then ends too). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.attempt?.catch(() => {});
    const connection = this.current;
    this.current = undefined;
    if (connection !== undefined) await this.dispose(connection);
  }

  private startAttempt(): void {
    clearTimeout(this.retryTimer);
    const attempt = this.connect();
    this.attempt = attempt;
    attempt.then(
      async (connection) => {
        this.attempt = undefined;
        if (this.closed) {
          await this.dispose(connection);
          return;
        }
        this.current = connection;
        this.lastFailure = undefined;
        this.events.connected(connection);
      },
      (error: unknown) => {
        this.attempt = undefined;
        const message = error instanceof Error ? error.message : String(error);
        const previous = this.lastFailure?.error;
        this.events.failed(error, previous instanceof Error && previous.message === message);
        this.lastFailure = { error, atMs: Date.now() };
        if (this.closed) return;
        this.retryTimer = setTimeout(() => this.startAttempt(), this.delayMs);
        this.retryTimer.unref();
      },
    );
  }
}
