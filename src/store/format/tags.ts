// The tag string inside data_points row keys (reference §2.1): `escKey(k)=escVal(v):` per tag in sorted key order,
// with KairosDB's two different escape characters for keys and values.
import { dict } from '../../lib/dict.js';

/** Encoding is the model's: the canonical tag string orders series and groups at every layer. */
export { encodeTagString } from '../../model/tag-string.js';

/**
 * KairosDB's two-state scanner. It also reads tag strings written before v1.1.3 (no escaping) as long as their names
 * and values hold no `:` or `=`. Like KairosDB it drops a trailing tag that lacks its closing `:`.
 * Keys come out in sorted order, except that JS objects always list integer-like keys first. The record has no
 * prototype (src/lib/dict.ts), so a tag named `__proto__` or `constructor` is data like any other.
 */
export function decodeTagString(s: string): Record<string, string> {
  const tags = dict<string>();
  let key: string | undefined;
  let mark = 0;
  let previous: string | undefined;
  let sorted = true;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    if (key === undefined) {
      if (ch === EQUALS) {
        key = unescapeWith(s, mark, i, COLON);
        mark = i + 1;
      } else if (ch === COLON) {
        i++;
      }
    } else if (ch === COLON) {
      tags[key] = unescapeWith(s, mark, i, EQUALS);
      if (previous !== undefined && previous > key) sorted = false;
      previous = key;
      key = undefined;
      mark = i + 1;
    } else if (ch === EQUALS) {
      i++;
    }
  }
  return sorted ? tags : sortTags(tags);
}

const COLON = 0x3a;
const EQUALS = 0x3d;

/** Drops each escape character and keeps the one after it, as KairosDB's `unEscape` does. */
function unescapeWith(s: string, start: number, end: number, escapeCode: number): string {
  let from = start;
  let out = '';
  for (let i = start; i < end; i++) {
    if (s.charCodeAt(i) === escapeCode) {
      out += s.slice(from, i);
      i++;
      from = i;
    }
  }
  return from === start ? s.slice(start, end) : out + s.slice(from, end);
}

function sortTags(tags: Record<string, string>): Record<string, string> {
  const out = dict<string>();
  for (const key of Object.keys(tags).sort()) out[key] = tags[key]!;
  return out;
}
