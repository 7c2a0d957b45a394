/**
 * KairosDB's keyspace as the store's executors watch it: its tables, whose loss a failing request reveals, and what
 * every request is told while the store re-creates them (or waits for them).
 */
import { StoreUnavailableError } from '../../model/errors.js';
import type { WatchedSchema } from '../cassandra-client/executor.js';
import { TABLE_NAMES } from './options.js';

/** KairosDB's tables, which the store re-creates when they are gone (unless it may not create them: `creating` false). */
export function kairosdbSchema(creating = true): WatchedSchema {
  return {
    tables: TABLE_NAMES,
    lostError: (reason, lastFailure, cause) => schemaLostError(reason, { lastFailure, cause, creating }),
  };
}

export interface SchemaLostDetails {
  /** Why the last repair attempt failed, if one did. */
  readonly lastFailure?: string | undefined;
  readonly cause?: unknown;
  /** Seconds until the store tries again (default 1). */
  readonly retryAfterSeconds?: number;
  /** False where the store may not create KairosDB's schema (CASSANDRA_CREATE_SCHEMA=false) and waits for it. */
  readonly creating?: boolean;
}

/** What every request gets while the store repairs KairosDB's schema: what is gone, and why the last attempt failed. */
export function schemaLostError(reason: string, details: SchemaLostDetails = {}): StoreUnavailableError {
  const failed = details.lastFailure === undefined ? '' : ` (last attempt failed: ${details.lastFailure})`;
  const doing =
    details.creating === false
      ? "waiting for KairosDB's tables to be created (CASSANDRA_CREATE_SCHEMA is false)"
      : "re-creating KairosDB's tables";
  return new StoreUnavailableError(
    'cassandra',
    new Error(`${reason}; ${doing}${failed}`, { cause: details.cause }),
    details.retryAfterSeconds ?? 1,
  );
}
