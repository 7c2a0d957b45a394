/**
 * Go's RE2 syntax as JavaScript reads it: named groups `(?P<n>...)` and flag groups (`(?i)`, `(?i:...)`, which
 * Node 20 lacks) rewritten; case-insensitive parts spell each letter in both cases.
 */

/** Returns the JavaScript source and whether the whole pattern is case-insensitive (then the `i` flag is used). */
export function re2ToJs(source: string): { source: string; ignoreCase: boolean } {
  const whole = /^\(\?([a-zA-Z]+)\)/.exec(source);
  if (whole !== null && !whole[1]!.includes('-') && !source.slice(whole[0].length).includes('(?'))
    return { source: source.slice(whole[0].length).replaceAll('(?P<', '(?<'), ignoreCase: whole[1]!.includes('i') };
  let out = '';
  // One entry per open group: whether case-insensitivity was on when it opened.
  const stack: boolean[] = [];
  let fold = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      out += source.slice(i, i + 2);
      i++;
    } else if (c === '[') {
      const end = classEnd(source, i);
      const body = source.slice(i, end + 1);
      out += fold ? foldClass(body) : body;
      i = end;
    } else if (c === '(') {
      const flags = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?(:|\))/.exec(source.slice(i));
      if (flags !== null && !source.startsWith('(?P<', i) && !source.startsWith('(?<', i)) {
        const on: boolean = flags[1]!.includes('i') ? true : (flags[2] ?? '').includes('i') ? false : fold;
        if (flags[3] === ')') fold = on;
        else {
          stack.push(fold);
          fold = on;
          out += '(?:';
        }
        i += flags[0].length - 1;
      } else {
        stack.push(fold);
        out += source.startsWith('(?P<', i) ? '(?<' : '(';
        if (source.startsWith('(?P<', i)) i += 3;
      }
    } else if (c === ')') {
      fold = stack.pop() ?? false;
      out += c;
    } else if (fold && /[a-zA-Z]/.test(c) && c.toLowerCase() !== c.toUpperCase()) {
      out += `[${c.toLowerCase()}${c.toUpperCase()}]`;
    } else out += c;
  }
  return { source: out, ignoreCase: false };
}

function classEnd(source: string, start: number): number {
  let i = start + 1;
  if (source[i] === '^') i++;
  if (source[i] === ']') i++;
  for (; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === ']') return i;
  }
  return source.length - 1;
}

/** Adds the other case of every letter and letter range in a character class. */
function foldClass(body: string): string {
  const negated = body.startsWith('[^');
  const inner = body.slice(negated ? 2 : 1, -1);
  let extra = '';
  for (const m of inner.matchAll(/([a-zA-Z])-([a-zA-Z])|([a-zA-Z])/g)) {
    if (m[3] !== undefined) extra += m[3] === m[3].toLowerCase() ? m[3].toUpperCase() : m[3].toLowerCase();
    else extra += `${swap(m[1]!)}-${swap(m[2]!)}`;
  }
  return `[${negated ? '^' : ''}${inner}${extra}]`;
}

function swap(c: string): string {
  return c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
}
