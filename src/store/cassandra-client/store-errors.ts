/**
 * Driver failures as the house's errors: "Cassandra cannot answer now" as StoreUnavailableError with a message a
 * client can read, and the failures that mean a watched keyspace or table is gone.
 */
import cassandra from 'cassandra-driver';
import { StoreUnavailableError } from '../../model/errors.js';

/**
 * Driver failures that mean "Cassandra cannot answer now" (nobody reachable, a timeout, replicas missing or
 * overloaded) become StoreUnavailableError; anything else (a bad statement) is a bug and passes as it is.
 */
export function storeError(error: unknown, retryAfter = 1): unknown {
  if (error instanceof StoreUnavailableError || !(error instanceof Error)) return error;
  const { errors } = cassandra;
  const unavailable =
    error instanceof errors.NoHostAvailableError ||
    error instanceof errors.OperationTimedOutError ||
    error instanceof errors.BusyConnectionError ||
    (error instanceof errors.ResponseError && UNAVAILABLE_CODES.has(error.code)) ||
    // The driver's own refusal once the client is shut down (a request racing close()).
    (error instanceof errors.DriverError && /shutdown|shut down/i.test(error.message));
  return unavailable ? unavailableError(error, retryAfter) : error;
}

/** A wait in ms as a Retry-After: whole seconds, at least 1. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

/**
 * A StoreUnavailableError whose message a client can read: NoHostAvailableError's own message embeds each host's
 * error with its stack trace, so it is rebuilt from the hosts' messages (the driver error stays as the cause). Hosts
 * that did answer, with Cassandra's refusal (too few replicas alive for the consistency level: the driver tries the
 * next host once, then gives up), are not "hosts that did not answer": the refusal leads, naming the consistency.
 */
export function unavailableError(error: unknown, retryAfter = 1): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  if (!(error instanceof cassandra.errors.NoHostAvailableError))
    return new StoreUnavailableError('cassandra', error, retryAfter);
  const inner = Object.entries((error.innerErrors ?? {}) as Record<string, unknown>);
  const refusals = new Set(inner.map(([, e]) => (e instanceof cassandra.errors.ResponseError ? e.message : undefined)));
  if (inner.length > 0 && refusals.size === 1 && !refusals.has(undefined)) {
    const [refusal] = refusals;
    return new StoreUnavailableError(
      'cassandra',
      new Error(`${refusal} (said ${inner.map(([host]) => host).join(', ')})`, { cause: error }),
      retryAfter,
    );
  }
  const hosts = inner.map(([host, e]) => `${host}: ${e instanceof Error ? e.message : String(e)}`);
  const message = hosts.length > 0 ? `no Cassandra host answered (${hosts.join('; ')})` : 'no Cassandra host answered';
  return new StoreUnavailableError('cassandra', new Error(message, { cause: error }), retryAfter);
}

/**
 * Why a driver failure means the keyspace or one of `tables` (those of the schema a client watches) is gone, or undefined when it does not.
 * Cassandra refuses to prepare a statement on a missing keyspace or table (`invalid`: "keyspace kairosdb does not
 * exist", "table row_keys does not exist", before 4.1 "unconfigured table row_keys"). A statement prepared before
 * the drop fails differently: the node has forgotten it, the driver's attempt to prepare it again fails, and the
 * driver gives up with NoHostAvailableError holding the node's `unprepared` error, which no longer says why.
 */
export function schemaLoss(
  error: unknown,
  keyspace: string,
  statement: string | undefined,
  tables: readonly string[],
): string | undefined {
  const { errors } = cassandra;
  if (error instanceof errors.NoHostAvailableError) {
    for (const inner of Object.values((error.innerErrors ?? {}) as Record<string, unknown>)) {
      const lost = schemaLoss(inner, keyspace, statement, tables);
      if (lost !== undefined) return lost;
    }
    return undefined;
  }
  if (!(error instanceof errors.ResponseError)) return undefined;
  const codes = cassandra.types.responseErrorCodes;
  if (error.code === codes.invalid) {
    const missingKeyspace = /^keyspace '?(\w+)'? does not exist$/i.exec(error.message)?.[1];
    if (missingKeyspace === keyspace) return `keyspace ${keyspace} does not exist`;
    const missingTable = /^(?:table '?(?:\w+\.)?(\w+)'? does not exist|unconfigured table (\w+))$/i.exec(error.message);
    const table = missingTable?.[1] ?? missingTable?.[2];
    return table !== undefined && tables.includes(table) ? `table ${keyspace}.${table} does not exist` : undefined;
  }
  if (error.code === codes.unprepared) {
    const table = statement?.slice(0, statement.indexOf('.'));
    return table !== undefined && tables.includes(table)
      ? `table ${keyspace}.${table} or its keyspace may be gone (statement ${statement} could not be prepared again)`
      : `keyspace ${keyspace} or one of its tables may be gone (a statement could not be prepared again)`;
  }
  return undefined;
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
