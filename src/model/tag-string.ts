/**
 * A series' canonical tag string, as KairosDB writes it inside its row keys (reference §2.1): `escKey(k)=escVal(v):`
 * per tag in sorted key order, with KairosDB's two different escape characters for keys and values. It orders series
 * and groups in every answer (KairosDB's order) and names a series wherever one must be told from another.
 */
import { memoByFrozen } from './interned.js';
import type { Tags } from './series.js';

const SPECIAL = /[:=]/g;

/**
 * Tags sorted by key in UTF-16 code-unit order, which is Java's `String.compareTo` and so KairosDB's SortedMap. Made
 * once for the frozen tags of an interned series (interned.ts).
 */
export const encodeTagString: (tags: Tags) => string = memoByFrozen(tagString);

function tagString(tags: Tags): string {
  const keys = sortedTagNames(tags);
  let out = '';
  for (const key of keys) out += `${escapeWith(key, ':')}=${escapeWith(tags[key]!, '=')}:`;
  return out;
}

function escapeWith(s: string, escapeChar: string): string {
  return s.includes(':') || s.includes('=') ? s.replace(SPECIAL, `${escapeChar}$&`) : s;
}

/**
 * The tag names in UTF-16 code-unit order. Sorted only when they are not in it already: senders mostly send them
 * sorted (Prometheus must), and a sort, even of a sorted list, allocates as much as the rest of a series' write.
 */
export function sortedTagNames(tags: Readonly<Record<string, unknown>>): string[] {
  const names = Object.keys(tags);
  for (let i = 1; i < names.length; i++) {
    if (names[i - 1]! <= names[i]!) continue;
    if (names.length > FEW_NAMES) return names.sort();
    // An insertion sort in place, in the same order as sort()'s (`<` compares UTF-16 code units too): sort() allocates
    // its own work arrays, for two names as for many.
    for (let j = i; j < names.length; j++) {
      const name = names[j]!;
      let k = j - 1;
      while (k >= 0 && names[k]! > name) {
        names[k + 1] = names[k]!;
        k--;
      }
      names[k + 1] = name;
    }
    return names;
  }
  return names;
}

const FEW_NAMES = 16;
