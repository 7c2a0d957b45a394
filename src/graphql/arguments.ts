/**
 * Reading GraphQL arguments into the query model, with errors that name the argument and its value.
 */
import { InputError } from '../errors.js';
import type { TagMatch } from '../generated/graphql.js';
import type { TagCondition, TagFilter, TimeRange } from '../query/model.js';
import { formatTime, parseTime, TimeParseError, type TimeInput } from '../query/time.js';
import type { RequestContext } from '../server/request-context.js';

/** Metadata queries look at the last 24 hours unless told otherwise (a start of 0 would scan all history). */
export const DEFAULT_METADATA_WINDOW_MS = 24 * 3600 * 1000;

export function timeArg(ctx: RequestContext, value: TimeInput, field: string): number {
  try {
    return parseTime(value, ctx.nowMs);
  } catch (error) {
    if (error instanceof TimeParseError) throw new InputError(field, value, error.message);
    throw error;
  }
}

/** `from`/`to` → an inclusive range; `to` defaults to now, `from` to `defaultFromMs` when that is given. */
export function rangeArgs(
  ctx: RequestContext,
  from: TimeInput | null | undefined,
  to: TimeInput | null | undefined,
  defaultWindowMs?: number,
): TimeRange {
  const endMs = to === null || to === undefined ? ctx.nowMs : timeArg(ctx, to, 'to');
  let startMs: number;
  if (from !== null && from !== undefined) startMs = timeArg(ctx, from, 'from');
  else if (defaultWindowMs !== undefined) startMs = endMs - defaultWindowMs;
  else throw new InputError('from', from, 'is required');
  if (endMs < startMs) throw new InputError('to', to ?? formatTime(endMs), `must not be before from (${formatTime(startMs)})`);
  return { startMs, endMs };
}

export function tagFilterArg(where: readonly TagMatch[] | null | undefined): TagFilter {
  return (where ?? []).map((match): TagCondition => {
    const include = [...(match.eq != null ? [match.eq] : []), ...(match.in ?? [])];
    const exclude = [...(match.notEq != null ? [match.notEq] : []), ...(match.notIn ?? [])];
    return {
      tag: match.tag,
      ...(match.eq != null || match.in != null ? { in: include } : {}),
      ...(match.regex != null ? { regex: match.regex } : {}),
      ...(match.notEq != null || match.notIn != null ? { notIn: exclude } : {}),
    };
  });
}

export function positiveIntArg(value: number | null | undefined, field: string, max: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > max) throw new InputError(field, value, `must be an integer from 0 to ${max}`);
  return value;
}
