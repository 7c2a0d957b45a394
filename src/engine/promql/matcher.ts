/**
 * Label matchers (`=`, `!=`, `=~`, `!~`) as selectors carry them and series accesses receive them; regular
 * expressions are anchored and let `.` match newlines, as Prometheus 3's are.
 */

import { re2ToJs } from './re2-to-js.js';

export type MatchOp = '=' | '!=' | '=~' | '!~';

export interface Matcher {
  readonly name: string;
  readonly op: MatchOp;
  readonly value: string;
  /** Compiled once for `=~` and `!~`. */
  readonly regex: RegExp | undefined;
}

/** Throws the message Prometheus gives for a regular expression it cannot compile. */
export function newMatcher(name: string, op: MatchOp, value: string): Matcher {
  const regex = op === '=~' || op === '!~' ? compileAnchored(value) : undefined;
  return { name, op, value, regex };
}

export function matches(m: Matcher, value: string): boolean {
  switch (m.op) {
    case '=':
      return value === m.value;
    case '!=':
      return value !== m.value;
    case '=~':
      return m.regex!.test(value);
    case '!~':
      return !m.regex!.test(value);
  }
}

/** True when the matcher accepts the empty string: such matchers also select series without the label. */
export function matchesEmpty(m: Matcher): boolean {
  return matches(m, '');
}

/** Compiles `^(?:re)$` from Go's syntax; throws Prometheus's message when it cannot. */
export function compileAnchored(source: string): RegExp {
  const { source: body, ignoreCase } = re2ToJs(source);
  const flags = ignoreCase ? 'si' : 's';
  // Unicode mode reads `\p{...}` classes; plain mode takes the identity escapes it refuses.
  try {
    return new RegExp(`^(?:${body})$`, `${flags}u`);
  } catch {
    try {
      return new RegExp(`^(?:${body})$`, flags);
    } catch {
      throw new Error(`error parsing regexp: invalid regular expression: \`${source}\``);
    }
  }
}
