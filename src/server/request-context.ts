/**
 * The per-request context shared by GraphQL and the REST API: the store, the request's own index loaders (never
 * shared between requests), one clock so every relative time in a request means the same "now", the request's
 * statistics, and one abort signal that fires when the client goes away or the request's time limit passes.
 */
import type { Config } from '../config.js';
import { newQueryStats, type EngineContext, type QueryStats } from '../engine/execute.js';
import { QueryTimeoutError } from '../errors.js';
import type { Logger } from '../log.js';
import { IndexLoaders } from '../query/index-loaders.js';
import type { Store } from '../store/store.js';

export interface RequestContext {
  readonly store: Store;
  readonly config: Config;
  readonly loaders: IndexLoaders;
  readonly nowMs: number;
  readonly log: Logger;
  /** Aborted when the client disconnects or when QUERY_TIMEOUT_MS has passed (reason: QueryTimeoutError). */
  readonly signal: AbortSignal;
  /** Filled by every query of the request. */
  readonly stats: QueryStats;
  /** What the engine needs to run one query of this request, with the configured budgets. */
  engine(): EngineContext;
  /** Releases the request's timer; called when the response is done. */
  dispose(): void;
}

export function createRequestContext(store: Store, config: Config, log: Logger, clientSignal?: AbortSignal): RequestContext {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new QueryTimeoutError(config.queryTimeoutMs)), config.queryTimeoutMs);
  timer.unref();
  const onClientGone = () => controller.abort(clientSignal?.reason);
  clientSignal?.addEventListener('abort', onClientGone, { once: true });
  const loaders = new IndexLoaders(store);
  const stats = newQueryStats();
  const nowMs = Date.now();
  const budgets = {
    maxSeries: config.maxQuerySeries,
    maxPointsRead: config.maxPointsRead,
    maxPointsReturned: config.maxQueryPoints,
    onExceed: 'error' as const,
  };
  return {
    store,
    config,
    loaders,
    nowMs,
    log,
    signal: controller.signal,
    stats,
    engine: () => ({ store, index: loaders, budgets, stats, nowMs, signal: controller.signal }),
    dispose() {
      clearTimeout(timer);
      clientSignal?.removeEventListener('abort', onClientGone);
    },
  };
}
