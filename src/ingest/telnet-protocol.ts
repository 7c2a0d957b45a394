/**
 * KairosDB 1.3's telnet protocol, line by line, with its own rules (org.kairosdb.core.telnet): `put` (seconds below
 * 3,000,000,000, milliseconds above), `putm` (milliseconds), `puts` (a string value, milliseconds) and `version`.
 * KairosDB answers only `version`: a bad line is logged and dropped and the connection stays open, and so here.
 */
import { createRequire } from 'node:module';
import type { ValueType } from '../model/write-batch.js';
import type { LineOutcome, LineProtocol } from './tcp-line-server.js';

/** What `version` answers: the same text as GET /api/v1/version, for clients that check it starts with "KairosDB". */
export const TELNET_VERSION = `KairosDB 1.3.0-1 (Kairograph ${(createRequire(import.meta.url)('../../package.json') as { version: string }).version})`;

/** KairosDB's PutCommand: a smaller timestamp is seconds ("backwards compatible hack for the next 30 years"). */
const SECONDS_BELOW = 3_000_000_000;
/** The tag that sets a point's TTL in seconds instead of being stored (PutMillisecondCommand). */
const TTL_TAG = 'kairos_opt.ttl';

export const TELNET: LineProtocol = { name: 'telnet', parse: parseTelnetLine };

export function parseTelnetLine(line: string): LineOutcome {
  const words = splitWords(line);
  if (words.length === 0) return undefined;
  const command = words[0]!;
  switch (command) {
    case 'version':
      return { reply: `${TELNET_VERSION}\n` };
    case 'put':
    case 'putm':
    case 'puts':
      return put(command, words);
    default:
      return { reject: 'unknown_command', message: `unknown command: ${command}` };
  }
}

function put(command: 'put' | 'putm' | 'puts', words: readonly string[]): LineOutcome {
  if (words.length < 4)
    return malformed(
      `${command} needs <metric> <timestamp> <value> [<name>=<value> ...] (got ${words.length - 1} words)`,
    );
  const [, metric, timestampText, valueText] = words as [string, string, string, string];
  let timestampMs = parseLong(timestampText);
  if (timestampMs === undefined) return malformed(`timestamp must be an integer (got ${timestampText})`);
  if (command === 'put' && timestampMs < SECONDS_BELOW) timestampMs *= 1000n;
  let type: ValueType;
  let value: number | bigint | string;
  if (command === 'puts') {
    type = 'string';
    value = valueText;
  } else if (valueText.includes('.')) {
    // Java's Double.parseDouble, which KairosDB calls on any value with a '.', takes a trailing f or d too.
    if (!JAVA_DOUBLE.test(valueText)) return malformed(`value must be a number (got ${valueText})`);
    type = 'double';
    value = Number(valueText.replace(/[fFdD]$/, ''));
  } else {
    const long = parseLong(valueText);
    if (long === undefined) return malformed(`value must be an integer or a number with a '.' (got ${valueText})`);
    type = 'long';
    value = long >= -MAX_SAFE && long <= MAX_SAFE ? Number(long) : long;
  }
  const tags: Record<string, string> = {};
  let ttlSeconds = 0;
  let count = 0;
  for (let i = 4; i < words.length; i++) {
    const parts = javaSplit(words[i]!);
    if (parts.length < 2) return malformed(`tag[${count}] must be in the format 'name=value'. (got ${words[i]})`);
    const [name, tagValue] = parts as [string, string];
    if (name === '') return malformed(`tag[${count}].name may not be empty. (got ${words[i]})`);
    if (tagValue === '') return malformed(`tag[${count}].value may not be empty. (got ${words[i]})`);
    if (name === TTL_TAG) {
      // Java's Integer.parseInt.
      if (!/^[+-]?\d{1,10}$/.test(tagValue) || Math.abs(Number(tagValue)) > 2 ** 31)
        return malformed(`tag[${TTL_TAG}] must be a number (got ${tagValue})`);
      ttlSeconds = Number(tagValue);
      continue;
    }
    // KairosDB's sorted map builder refuses a name given twice, and with it the line.
    if (Object.hasOwn(tags, name)) return malformed(`tag ${name} is given twice`);
    tags[name] = tagValue;
    count++;
  }
  // KairosDB stores a line without tags under the tag add=tag rather than refusing it.
  if (count === 0) tags.add = 'tag';
  return {
    point: { metric, tags, type, timestampMs: Number(timestampMs), value, ttlSeconds },
  };
}

/**
 * KairosDB's WordSplitter: words are separated by any character up to ' ' (tabs, CR, control characters); a word that
 * starts with '"' runs to the next '"' followed by such a character, without its quotes.
 */
export function splitWords(s: string): string[] {
  const words: string[] = [];
  let quoted = false;
  let start = 0;
  let prev = ' ';
  let c = ' ';
  for (let i = 0; i < s.length; i++) {
    c = s[i]!;
    if (c <= ' ' && !quoted) {
      if (i > start) words.push(s.slice(start, i));
      start = i + 1;
    } else if (c === '"' && prev <= ' ' && !quoted) {
      quoted = true;
      start = i + 1;
    } else if (quoted && prev === '"' && c <= ' ') {
      if (i > start) words.push(s.slice(start, i - 1));
      quoted = false;
      start = i + 1;
    }
    prev = c;
  }
  if (start !== s.length) words.push(quoted && c === '"' ? s.slice(start, -1) : s.slice(start));
  return words;
}

/** Java's `String.split("=")`: every '=' cuts, and empty pieces at the end are dropped ("a=b=c" gives a, b, c). */
function javaSplit(word: string): string[] {
  const parts = word.split('=');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** KairosDB's Util.parseLong: an optional '-' and decimal digits, within a Java long. */
function parseLong(text: string): bigint | undefined {
  if (!/^-?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < MIN_LONG || value > MAX_LONG ? undefined : value;
}

function malformed(message: string): LineOutcome {
  return { reject: 'malformed', message };
}

/** Double.parseDouble's decimal forms (the hexadecimal ones and NaN/Infinity cannot hold a '.', or are never sent). */
const JAVA_DOUBLE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?$/;
const MIN_LONG = -(2n ** 63n);
const MAX_LONG = 2n ** 63n - 1n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
