/**
 * Live queries: identical subscriptions share one computation, re-run over the fresh edge every LIVE_POLL_MS and at
 * once after a write through the gateway to its metric; each subscriber is told which series changed from which time,
 * coalesced while it does not read (latest wins), so a slow client holds one mark per series, never a queue.
 * Subscribers that read every update get the same update object, built once per run: the front end then executes and
 * encodes it once for all of them (src/graphql/use-shared-events.ts).
 */
import { KairographError, RateLimitedError, TooManySubscriptionsError } from '../model/errors.js';
import type { Logger } from '../lib/log.js';
import { firstDifference } from './live-diff.js';
import {
  changesUpdate,
  type LiveAnswer,
  type LiveItem,
  type LiveQuery,
  type LiveUpdate,
  snapshotUpdate,
} from './live-update.js';
import type { WriteGenerations } from './write-generations.js';

export interface LiveQueriesOptions {
  /** LIVE_POLL_MS */
  readonly pollMs: number;
  /** MAX_SUBSCRIPTIONS */
  readonly maxSubscriptions: number;
  /** QUOTA_SUBSCRIPTIONS: most subscriptions of one client; 0 for no bound. */
  readonly maxPerClient?: number;
  readonly generations: WriteGenerations;
  readonly log: Logger;
}

export class LiveQueries {
  private readonly computations = new Map<string, Computation<LiveItem>>();
  private readonly byScope = new Map<string, Set<Computation<LiveItem>>>();
  private timer: NodeJS.Timeout | undefined;
  private subscribers = 0;
  /** Subscriptions by client; a client with none has no entry. */
  private readonly byClient = new Map<string, number>();
  /** Poll ticks, and runs of computations (by polls and by writes), since start. */
  polls = 0;
  runs = 0;

  constructor(private readonly options: LiveQueriesOptions) {
    options.generations.onBump((scope) => {
      for (const computation of this.byScope.get(scope) ?? []) computation.refresh();
    });
  }

  get subscriptions(): number {
    return this.subscribers;
  }

  /** Distinct computations running. */
  get queries(): number {
    return this.computations.size;
  }

  /**
   * The updates of `query` for one subscriber of `client`: a snapshot first, then what changed. Throws
   * TooManySubscriptionsError at once when MAX_SUBSCRIPTIONS are served, RateLimitedError when the client holds its
   * QUOTA_SUBSCRIPTIONS. Returning from the iterator (the client left) unsubscribes.
   */
  subscribe<T extends LiveItem>(query: LiveQuery<T>, client = ''): AsyncIterableIterator<LiveUpdate<T>> {
    if (this.subscribers >= this.options.maxSubscriptions)
      throw new TooManySubscriptionsError(this.options.maxSubscriptions);
    const held = this.byClient.get(client) ?? 0;
    const quota = this.options.maxPerClient ?? 0;
    if (quota > 0 && held >= quota) {
      throw new RateLimitedError(`this client already holds ${held} live subscriptions, its QUOTA_SUBSCRIPTIONS`, {
        policy: 'subscriptions',
        limit: quota,
        remaining: 0,
        resetSeconds: 1,
      });
    }
    let computation = this.computations.get(query.key) as Computation<T> | undefined;
    if (computation === undefined) {
      computation = new Computation(query, this);
      this.computations.set(query.key, computation as unknown as Computation<LiveItem>);
      for (const scope of query.scopes) {
        let scoped = this.byScope.get(scope);
        if (scoped === undefined) this.byScope.set(scope, (scoped = new Set()));
        scoped.add(computation as unknown as Computation<LiveItem>);
      }
      computation.refresh();
      this.timer ??= setInterval(() => this.poll(), this.options.pollMs).unref();
    }
    this.subscribers++;
    this.byClient.set(client, held + 1);
    return computation.subscribe(client);
  }

  /** Ends every subscription (shutdown): their streams complete. */
  close(): void {
    for (const computation of [...this.computations.values()]) computation.end();
  }

