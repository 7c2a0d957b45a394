/**
 * The per-request context shared by GraphQL and the REST API: the sources, the request's own index loaders (never
 * shared between requests), one clock so every relative time in a request means the same "now", one abort signal
 * that fires when the client goes away or the request's time limit passes, its turn under admission control, and a
 * record of every query it ran.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { LiveQueries } from '../sharing/live-queries.js';
import type { SharedReads } from '../sharing/shared-reads.js';
import type { Config } from '../gateway/config.js';
import {
  executeQuery,
  newQueryStats,
  RequestBudget,
  type EngineContext,
  type QueryOutput,
  type QueryStats,
} from '../engine/execute.js';
import { ReadAheadBudget } from '../lib/queued-scan.js';
import { OverloadedError, QueryTimeoutError } from '../model/errors.js';
import type { Logger } from '../lib/log.js';
import { IndexLoaders } from '../sources/index-loaders.js';
import type { MetricQuery } from '../model/query.js';
import type { RollupScheduler } from '../rollups/rollup-scheduler.js';
import type { RollupUse } from '../rollups/use-rollups.js';
import type { Source } from '../sources/source.js';
import type { Sources } from '../sources/sources.js';
import { Lane } from '../lib/time-slice.js';
import type { Admission, Release } from '../http/admission.js';
import { UNRESTRICTED, type Authenticator, type Challenge, type Principal } from '../http/auth.js';
import type { Scope } from '../http/scopes.js';

/** What one query of a request cost: reported to clients (response extensions) and in the request's log line. */
export interface QueryRecord {
  /** Where the query came from: the GraphQL response path, or `metrics[i]` for REST. */
  readonly label: string;
  /** The source it read. */
  readonly source: string;
  readonly metric: string;
  readonly stats: QueryStats;
  readonly ms: number;
  readonly warnings: readonly string[];
  readonly truncated?: QueryOutput['truncated'];
  /** What `useRollups` decided: the roll-up read instead of the raw data, or why the raw data was read. */
  readonly rollup?: RollupUse;
}

export interface RequestContext {
  readonly requestId: string;
  /** Every configured source; `source(name)` picks the one a request names. */
  readonly sources: Sources;
  readonly config: Config;
  readonly loaders: IndexLoaders;
  readonly nowMs: number;
  readonly log: Logger;
  /**
   * Aborted when the client disconnects, when QUERY_TIMEOUT_MS has passed (reason: QueryTimeoutError), or when the
   * request goes over one of its budgets (reason: the BudgetExceededError).
   */
  readonly signal: AbortSignal;
  /**
   * What the request's queries and its answer spend together. Going over it aborts the request (reason: the
   * BudgetExceededError), so every query still running stops and lets its points go.
   */
  readonly budget: RequestBudget;
  /** The request's turns on the thread: its queries and its answer queue here when they yield (lib/time-slice.ts). */
  readonly lane: Lane;
  /** Every query the request ran, in the order they started. */
  readonly queries: QueryRecord[];
  /** Who the request acts as (src/http/auth.ts). */
  readonly principal: Principal;
  /** The client its quotas and turns count against (src/http/edge.ts): the principal's name, or `anonymous@<address>`. */
  readonly client: string;
  /**
   * Throws UnauthenticatedError or ForbiddenError unless the request's principal has `scope` (and may use `source`,
   * when given); `what` names the action in the message.
   */
  authorize(scope: Scope, what: string, source?: string): void;
  /** The sources the request was authorized on or queried: the `source` of its metrics and log line. */
  readonly sourcesUsed: Set<string>;
  /**
   * The source a request names in `field` (GraphQL's `source` argument), or the primary one when it names none; an
   * unknown name is an InputError naming it and the configured sources.
   */
  source(name?: string | null, field?: string): Source;
  /** Live subscriptions (liveSeries); absent where the context was made outside a gateway. */
  readonly live?: Live;
  /** The gateway's roll-up scheduler, told at once of tasks changed through this request; absent outside a gateway. */
  readonly rollups?: RollupScheduler;
  /** Runs one query through the engine, on the source it names, with the configured budgets, and records what it cost. */
  runQuery(query: MetricQuery, label: string, rollup?: RollupUse): Promise<QueryOutput>;
  /** Releases the request's timer and its turn (admission control); called when the response is done. */
  dispose(): void;
}

export interface RequestContextOptions {
  /** The client's request id (`x-request-id`), kept when it is sane; otherwise one is made. */
  readonly requestId?: string | null;
  readonly clientSignal?: AbortSignal;
  /** Admission control: the request waits for a turn at its first query and gives it back in `dispose`. */
  readonly admission?: Admission;
  /**
   * The gateway's shared reads (results cache, identical work in flight); its `sources` are the ones to pass. A
   * context without it reads alone, as tests and tools that make one directly do.
   */
  readonly shared?: SharedReads;
  /** Who the request acts as and the gateway's check of it; without them every action is allowed (tools, tests). */
  readonly principal?: Principal;
  /** The client the request's turns count against; without it, the principal's name. */
  readonly client?: string;
  readonly auth?: Authenticator;
  /** The scheme a 401 of this request offers: Basic for the REST API, Bearer for GraphQL. */
  readonly challenge?: Challenge;
  readonly live?: Live;
  readonly rollups?: RollupScheduler;
  /** The request's "now" (a roll-up run on the scheduler's clock); the wall clock otherwise. */
  readonly nowMs?: number;
}

