/**
 * The request scope every front end works in, opened in one place (RequestScopes, built once by the gateway): the
 * sources, the request's own index loaders (never shared between requests), one clock so every relative time in a
 * request means the same "now", one abort signal that fires when the client goes away or the request's time limit
 * passes, its budgets, its turn, who it acts as, and a record of every query it ran.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import {
  executeQuery,
  newQueryStats,
  RequestBudget,
  type EngineContext,
  type QueryOutput,
  type QueryStats,
} from '../engine/execute.js';
import type { Logger } from '../lib/log.js';
import { Lane } from '../lib/time-slice.js';
import { OverloadedError, QueryTimeoutError, type Challenge } from '../model/errors.js';
import { UNRESTRICTED, type Principal, type Scope } from '../model/principal.js';
import type { MetricQuery } from '../model/query.js';
import type { SharedReads } from '../sharing/shared-reads.js';
import { ReadAheadBudget } from '../lib/queued-scan.js';
import type { Source } from '../sources/source.js';
import type { Sources } from '../sources/sources.js';
import { IndexLoaders } from '../sources/index-loaders.js';
import { NO_SPAN, type TraceHolder, type TraceSpan } from '../lib/trace.js';
import { endQuerySpan, startQuerySpan, type QueryRecord, type QueryRewrite } from './query-record.js';

/**
 * What a request scope needs of the configuration: its time limit, its budgets and its queries' budgets, and how its
 * PromQL reads (both front ends evaluate PromQL, so they take it from the one scope).
 */
export interface ScopeSettings {
  /** QUERY_TIMEOUT_MS */
  readonly queryTimeoutMs: number;
  /** MAX_QUERY_SERIES, MAX_POINTS_READ, MAX_QUERY_POINTS: each query's. */
  readonly maxQuerySeries: number;
  readonly maxPointsRead: number;
  readonly maxQueryPoints: number;
  /** MAX_REQUEST_POINTS_READ, MAX_REQUEST_POINTS, MAX_RESPONSE_BYTES: the whole request's. */
  readonly maxRequestPointsRead: number;
  readonly maxRequestPoints: number;
  readonly maxResponseBytes: number;
  /** CASSANDRA_READ_AHEAD_POINTS: points the request's queries may hold read ahead, all together. */
  readonly readAheadPoints: number;
  /** MAX_WRITE_POINTS: the most points one write batch may carry (the front ends' parsers count them). */
  readonly maxWritePoints: number;
  /** PROMQL_LOOKBACK_MS and PROMQL_MAX_SAMPLES (src/app/promql-query.ts). */
  readonly promqlLookbackMs: number;
  readonly promqlMaxSamples: number;
}

/** Gives a turn back; calling it again does nothing. */
type Release = () => void;

/**
 * A turn to run queries (admission control, src/http/admission.ts): resolves once the request may run, rejects with
 * the refusal; `deadlineMs` is the request's time limit on performance.now()'s clock.
 */
type TakeTurn = (signal: AbortSignal, deadlineMs: number, client: string) => Promise<Release>;

/** Throws UnauthenticatedError or ForbiddenError unless `principal` has `scope` (and may use `source`). */
type Authorize = (principal: Principal, scope: Scope, what: string, challenge: Challenge, source?: string) => void;

export interface RequestScope {
  readonly requestId: string;
  /** Every configured source; `source(name)` picks the one a request names. */
  readonly sources: Sources;
  readonly settings: ScopeSettings;
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
  /**
   * The span the request's work is a child of now (NO_SPAN without tracing): the request's, set by the edge's
   * observer, or the GraphQL operation running. Its queries, their stages and the loaders' index reads are spans under it.
   */
  readonly trace: TraceHolder;
  /** Who the request acts as. */
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
  /** Runs one query through the engine, on the source it names, with the configured budgets, and records what it cost. */
  runQuery(query: MetricQuery, label: string, rewrite?: QueryRewrite): Promise<QueryOutput>;
  /**
   * Opens a read of `metric`'s series on `source` that no KairosDB pipeline follows (PromQL's selectors): it waits for
   * the request's turn as runQuery does, gets the engine context runQuery's queries get (the request's loaders,
   * budgets, lane, signal and reads ahead), and is recorded as one of the request's queries under `label`.
   */
  openRead(source: Source, label: string, metric: string): Promise<OpenRead>;
  /**
   * Shortens the request's time limit to `ms` from now, as a client may ask (Prometheus's `timeout`); a limit later
   * than the one it has changes nothing.
   */
  limitTime(ms: number): void;
  /**
   * Waits for the request's turn (admission control, as its first query would) before work that runs no query: an
   * ingest write, whose body is left unread in the socket until then, so a sender faster than the store is held back
   * (or refused OVERLOADED with Retry-After) instead of piling bodies up in memory.
   */
  waitTurn(): Promise<void>;
  /** Releases the request's timer and its turn; called when the response is done. */
  dispose(): void;
}

