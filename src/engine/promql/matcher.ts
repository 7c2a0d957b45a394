/**
 * Label matchers (`=`, `!=`, `=~`, `!~`) as selectors carry them and series accesses receive them; regular
 * expressions are anchored and let `.` match newlines, as Prometheus 3's are.
 */

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

/**
 * Go's RE2 syntax mostly reads the same in JavaScript; a leading `(?i)` (RE2's flag group, which Node 20 lacks) becomes
 * the `i` flag. Unicode mode is tried first for `\p{...}` classes, then plain mode for escapes it refuses.
 */
export function compileAnchored(source: string): RegExp {
  let flags = 's';
  // Go spells named groups (?P<name>...); JavaScript (?<name>...).
  let body = source.replaceAll('(?P<', '(?<');
  const flagGroup = /^\(\?([imsU]+)\)/.exec(body);
  if (flagGroup !== null) {
    if (flagGroup[1]!.includes('i')) flags += 'i';
    body = body.slice(flagGroup[0].length);
  }
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