/** The gateway's live queries, and a new context for each of their runs (its own budgets, turn and statistics). */
export interface Live {
  readonly queries: LiveQueries;
  newContext(): RequestContext;
}

export function createRequestContext(
  sources: Sources,
  config: Config,
  log: Logger,
  options: RequestContextOptions = {},
): RequestContext {
  const { clientSignal, shared, auth } = options;
  const principal = options.principal ?? UNRESTRICTED;
  const client = options.client ?? principal.name;
  const challenge = options.challenge ?? 'Bearer';
  const sourcesUsed = new Set<string>();
  const authorize = (scope: Scope, what: string, source?: string) => {
    auth?.authorize(principal, scope, what, challenge, source);
    if (source !== undefined) sourcesUsed.add(source);
  };
  const requestId = options.requestId && /^[\w.:-]{1,128}$/.test(options.requestId) ? options.requestId : randomUUID();
  const controller = new AbortController();
  // Every query of the request listens to it while it waits for shared work (a dashboard sends hundreds of aliases).
  setMaxListeners(0, controller.signal);
  const timer = setTimeout(() => controller.abort(new QueryTimeoutError(config.queryTimeoutMs)), config.queryTimeoutMs);
  timer.unref();
  const deadline = performance.now() + config.queryTimeoutMs;
  let turn: Promise<Release> | undefined;
  const onClientGone = () => controller.abort(clientSignal?.reason);
  clientSignal?.addEventListener('abort', onClientGone, { once: true });
  const loaders = new IndexLoaders(shared?.generations);
  const nowMs = options.nowMs ?? Date.now();
  const queries: QueryRecord[] = [];
  const requestLog = log.child({ requestId });
  const budget = new RequestBudget(
    {
      maxPointsRead: config.maxRequestPointsRead,
      maxPointsReturned: config.maxRequestPoints,
      maxAnswerBytes: config.maxResponseBytes,
    },
    (error) => controller.abort(error),
  );
  const lane = new Lane();
  // Points read ahead of the request's queries (src/engine/read-ahead.ts), all of them together.
  const readAheadBudget = new ReadAheadBudget(config.cassandraReadAheadPoints);
  const budgets = {
    maxSeries: config.maxQuerySeries,
    maxPointsRead: config.maxPointsRead,
    maxPointsReturned: config.maxQueryPoints,
    onExceed: 'error' as const,
  };
  return {
    requestId,
    sources,
    config,
    loaders,
    nowMs,
    log: requestLog,
    signal: controller.signal,
    budget,
    lane,
    queries,
    principal,
    client,
    authorize,
    sourcesUsed,
    ...(options.live ? { live: options.live } : {}),
    ...(options.rollups ? { rollups: options.rollups } : {}),
    source: (name, field) => sources.get(name, field),
    async runQuery(given, label, rollup) {
      const source = sources.get(given.source);
      // The one query that writes: both front ends' callers checked `read`; save_as also needs `write` on the source.
      if (given.aggregators.some((aggregator) => aggregator.name === 'save_as'))
        authorize('write', `${label}: save_as`, source.name);
      // Named, so the shared work and the results cache never mix two sources' metrics of one name.
      const query: MetricQuery = { ...given, source: source.name };
      // Every query of the request that runs waits for the same turn (a refusal is the whole request's); one that only
      // waits for an identical query under way adds no work, and needs none.
      const admit = async () => {
        if (options.admission) await (turn ??= options.admission.admit(controller.signal, deadline, client));
      };
      if (!shared) await admit();
      const stats = newQueryStats();
      const cache = shared?.cache;
      const engine: EngineContext = {
        source,
        index: loaders,
        budgets,
        request: budget,
        readAheadBudget,
        stats,
        nowMs,
        signal: controller.signal,
        lane,
        ...(cache ? { cache } : {}),
      };
      const started = performance.now();
      // The record takes its place as the query starts, so the statistics list a request's queries in a stable order
      // (the parts of a useRollups query run at once and finish in any order); a query that fails is taken out.
      const record: { -readonly [K in keyof QueryRecord]: QueryRecord[K] } = {
        label,
        source: source.name,
        metric: query.metric,
        stats,
        ms: 0,
        warnings: [],
        ...(rollup ? { rollup } : {}),
      };
      queries.push(record);
      let output: QueryOutput;
      try {
        output = shared ? await shared.queries.run(query, engine, admit) : await executeQuery(query, engine);
      } catch (error) {
        queries.splice(queries.indexOf(record), 1);
        // Stores reject aborted reads in their own way (AbortError, driver errors); the request's reason is the news.
        // A refusal by admission control is news of its own, whatever the signal says.
        throw controller.signal.aborted && !(error instanceof OverloadedError) ? controller.signal.reason : error;
      }
      record.metric = output.metric;
      record.ms = performance.now() - started;
      record.warnings = output.warnings;
      if (output.truncated) record.truncated = output.truncated;
      for (const warning of output.warnings) requestLog.warn({ query: label }, warning);
      return output;
    },
    dispose() {
      clearTimeout(timer);
      clientSignal?.removeEventListener('abort', onClientGone);
      turn?.then(
        (release) => release(),
        () => undefined,
      );
    },
  };
}
