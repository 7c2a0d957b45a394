/**
 * Reading GraphQL arguments into the query model, with errors that name the argument and its value.
 */
import { InputError } from '../model/errors.js';
import type { TagMatch } from '../generated/graphql.js';
import { within, type FieldNames, type TagCondition, type TagFilter, type TimeRange } from '../model/query.js';
import { compileTagFilter, type SeriesPredicate } from '../model/tag-filter.js';
import type { Zone } from 'luxon';
import { resolveZone } from '../model/time-units.js';
import { formatTime, parseTime, TimeParseError, type ParseTimeOptions, type TimeInput } from '../model/time.js';
import { parseTimeShift, type TimeShift } from '../model/time-shift.js';
import { isEpochMs } from '../lib/epoch-ms.js';
import type { GraphQLContext } from './context.js';

/** Metadata queries look at the last 24 hours unless told otherwise (a start of 0 would scan all history). */
export const DEFAULT_METADATA_WINDOW_MS = 24 * 3600 * 1000;

export function timeArg(ctx: GraphQLContext, value: TimeInput, field: string, options: ParseTimeOptions = {}): number {
  try {
    return parseTime(value, ctx.nowMs, options);
  } catch (error) {
    if (error instanceof TimeParseError) throw new InputError(field, value, error.message);
    throw error;
  }
}

/**
 * `from`/`to` → an inclusive range; `to` defaults to now, `from` to `defaultFromMs` when that is given. Relative
 * times count on `zone`'s calendar (the query's `timeZone`, else UTC), and `to` rounds up as Grafana's does: from
 * `now/d` to `now/d` is today, midnight to 23:59:59.999.
 */
export function rangeArgs(
  ctx: GraphQLContext,
  from: TimeInput | null | undefined,
  to: TimeInput | null | undefined,
  defaultWindowMs?: number,
  zone?: Zone,
): TimeRange {
  const calendar = zone ? { zone } : {};
  const endMs = to === null || to === undefined ? ctx.nowMs : timeArg(ctx, to, 'to', { ...calendar, roundUp: true });
  let startMs: number;
  if (from !== null && from !== undefined) startMs = timeArg(ctx, from, 'from', calendar);
  else if (defaultWindowMs !== undefined) startMs = endMs - defaultWindowMs;
  else throw new InputError('from', from, 'is required');
  if (endMs < startMs)
    throw new InputError('to', to ?? formatTime(endMs), `must not be before from (${formatTime(startMs)})`);
  return { startMs, endMs };
}

/**
 * `shift` read in the query's zone, with the window it moves `range` to; undefined without one. A window moved beyond
 * the times a point can have is refused here, naming the shift.
 */
export function shiftArg(
  shift: string | null | undefined,
  range: TimeRange,
  zone: Zone | undefined,
): { readonly shift: TimeShift; readonly range: TimeRange } | undefined {
  if (shift === null || shift === undefined) return undefined;
  let parsed: TimeShift;
  try {
    parsed = parseTimeShift(shift, zone);
  } catch (error) {
    if (error instanceof TimeParseError) throw new InputError('shift', shift, error.message);
    throw error;
  }
  const moved = { startMs: parsed.forward(range.startMs), endMs: parsed.forward(range.endMs) };
  if (!isEpochMs(moved.startMs) || !isEpochMs(moved.endMs))
    throw new InputError('shift', shift, 'moves the window beyond the times a point can have');
  return { shift: parsed, range: moved };
}

/** `where` as a predicate over a series' tags, its errors naming TagMatch's fields (`where[0].eq`). */
export function wherePredicate(where: readonly TagMatch[] | null | undefined): SeriesPredicate {
  return compileTagFilter(tagFilterArg(where), 'where');
}

export function tagFilterArg(where: readonly TagMatch[] | null | undefined): TagFilter {
  return (where ?? []).map((match, i): TagCondition => {
    const include = [...(match.eq != null ? [match.eq] : []), ...(match.in ?? [])];
    const exclude = [...(match.notEq != null ? [match.notEq] : []), ...(match.notIn ?? [])];
    return {
      tag: match.tag,
      fields: tagMatchFields(match, `where[${i}]`),
      ...(match.eq != null || match.in != null ? { in: include } : {}),
      ...(match.regex != null ? { regex: match.regex } : {}),
      ...(match.notEq != null || match.notIn != null ? { notIn: exclude } : {}),
    };
  });
}

/**
 * A condition's fields as its TagMatch names them: the condition's `in` is `eq` then `in`, its `notIn` is `notEq` then
 * `notIn` (tagFilterArg), so an item of either is the GraphQL field it came from.
 */
function tagMatchFields(match: TagMatch, path: string): FieldNames {
  return {
    path,
    param(name, key) {
      if ((name !== 'in' && name !== 'notIn') || typeof key !== 'number') return `${path}.${name}${within(key)}`;
      const single = name === 'in' ? match.eq : match.notEq;
      if (single == null) return `${path}.${name}[${key}]`;
      return key === 0 ? `${path}.${name === 'in' ? 'eq' : 'notEq'}` : `${path}.${name}[${key - 1}]`;
    },
  };
}

/** The query's `timeZone` (absent: UTC), refused as the engine refuses it, before any time is read in it. */
export function zoneArg(timeZone: string | null | undefined): Zone | undefined {
  if (timeZone === null || timeZone === undefined) return undefined;
  const zone = resolveZone(timeZone);
  if (zone === undefined)
    throw new InputError(
      'timeZone',
      timeZone,
      'must be an IANA time zone such as Europe/Berlin, or an offset such as +05:30',
    );
  return zone;
}

export function positiveIntArg(value: number | null | undefined, field: string, max: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new InputError(field, value, `must be an integer from 0 to ${max}`);
  return value;
}

/** The largest page `first` may ask for: a page is answered whole, like any list. */
const MAX_PAGE_SIZE = 10_000;

export function pageSizeArg(first: number | null | undefined): number {
  const size = first ?? 1000;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE)
    throw new InputError('first', first, `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  return size;
}

/**
 * A cursor is the sort key of the last item of a page, base64url-encoded so clients treat it as opaque; the next page
 * starts after that key, so items added or removed in between neither repeat nor shift it.
 */
export function cursorArg(after: string | null | undefined): string | undefined {
  if (after === null || after === undefined) return undefined;
  const key = Buffer.from(after, 'base64url').toString('utf8');
  if (Buffer.from(key, 'utf8').toString('base64url') !== after)
    throw new InputError('after', after, "is not a cursor this field answered (pass a page's nextCursor as it came)");
  return key;
}

/**
 * The first `size` items whose key comes after `afterKey`, in the order of their keys, and whether more follow. It
 * sorts by the same comparison it pages with, whatever order a store listed them in (bytes and UTF-16 differ).
 */
export function page<T>(items: readonly T[], keyOf: (item: T) => string, afterKey: string | undefined, size: number) {
  const rest = items
    .filter((item) => afterKey === undefined || keyOf(item) > afterKey)
    .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const taken = rest.slice(0, size);
  const hasMore = rest.length > size;
  return {
    items: taken,
    hasMore,
    nextCursor: hasMore ? Buffer.from(keyOf(taken[taken.length - 1]!), 'utf8').toString('base64url') : null,
  };
}