/** A read opened by RequestScope.openRead: read through `engine`, then `close` it, or `fail` it with what went wrong. */
interface OpenRead {
  readonly engine: EngineContext;
  /** Records the read's time and warnings. */
  close(warnings: readonly string[]): void;
  /** Takes the read out of the statistics and returns the error to throw: the request's reason when it was aborted. */
  fail(error: unknown): unknown;
}

export interface ScopeDeps {
  /** The sources requests use: the shared reads' when there are shared reads. */
  readonly sources: Sources;
  readonly settings: ScopeSettings;
  readonly log: Logger;
  /** The results cache and identical work in flight; without them each request reads alone (tools, tests). */
  readonly shared?: SharedReads;
  /** Admission control: a request waits for a turn at its first query and gives it back when it is disposed. */
  readonly takeTurn?: TakeTurn;
  /** The gateway's check of scopes; without it every action is allowed (tools, tests). */
  readonly authorize?: Authorize;
}

export interface ScopeOptions {
  /** The client's request id (`x-request-id`), kept when it is sane; otherwise one is made. */
  readonly requestId?: string | null;
  readonly clientSignal?: AbortSignal;
  /** Who the request acts as; UNRESTRICTED (tools, internal runs) when absent. */
  readonly principal?: Principal;
  /** The client the request's turns count against; the principal's name when absent. */
  readonly client?: string;
  /** The scheme a 401 of this request offers: Basic for the REST API, Bearer for GraphQL. */
  readonly challenge?: Challenge;
  /** The request's "now" (a roll-up run on the scheduler's clock); the wall clock otherwise. */
  readonly nowMs?: number;
}

/** Opens request scopes: the one place a request's budgets, turn, loaders and checks are put together. */
export class RequestScopes {
  constructor(readonly deps: ScopeDeps) {}

  open(options: ScopeOptions = {}): RequestScope {
    return openScope(this.deps, options);
  }
}