  /** @internal A computation whose last subscriber left. */
  forget(computation: Computation<LiveItem>): void {
    this.computations.delete(computation.query.key);
    for (const scope of computation.query.scopes) {
      const scoped = this.byScope.get(scope);
      scoped?.delete(computation);
      if (scoped?.size === 0) this.byScope.delete(scope);
    }
    if (this.computations.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** @internal */
  left(client: string): void {
    this.subscribers--;
    const held = this.byClient.get(client)! - 1;
    if (held === 0) this.byClient.delete(client);
    else this.byClient.set(client, held);
  }

  /** @internal */
  get log(): Logger {
    return this.options.log;
  }

  private poll(): void {
    this.polls++;
    for (const computation of this.computations.values()) computation.refresh();
  }
}

/** Errors after which the next poll may well succeed: the subscription stays. */
const TRANSIENT = new Set(['OVERLOADED', 'STORE_UNAVAILABLE', 'QUERY_TIMEOUT']);

class Computation<T extends LiveItem> {
  current: { readonly answer: LiveAnswer<T>; readonly byKey: Map<string, T> } | undefined;
  /** Counts the answers settled; a subscriber's marks name the answer they came from. */
  generation = 0;
  /** What the latest answer changed from the one before it; undefined when it was sent as a snapshot. */
  private latest: { readonly changed: ReadonlyMap<string, number>; readonly removed: readonly string[] } | undefined;
  /** The latest answer's snapshot and update, each built once, for every subscriber that needs exactly it. */
  private sharedSnapshot: LiveUpdate<T> | undefined;
  private sharedUpdate: LiveUpdate<T> | undefined;
  private readonly subscribers = new Set<Subscriber<T>>();
  private running = false;
  private again = false;
  private ended = false;

  constructor(
    readonly query: LiveQuery<T>,
    private readonly owner: LiveQueries,
  ) {}

  subscribe(client: string): AsyncIterableIterator<LiveUpdate<T>> {
    const subscriber = new Subscriber<T>(this, client);
    this.subscribers.add(subscriber);
    return subscriber.iterator();
  }

  unsubscribe(subscriber: Subscriber<T>): void {
    if (!this.subscribers.delete(subscriber)) return;
    this.owner.left(subscriber.client);
    if (this.subscribers.size === 0) this.end();
  }

  /** Runs the query now, or once more after the run under way (whose reads may predate the write that asked). */
  refresh(): void {
    if (this.ended) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.again = false;
    this.owner.runs++;
    void this.query.run().then(
      (answer) => this.settle(answer),
      (error: unknown) => this.fail(error),
    );
  }

  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.owner.forget(this as unknown as Computation<LiveItem>);
    for (const subscriber of this.subscribers) subscriber.finish(error);
  }

  private settle(answer: LiveAnswer<T>): void {
    this.running = false;
    if (this.ended) return;
    const byKey = new Map<string, T>();
    for (const item of answer.series) byKey.set(this.query.seriesKey(item), item);
    const previous = this.current;
    this.current = { answer, byKey };
    this.generation++;
    this.latest = undefined;
    this.sharedSnapshot = undefined;
    this.sharedUpdate = undefined;
    if (previous === undefined || answer.reanchored) {
      for (const subscriber of this.subscribers) subscriber.snapshot();
    } else {
      const changed = new Map<string, number>();
      for (const [key, item] of byKey) {
        const before = previous.byKey.get(key);
        const fromMs = before === undefined ? Number.NEGATIVE_INFINITY : firstDifference(before.points, item.points);
        if (fromMs !== undefined) changed.set(key, fromMs);
      }
      const removed = [...previous.byKey.keys()].filter((key) => !byKey.has(key));
      if (changed.size > 0 || removed.length > 0) {
        this.latest = { changed, removed };
        for (const subscriber of this.subscribers) subscriber.mark(changed, removed);
      }
    }
    if (this.again) this.refresh();
  }

  /** The whole latest answer, as every subscriber that needs a snapshot is sent it. */
  snapshotUpdate(): LiveUpdate<T> {
    this.sharedSnapshot ??= snapshotUpdate(this.current!);
    return this.sharedSnapshot;
  }

  /** What the latest answer changed, for the subscribers whose marks are that change and nothing older. */
  latestUpdate(): LiveUpdate<T> {
    this.sharedUpdate ??= changesUpdate(this.current!, this.latest!.changed, this.latest!.removed);
    return this.sharedUpdate;
  }

  private fail(error: unknown): void {
    this.running = false;
    if (this.ended) return;
    if (this.current !== undefined && error instanceof KairographError && TRANSIENT.has(error.code)) {
      this.owner.log.warn(
        { err: error, live: this.query.key },
        'a live query could not be brought up to date; trying again at the next poll',
      );
      if (this.again) this.refresh();
      return;
    }
    this.end(error);
  }
}

/**
 * One subscriber's view: whether it needs the whole answer, and per series the earliest time changed since it last
 * read. Updates are built from the computation's latest answer when the subscriber reads, so however long it does not
 * read, it holds no more than one mark per series.
 */
class Subscriber<T extends LiveItem> {
  private needsSnapshot = true;
  /** The answer whose change alone this subscriber's marks hold (it had read everything before it); -1 for none. */
  private markedOnly = -1;
  private readonly dirty = new Map<string, number>();
  private readonly removed = new Set<string>();
  private wake: (() => void) | undefined;
  private done = false;
  private error: unknown;

