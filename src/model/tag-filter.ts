/**
 * Compiles a tag filter into a predicate over a series' tags, validating it once so the per-series check is cheap.
 * KairosDB filters row keys in memory the same way (reference §4.2 step 4). Regular expressions run on V8's
 * linear-time engine, so no pattern can hold the thread the way `(a+)+$` holds a backtracking matcher.
 */
import { setFlagsFromString } from 'node:v8';
import { InputError } from './errors.js';
import type { Tags } from './series.js';
import { wireFields, type TagFilter } from './query.js';

/**
 * `exact`: the tags the filter pins to a few values (a condition with `in` and no `regex`; several such conditions on one
 * tag intersect). Every passing series has one of those values of each, so a tag index of any of them may stand in
 * for row_keys; the predicate still decides.
 */
export type SeriesPredicate = ((tags: Tags) => boolean) & { readonly exact?: ReadonlyMap<string, readonly string[]> };

/**
 * Errors name a condition's fields as its parser named them (`where[1].regex`, `query.metric[0].tags.host`); `field`
 * names the filter where a condition carries no names of its own (`tags[1].regex`).
 */
export function compileTagFilter(filter: TagFilter, field: string): SeriesPredicate {
  const checks = filter.map((condition, i) => {
    const names = condition.fields ?? wireFields(`${field}[${i}]`);
    if (condition.tag.length === 0) throw new InputError(names.param('tag'), condition.tag, 'must not be empty');
    for (const [name, list] of [
      ['in', condition.in],
      ['notIn', condition.notIn],
    ] as const) {
      list?.forEach((value, j) => {
        if (value.length === 0) throw new InputError(names.param(name, j), value, 'must not be empty');
      });
    }
    const regex = condition.regex === undefined ? undefined : linearRegex(condition.regex, names.param('regex'));
    const allowed = condition.in === undefined ? undefined : new Set(condition.in);
    const excluded = condition.notIn === undefined ? undefined : new Set(condition.notIn);
    const requiresValue = allowed !== undefined || regex !== undefined;
    const tag = condition.tag;
    return (tags: Tags): boolean => {
      const value = Object.hasOwn(tags, tag) ? tags[tag] : undefined;
      if (value === undefined) return !requiresValue && excluded !== undefined;
      if (excluded?.has(value)) return false;
      if (!requiresValue) return true;
      return (allowed?.has(value) ?? false) || (regex?.test(value) ?? false);
    };
  });
  const predicate = (tags: Tags): boolean => checks.every((check) => check(tags));
  return Object.assign(predicate, { exact: exactValues(filter) });
}

function exactValues(filter: TagFilter): ReadonlyMap<string, readonly string[]> {
  const exact = new Map<string, readonly string[]>();
  for (const condition of filter) {
    // With a regex too, a value outside `in` may pass.
    if (condition.in === undefined || condition.regex !== undefined) continue;
    const before = exact.get(condition.tag);
    const values = [...new Set(condition.in)];
    exact.set(condition.tag, before === undefined ? values : before.filter((value) => values.includes(value)));
  }
  return exact;
}

/**
 * Node 20's V8 keeps its linear-time regexp engine (the `l` flag: a Thompson-style automaton, time linear in the
 * value's length) behind this flag, which only makes `l` valid: every other regexp keeps the backtracking engine.
 */
setFlagsFromString('--enable-experimental-regexp-engine');
try {
  // Built at run time, after the flag is set: a literal's flags are checked when the module is parsed.
  // biome-ignore lint/complexity/useRegexLiterals: a literal would be checked before the flag above is set.
  new RegExp('a', 'l');
} catch {
  throw new Error(
    `this Node.js (${process.version}) has no linear-time regexp engine; Kairograph needs Node 20 (V8 11.3) or later`,
  );
}

/** Longer patterns are refused: matching costs pattern length × value length. */
const MAX_REGEX_LENGTH = 1000;

/** A pattern that must match the whole value, as Java's Matcher.matches() does, in time linear in the value. */
function linearRegex(pattern: string, field: string): RegExp {
  if (pattern.length > MAX_REGEX_LENGTH)
    throw new InputError(
      field,
      pattern,
      `must be at most ${MAX_REGEX_LENGTH} characters long (it is ${pattern.length})`,
    );
  // Without the `u` flag, which the linear engine lacks, `\p{L}` would quietly mean the letters "p{L}".
  if (/\\[pP]\{/.test(pattern))
    throw new InputError(field, pattern, 'uses a Unicode property class (\\p{...}), which is not supported');
  try {
    new RegExp(pattern);
  } catch (error) {
    throw new InputError(field, pattern, `is not a valid regular expression (${(error as Error).message})`);
  }
  try {
    return new RegExp(`^(?:${pattern})$`, 'l');
  } catch {
    throw new InputError(
      field,
      pattern,
      'cannot be matched in linear time: backreferences, lookahead, lookbehind and repetition counts above 16 are not supported',
    );
  }
}
