/**
 * What one query's evaluation spends, metered across the evaluator and its subqueries' evaluators: the thread (work
 * is counted in units, and every so many the evaluation looks at the clock and yields its turn, lib/time-slice.ts, and
 * at the abort signal) and the samples it holds (Prometheus's `--query.max-samples`).
 */
import { type Lane, yieldIfDue } from '../../lib/time-slice.js';
import { PromqlError } from './promql-error.js';

/**
 * Units of work (a sample looked at, a series at a step) between two looks at the clock: enough that the look costs
 * nothing beside the work, few enough that a slice overruns by a small part of itself however costly a unit is.
 */
const UNITS_PER_LOOK = 4096;

/** Prometheus's own words when a query goes over `--query.max-samples`: clients and people search for them. */
export const TOO_MANY_SAMPLES = 'query processing would load too many samples into memory in query execution';

/** A query went over its samples limit: an `execution` error with Prometheus's message, carrying the limit. */
export class TooManySamplesError extends PromqlError {
  constructor(readonly limit: number) {
    super('execution', TOO_MANY_SAMPLES);
  }
}

export class EvalMeter {
  private units = 0;
  private samples = 0;

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly lane: Lane | undefined,
    private readonly maxSamples: number,
  ) {}

  /**
   * Counts `units` of work done; undefined while the slice has time left (callers skip the await), otherwise a
   * promise that resolves when the evaluation's turn comes back, or rejects with the signal's reason once aborted.
   */
  pace(units: number): Promise<void> | undefined {
    this.units += units;
    if (this.units < UNITS_PER_LOOK) return undefined;
    this.units = 0;
    this.checkAborted();
    const turn = yieldIfDue(this.lane);
    return turn?.then(() => this.checkAborted());
  }

  checkAborted(): void {
    const signal = this.signal;
    if (signal?.aborted === true) throw signal.reason ?? new Error('query aborted');
  }

  /** Adds samples the evaluation holds; over the limit is Prometheus's error. */
  hold(samples: number): void {
    this.samples += samples;
    if (this.samples > this.maxSamples) throw new TooManySamplesError(this.maxSamples);
  }
}
