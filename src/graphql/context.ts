/**
 * What GraphQL's resolvers work with: the request scope (src/app/request-scope.ts) and the gateway's services that
 * only GraphQL's fields reach: live subscriptions and roll-up tasks.
 */
import type { RequestScope } from '../app/request-scope.js';
import type { RollupService } from '../rollups/rollup-service.js';
import type { LiveQueries } from '../sharing/live-queries.js';

/** The gateway's live queries, and a new context for each of their runs (its own budgets, turn and statistics). */
export interface Live {
  readonly queries: LiveQueries;
  open(): GraphQLContext;
}

export interface GraphQLContext extends RequestScope {
  /** Live subscriptions (liveSeries). */
  readonly live: Live;
  /** The gateway's one roll-up service (the `rollups` field and its mutations, `useRollups`). */
  readonly rollups: RollupService;
}
