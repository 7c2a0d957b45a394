/**
 * Cassandra's order of text, which both stores keep: by UTF-8 bytes, which is code point order (JavaScript's `<`
 * compares UTF-16 units, and puts U+FF61 after U+1F600).
 */

export function compareText(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The smallest text after every text that starts with `prefix`: the prefix with its last code point incremented
 * (past the surrogates). Undefined when no such text exists.
 */
export function successorOf(prefix: string): string | undefined {
  const points = [...prefix].map((c) => c.codePointAt(0)!);
  while (points.length > 0) {
    let last = points.pop()!;
    if (last < 0x10ffff) {
      last = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return String.fromCodePoint(...points, last);
    }
  }
  return undefined;
}
