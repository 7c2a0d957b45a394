// The one text form of a claim in service_index (store.ts, ServiceIndex.claim), shared by both stores so a claim's
// value compares equal byte for byte: Cassandra's compare-and-set (`IF value = ?`) compares the stored text.
import type { Claim } from '../model/service-index.js';

interface ClaimValue {
  readonly owner: string;
  /** Held until; the completion time once done. */
  readonly until: number;
  readonly done: boolean;
}

export function claimText(owner: string, untilMs: number, done: boolean): string {
  return JSON.stringify({ owner, until: untilMs, done } satisfies ClaimValue);
}

/** A stored claim; text that is not one (never written by `claim`) reads as completed by nobody, so it is never taken. */
export function readClaim(text: string | null | undefined): Claim {
  try {
    const value = JSON.parse(text ?? '') as Partial<ClaimValue>;
    if (typeof value.owner === 'string' && typeof value.until === 'number' && typeof value.done === 'boolean') {
      return { granted: false, completed: value.done, owner: value.owner, untilMs: value.until };
    }
  } catch {
    // Falls through: not a claim.
  }
  return { granted: false, completed: true, owner: '', untilMs: 0 };
}

/** Whether `owner` may take a claim found stored as `found` at `nowMs`. */
export function mayTake(found: Claim, owner: string, nowMs: number): boolean {
  return !found.completed && (found.owner === owner || found.untilMs < nowMs);
}