  constructor(
    private readonly computation: Computation<T>,
    readonly client: string,
  ) {}

  snapshot(): void {
    this.needsSnapshot = true;
    this.clearMarks();
    this.notify();
  }

  mark(changed: ReadonlyMap<string, number>, removed: readonly string[]): void {
    if (this.needsSnapshot) return this.notify();
    this.markedOnly = this.dirty.size === 0 && this.removed.size === 0 ? this.computation.generation : -1;
    for (const [key, fromMs] of changed) {
      this.dirty.set(key, Math.min(fromMs, this.dirty.get(key) ?? Number.POSITIVE_INFINITY));
      this.removed.delete(key);
    }
    for (const key of removed) {
      this.dirty.delete(key);
      this.removed.add(key);
    }
    this.notify();
  }

  finish(error?: unknown): void {
    this.done = true;
    this.error = error;
    this.notify();
  }

  iterator(): AsyncIterableIterator<LiveUpdate<T>> {
    const leave = (): Promise<IteratorResult<LiveUpdate<T>>> => {
      this.done = true;
      this.computation.unsubscribe(this);
      this.notify();
      return Promise.resolve({ done: true, value: undefined });
    };
    const it: AsyncIterableIterator<LiveUpdate<T>> = {
      next: async () => {
        for (;;) {
          if (this.error !== undefined) {
            const error = this.error;
            this.error = undefined;
            this.computation.unsubscribe(this);
            throw error;
          }
          if (this.done) return leave();
          const update = this.take();
          if (update !== undefined) return { done: false, value: update };
          await new Promise<void>((resolve) => (this.wake = resolve));
        }
      },
      return: leave,
      throw: async (error: unknown) => {
        await leave();
        throw error;
      },
      [Symbol.asyncIterator]: () => it,
    };
    return it;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** The update this subscriber has not read yet, from the latest answer; undefined when there is none. */
  private take(): LiveUpdate<T> | undefined {
    const current = this.computation.current;
    if (current === undefined) return undefined;
    if (this.needsSnapshot) {
      this.needsSnapshot = false;
      this.clearMarks();
      return this.computation.snapshotUpdate();
    }
    if (this.dirty.size === 0 && this.removed.size === 0) return undefined;
    const update =
      this.markedOnly === this.computation.generation
        ? this.computation.latestUpdate()
        : changesUpdate(current, this.dirty, [...this.removed]);
    this.clearMarks();
    return update;
  }

  private clearMarks(): void {
    this.dirty.clear();
    this.removed.clear();
    this.markedOnly = -1;
  }
}
