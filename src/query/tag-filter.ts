/**
 * Compiles a tag filter into a predicate over a series' tags, validating it once so the per-series check is cheap.
 * KairosDB filters row keys in memory the same way (reference §4.2 step 4).
 */
import { InputError } from '../errors.js';
import type { Tags } from '../store/store.js';
import type { TagFilter } from './model.js';

export type SeriesPredicate = (tags: Tags) => boolean;

/** `field` names the filter in the caller's vocabulary, for errors such as `where[1].regex`. */
export function compileTagFilter(filter: TagFilter, field: string): SeriesPredicate {
  const checks = filter.map((condition, i) => {
    const path = `${field}[${i}]`;
    if (condition.tag.length === 0) throw new InputError(`${path}.tag`, condition.tag, 'must not be empty');
    for (const [name, list] of [['in', condition.in], ['notIn', condition.notIn]] as const) {
      list?.forEach((value, j) => {
        if (value.length === 0) throw new InputError(`${path}.${name}[${j}]`, value, 'must not be empty');
      });
    }
    let regex: RegExp | undefined;
    if (condition.regex !== undefined) {
      try {
        // Java's Matcher.matches() must match the whole value.
        regex = new RegExp(`^(?:${condition.regex})$`, 'u');
      } catch (error) {
        throw new InputError(`${path}.regex`, condition.regex, `is not a valid regular expression (${(error as Error).message})`);
      }
    }
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
  return (tags) => checks.every((check) => check(tags));
}
