/**
 * Reading GraphQL arguments into the query model, with errors that name the argument and its value.
 */
import { InputError } from '../errors.js';
import type { TagMatch } from '../generated/graphql.js';
import type { TagCondition, TagFilter, TimeRange } from '../query/model.js';
import { compileTagFilter, type SeriesPredicate } from '../query/tag-filter.js';
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

/** `where` as a predicate over a series' tags, its errors naming TagMatch's fields (`where[0].eq`). */
export function wherePredicate(where: readonly TagMatch[] | null | undefined): SeriesPredicate {
  try {
    return compileTagFilter(tagFilterArg(where), 'where');
  } catch (error) {
    throw error instanceof InputError ? inWhereTerms(error, where) : error;
  }
}

/**
 * A tag-filter error about `where[i].in[j]` or `notIn[j]` of the query model, about the TagMatch field the value
 * came from: `tagFilterArg` puts `eq` first in `in`, and `notEq` first in `notIn`.
 */
export function inWhereTerms(error: InputError, where: readonly TagMatch[] | null | undefined): InputError {
  const item = /^where\[(\d+)\]\.(in|notIn)\[(\d+)\]$/.exec(error.field);
  const match = item ? where?.[Number(item[1])] : undefined;
  if (item === null || match === undefined) return error;
  const [, i, list, index] = item as unknown as [string, string, 'in' | 'notIn', string];
  const single = list === 'in' ? match.eq : match.notEq;
  const j = Number(index) - (single != null ? 1 : 0);
  const field = j < 0 ? `where[${i}].${list === 'in' ? 'eq' : 'notEq'}` : `where[${i}].${list}[${j}]`;
  return field === error.field ? error : new InputError(field, error.value, error.reason);
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
