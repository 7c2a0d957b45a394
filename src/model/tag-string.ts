/**
 * A series' canonical tag string, as KairosDB writes it inside its row keys (reference §2.1): `escKey(k)=escVal(v):`
 * per tag in sorted key order, with KairosDB's two different escape characters for keys and values. It orders series
 * and groups in every answer (KairosDB's order) and names a series wherever one must be told from another.
 */
import type { Tags } from './series.js';

const SPECIAL = /[:=]/g;

/** Tags sorted by key in UTF-16 code-unit order, which is Java's `String.compareTo` and so KairosDB's SortedMap. */
export function encodeTagString(tags: Tags): string {
  const keys = Object.keys(tags).sort();
  let out = '';
  for (const key of keys) out += `${escapeWith(key, ':')}=${escapeWith(tags[key]!, '=')}:`;
  return out;
}

function escapeWith(s: string, escapeChar: string): string {
  return s.includes(':') || s.includes('=') ? s.replace(SPECIAL, `${escapeChar}$&`) : s;
}
