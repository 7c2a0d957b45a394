// What the Cassandra store keeps of its schema's history while it runs: how a failing repair backs off, which changes
// of the node's catalog mean a table was dropped or made again behind its back, which of what a schema step created
// were losses, and the record of those losses that /ready and /metrics show.
import { StoreUnavailableError } from '../../model/errors.js';
import type { Recreation, SchemaRepairStatus } from '../../model/health.js';
import { TABLE_NAMES } from './options.js';
import { describeMissing, objectName, type Catalog, type Missing } from './schema.js';

/** The keyspace or a table is gone and is being created again; every request fails with this meanwhile. */
export interface Repair {
  /** What is gone: as a request (or a look at the catalog) found it, then as the last attempt found it. */
  reason: string;
  lastFailure: string | undefined;
  /** The cause last logged (catalog, node, failure): a failure that recurs unchanged is logged once. */
  loggedCause: string | undefined;
  failuresInRow: number;
  /** The wait before the next attempt, and when it ends (epoch ms); undefined while an attempt runs. */
  retryDelayMs: number | undefined;
  nextAttemptMs: number | undefined;
}

/** What a schema step saw, in words, kept as it goes so that a step that fails part-way still says it. */
export interface StepView {
  catalog?: string;
  node?: string;
  missing?: string | undefined;
}

/** A failing repair waits the reconnect delay, doubled after each failure in a row, up to this many times it. */
const MAX_REPAIR_DELAY_FACTOR = 8;

/** The wait after the `failures`-th failure in a row (1, 2, ...) of a repair: bounded, so a fixed node is found soon. */
export function repairDelayMs(baseMs: number, failures: number): number {
  return baseMs * Math.min(2 ** Math.max(0, failures - 1), MAX_REPAIR_DELAY_FACTOR);
}

/** A keyspace or table that was lost: created again by this store (`gateway`) or found made again by another client. */
export interface Loss {
  readonly object: string;
  readonly kind: 'keyspace' | 'table';
  readonly by: 'gateway' | 'other';
  readonly why: string;
}

/**
 * Which of what a schema step created, or found changed, were losses. `known` is the catalog as the last complete
 * step left it (undefined before the first): then a part absent from the catalog was never there (a new keyspace, a
 * table a newer KairosDB added) and its creation loses nothing, while a part the catalog lists but the node does not
 * serve held data the node no longer has. After a complete step every absence is a loss, and a table whose id changed
 * was dropped and made again by another client (KairosDB, an operator).
 */
export function findLosses(
  keyspace: string,
  known: Catalog | undefined,
  before: Catalog,
  created: readonly Missing[],
): Loss[] {
  const losses: Loss[] = [];
  for (const missing of created) {
    if (known === undefined && !missing.listed) continue;
    const what = missing.table === undefined ? 'the keyspace' : 'the table';
    const why = missing.listed
      ? `the catalog listed ${what}, the node answered: ${missing.answer}`
      : `${what} was gone from the catalog`;
    losses.push({
      object: objectName(keyspace, missing),
      kind: missing.table === undefined ? 'keyspace' : 'table',
      by: 'gateway',
      why,
    });
  }
  if (known === undefined) return losses;
  for (const table of TABLE_NAMES) {
    const was = known.tables.get(table);
    const now = before.tables.get(table);
    if (was === undefined || now === undefined || was === now || created.some((m) => m.table === table)) continue;
    losses.push({
      object: `${keyspace}.${table}`,
      kind: 'table',
      by: 'other',
      why: `its table id changed from ${was} to ${now}`,
    });
  }
  return losses;
}

/** The log line of a step's losses, one per who made them again, or none. */
export function lossMessages(
  keyspace: string,
  losses: readonly Loss[],
): { by: Loss['by']; objects: string[]; message: string }[] {
  const lines: { by: Loss['by']; objects: string[]; message: string }[] = [];
  const ours = losses.filter((loss) => loss.by === 'gateway');
  if (ours.length > 0) {
    const keyspaceToo = ours.some((loss) => loss.kind === 'keyspace');
    const tables = ours.filter((loss) => loss.kind === 'table').length;
    const what = keyspaceToo ? `${keyspace} and its ${tables} tables` : ours.map((loss) => loss.object).join(', ');
    lines.push({
      by: 'gateway',
      objects: ours.map((loss) => loss.object),
      message: `re-created ${what}: data written before it was lost may be missing`,
    });
  }
  const others = losses.filter((loss) => loss.by === 'other');
  if (others.length > 0) {
    const what = others.map((loss) => loss.object).join(', ');
    lines.push({
      by: 'other',
      objects: others.map((loss) => loss.object),
      message: `${what} re-created by another client: data written before it was lost may be missing`,
    });
  }
  return lines;
}

/**
 * What a background look at the catalog finds changed since the last complete schema step, in words (as a request's
 * failure names it), or undefined when nothing did: a keyspace or table gone, or a table made again under a new id.
 */
export function catalogChange(keyspace: string, known: Catalog, now: Catalog): string | undefined {
  if (!now.keyspace) return `keyspace ${keyspace} does not exist`;
  const absent: Missing[] = TABLE_NAMES.filter((table) => known.tables.has(table) && !now.tables.has(table)).map(
    (table) => ({ table, listed: false }),
  );
  if (absent.length > 0) return describeMissing(keyspace, absent);
  const changed = TABLE_NAMES.filter(
    (table) => known.tables.has(table) && now.tables.get(table) !== known.tables.get(table),
  );
  if (changed.length === 0) return undefined;
  const names = changed.map((table) => `${keyspace}.${table}`);
  return names.length === 1
    ? `table ${names[0]} was dropped and created again (its id changed)`
    : `tables ${names.join(', ')} were dropped and created again (their ids changed)`;
}

/** The store's record of repairs and losses since it was made, for /ready and /metrics. */
export class SchemaLedger {
  attempts = 0;
  failures = 0;
  private recreatedKeyspaces = 0;
  private recreatedTables = 0;
  private lastRecreationMs: number | undefined;
  /** The latest loss of each object, oldest first: bounded by the keyspace and its tables. */
  private readonly latest = new Map<string, Recreation>();

  record(losses: readonly Loss[], nowMs: number): void {
    if (losses.length === 0) return;
    const at = new Date(nowMs).toISOString();
    for (const loss of losses) {
      if (loss.kind === 'keyspace') this.recreatedKeyspaces++;
      else this.recreatedTables++;
      this.latest.delete(loss.object);
      this.latest.set(loss.object, { object: loss.object, at, by: loss.by, why: loss.why });
    }
    this.lastRecreationMs = nowMs;
  }

  get recreated(): Recreation[] {
    return [...this.latest.values()];
  }

  status(repairing: boolean, retryDelayMs: number | undefined): SchemaRepairStatus {
    return {
      repairing,
      attempts: this.attempts,
      failures: this.failures,
      retryDelayMs,
      recreatedKeyspaces: this.recreatedKeyspaces,
      recreatedTables: this.recreatedTables,
      lastRecreationMs: this.lastRecreationMs,
      recreated: this.recreated,
    };
  }
}

/** A failure's own words: a StoreUnavailableError's message would repeat "the cassandra store is unavailable". */
export function failureMessage(error: unknown): string {
  const inner = error instanceof StoreUnavailableError && error.cause instanceof Error ? error.cause : error;
  return inner instanceof Error ? inner.message : String(inner);
}