function openScope(
  { sources, settings, log, shared, takeTurn, authorize: check }: ScopeDeps,
  options: ScopeOptions,
): RequestScope {
  const { clientSignal } = options;
  const principal = options.principal ?? UNRESTRICTED;
  const client = options.client ?? principal.name;
  const challenge = options.challenge ?? 'Bearer';
  const sourcesUsed = new Set<string>();
  const authorize = (scope: Scope, what: string, source?: string) => {
    check?.(principal, scope, what, challenge, source);
    if (source !== undefined) sourcesUsed.add(source);
  };
  const requestId = options.requestId && /^[\w.:-]{1,128}$/.test(options.requestId) ? options.requestId : randomUUID();
  const controller = new AbortController();
  // Every query of the request listens to it while it waits for shared work (a dashboard sends hundreds of aliases).
  setMaxListeners(0, controller.signal);
  const { queryTimeoutMs } = settings;
  let timer = setTimeout(() => controller.abort(new QueryTimeoutError(queryTimeoutMs)), queryTimeoutMs);
  timer.unref();
  let deadline = performance.now() + queryTimeoutMs;
  let turn: Promise<Release> | undefined;
  const onClientGone = () => controller.abort(clientSignal?.reason);
  clientSignal?.addEventListener('abort', onClientGone, { once: true });
  const trace: TraceHolder = { span: NO_SPAN };
  const loaders = new IndexLoaders(shared?.generations, trace);
  const nowMs = options.nowMs ?? Date.now();
  const queries: QueryRecord[] = [];
  const requestLog = log.child({ requestId });
  const budget = new RequestBudget(
    {
      maxPointsRead: settings.maxRequestPointsRead,
      maxPointsReturned: settings.maxRequestPoints,
      maxAnswerBytes: settings.maxResponseBytes,
    },
    (error) => controller.abort(error),
  );
  const lane = new Lane();
  // Points read ahead of the request's queries (src/engine/read-ahead.ts), all of them together.
  const readAheadBudget = new ReadAheadBudget(settings.readAheadPoints);
  const budgets = {
    maxSeries: settings.maxQuerySeries,
    maxPointsRead: settings.maxPointsRead,
    maxPointsReturned: settings.maxQueryPoints,
    onExceed: 'error' as const,
  };
  // Every query of the request that runs waits for the same turn (a refusal is the whole request's); one that only
  // waits for an identical query under way adds no work, and needs none.
  const admit = async () => {
    if (takeTurn) await (turn ??= takeTurn(controller.signal, deadline, client));
  };
  const engineContext = (source: Source, stats: QueryStats, cached: boolean, span: TraceSpan): EngineContext => ({
    source,
    trace: span,
    index: loaders,
    budgets,
    request: budget,
    readAheadBudget,
    stats,
    nowMs,
    signal: controller.signal,
    lane,
    ...(cached && shared?.cache ? { cache: shared.cache } : {}),
  });
  /** A query that failed is taken out of the statistics. */
  const failed = (record: QueryRecord, error: unknown): unknown => {
    queries.splice(queries.indexOf(record), 1);
    // Stores reject aborted reads in their own way (AbortError, driver errors); the request's reason is the news.
    // A refusal by admission control is news of its own, whatever the signal says.
    return controller.signal.aborted && !(error instanceof OverloadedError) ? controller.signal.reason : error;
  };
  return {
    requestId,
    sources,
    settings,
    loaders,
    nowMs,
    log: requestLog,
    signal: controller.signal,
    budget,
    lane,
    queries,
    trace,
    principal,
    client,
    authorize,
    sourcesUsed,
    source: (name, field) => sources.get(name, field),
    async runQuery(given, label, rewrite) {
      const source = sources.get(given.source);
      // The one query that writes: both front ends' callers checked `read`; save_as also needs `write` on the source.
      if (given.aggregators.some((aggregator) => aggregator.name === 'save_as'))
        authorize('write', `${label}: save_as`, source.name);
      // Named, so the shared work and the results cache never mix two sources' metrics of one name.
      const query: MetricQuery = { ...given, source: source.name };
      if (!shared) await admit();
      const stats = newQueryStats();
      const span = startQuerySpan(trace.span, label, source.name, query.metric);
      const engine = engineContext(source, stats, true, span);
      const started = performance.now();
      // The record takes its place as the query starts, so the statistics list a request's queries in a stable order
      // (the parts of a rewritten query run at once and finish in any order); a query that fails is taken out.
      const record: { -readonly [K in keyof QueryRecord]: QueryRecord[K] } = {
        label,
        source: source.name,
        metric: query.metric,
        stats,
        ms: 0,
        warnings: [],
        ...(rewrite ? { rewrite } : {}),
      };
      queries.push(record);
      let output: QueryOutput;
      try {
        output = shared ? await shared.queries.run(query, engine, admit) : await executeQuery(query, engine);
      } catch (error) {
        endQuerySpan(span, stats, error);
        throw failed(record, error);
      }
      endQuerySpan(span, stats);
      record.metric = output.metric;
      record.ms = performance.now() - started;
      record.warnings = output.warnings;
      if (output.truncated) record.truncated = output.truncated;
      for (const warning of output.warnings) requestLog.warn({ query: label }, warning);
      return output;
    },
    async openRead(source, label, metric) {
      await admit();
      const stats = newQueryStats();
      const started = performance.now();
      const record: { -readonly [K in keyof QueryRecord]: QueryRecord[K] } = {
        label,
        source: source.name,
        metric,
        stats,
        ms: 0,
        warnings: [],
      };
      queries.push(record);
      const span = startQuerySpan(trace.span, label, source.name, metric);
      return {
        // No results cache: it keeps ranges of KairosDB's range aggregators, and raw points have none.
        engine: engineContext(source, stats, false, span),
        close(warnings) {
          endQuerySpan(span, stats);
          record.ms = performance.now() - started;
          // Reading and the caller's evaluation interleave, series by series: what was not planning was both.
          stats.fetchAggregateMs += Math.max(0, record.ms - stats.planMs);
          record.warnings = warnings;
          for (const warning of warnings) requestLog.warn({ query: label }, warning);
        },
        fail(error) {
          endQuerySpan(span, stats, error);
          return failed(record, error);
        },
      };
    },
    waitTurn: admit,
    limitTime(ms) {
      const now = performance.now();
      if (controller.signal.aborted || now + ms >= deadline) return;
      clearTimeout(timer);
      deadline = now + ms;
      timer = setTimeout(() => controller.abort(new QueryTimeoutError(ms)), ms);
      timer.unref();
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

/** What a gateway's Config gives a request scope. */
export function scopeSettings(config: {
  readonly queryTimeoutMs: number;
  readonly maxQuerySeries: number;
  readonly maxPointsRead: number;
  readonly maxQueryPoints: number;
  readonly maxRequestPointsRead: number;
  readonly maxRequestPoints: number;
  readonly maxResponseBytes: number;
  readonly cassandraReadAheadPoints: number;
  readonly maxWritePoints: number;
  readonly promqlLookbackMs: number;
  readonly promqlMaxSamples: number;
}): ScopeSettings {
  return {
    queryTimeoutMs: config.queryTimeoutMs,
    maxQuerySeries: config.maxQuerySeries,
    maxPointsRead: config.maxPointsRead,
    maxQueryPoints: config.maxQueryPoints,
    maxRequestPointsRead: config.maxRequestPointsRead,
    maxRequestPoints: config.maxRequestPoints,
    maxResponseBytes: config.maxResponseBytes,
    readAheadPoints: config.cassandraReadAheadPoints,
    maxWritePoints: config.maxWritePoints,
    promqlLookbackMs: config.promqlLookbackMs,
    promqlMaxSamples: config.promqlMaxSamples,
  };
}
