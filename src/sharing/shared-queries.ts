/**
 * Identical queries of different requests (or of one request) running at the same time are run once: the first
 * starts executeQuery, the others wait for its answer. Each waiter keeps its own budgets and time limit: the run's
 * reads and returned points are charged to every waiter's request budget as they happen (and what was spent before
 * a waiter joined, when it joins), a waiter that goes over its budget or past its time limit leaves alone, and the
 * run stops only when no waiter is left.
 */
import { BudgetExceededError } from '../model/errors.js';
import { executeQuery, RequestBudget, type EngineContext, type QueryOutput } from '../engine/execute.js';
import type { MetricQuery } from '../model/query.js';
import { SingleFlight, type Flight } from './single-flight.js';
import type { WriteGenerations } from './write-generations.js';

interface Waiter {
  readonly request: RequestBudget;
}

export class SharedQueries {
  private readonly flights = new SingleFlight<QueryOutput, Waiter>();
  private readonly budgets = new WeakMap<Flight<Waiter>, FanOutBudget>();

  constructor(private readonly generations: WriteGenerations) {}

  /** Queries that waited for another's identical run, since start. */
  get joins(): number {
    return this.flights.joins;
  }

  /** Queries waiting for a run under way (the one that started it included). */
  get waiting(): number {
    return this.flights.waiting;
  }

  /**
   * The answer to `query` in the request of `ctx`: from a run of the identical query under way, or from a new run
   * with `ctx` (its loaders, lane, stats and cache), which others may join, started after `beforeRunning` (the
   * request's turn under admission control). A waiter that joined has `shared` set in its statistics and nothing
   * else: the reads are the first request's.
   */
  async run(query: MetricQuery, ctx: EngineContext, beforeRunning?: () => Promise<void>): Promise<QueryOutput> {
    // A turn under admission control is for running a query; waiting for one under way needs none. After the wait
    // for a turn the key is taken again: the metric may have been written meanwhile.
    if (beforeRunning !== undefined && !this.flights.has(this.keyOf(query, ctx))) await beforeRunning();
    const { value, joined } = await this.flights.do(
      this.keyOf(query, ctx),
      { request: ctx.request },
      ctx.signal,
      (flight) => {
        const budget = new FanOutBudget(flight);
        this.budgets.set(flight, budget);
        return executeQuery(query, { ...ctx, request: budget, signal: flight.signal });
      },
      (flight, waiter) => {
        const spent = this.budgets.get(flight)!;
        waiter.request.addRead(spent.pointsRead);
        waiter.request.addReturned(spent.pointsReturned);
      },
    );
    if (joined) ctx.stats.shared = 1;
    // The alias is the only part of the query not in the key.
    const { alias: _, ...answer } = value;
    return query.alias === undefined ? answer : { ...answer, alias: query.alias };
  }

  /**
   * Everything an answer depends on: the query but its alias, its source, the budgets, the metric's write generation
   * (so a query never joins a run that started before a write it must see), and the request's clock for gaps (the
   * only aggregator that reads it: its walk stops at now).
   */
  private keyOf(query: MetricQuery, ctx: EngineContext): string {
    const { alias: _, ...rest } = query;
    const clock = query.aggregators.some((a) => a.name === 'gaps') ? ctx.nowMs : null;
    return JSON.stringify(
      [rest, ctx.source.name, ctx.budgets, clock, this.generations.of(ctx.source.name, query.metric)],
      (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v),
    );
  }
}

/**
 * The request budget of a shared run: charges every waiter's own request budget. A waiter over its budget has its
 * request aborted by that budget (and so leaves the run); the run goes on for the others, and stops with the last.
 */
class FanOutBudget extends RequestBudget {
  constructor(private readonly flight: Flight<Waiter>) {
    super({ maxPointsRead: Infinity, maxPointsReturned: Infinity, maxAnswerBytes: Infinity });
  }

  override addRead(count: number): void {
    this.pointsRead += count;
    this.charge('addRead', count);
  }

  override addReturned(count: number): void {
    this.pointsReturned += count;
    this.charge('addReturned', count);
  }

  /**
   * Called for every point an aggregator emits, so it allocates nothing. A waiter over its budget leaves the set while
   * it is charged (its request aborts, and the flight drops it): iterating a Set skips what was deleted, never twice.
   */
  private charge(add: 'addRead' | 'addReturned', count: number): void {
    for (const waiter of this.flight.waiters) {
      try {
        waiter.request[add](count);
      } catch (error) {
        if (!(error instanceof BudgetExceededError)) throw error;
      }
    }
    // Every waiter went over its budget: stop now rather than at the next slice.
    this.flight.signal.throwIfAborted();
  }
}
