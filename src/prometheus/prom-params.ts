/**
 * Prometheus's request parameters as its API reads them (web/api/v1/api.go): times as float Unix seconds or RFC 3339,
 * durations as float seconds or Prometheus's duration text, limits, label names with the `U__` escaping Grafana
 * sends for names that are not legacy identifiers. Errors carry Prometheus's wording, as `bad_data`.
 */
import { parseDuration as parsePromDuration } from '../engine/promql/duration.js';
import { isEpochMs } from '../lib/epoch-ms.js';
import { PromApiError } from './prom-errors.js';

/** The earliest and latest times the house holds (src/lib/epoch-ms.ts): what an absent `start` or `end` means. */
export const MIN_TIME_MS = -8.64e15;
export const MAX_TIME_MS = 8.64e15;

/** `name` as epoch ms, or `fallback` when the parameter is absent or empty. */
export function timeParam(params: URLSearchParams, name: string, fallback: number): number {
  const text = params.get(name);
  if (text === null || text === '') return fallback;
  const ms = parseTime(text);
  if (ms === undefined) throw badParam(name, `cannot parse ${goQuote(text)} to a valid timestamp`);
  return ms;
}

/** Float seconds (to the millisecond, as Prometheus rounds them) or RFC 3339; undefined when it is neither. */
export function parseTime(text: string): number | undefined {
  if (FLOAT.test(text.trim())) {
    const seconds = Number(text);
    if (!Number.isFinite(seconds)) return undefined;
    const whole = Math.trunc(seconds);
    const ms = whole * 1000 + Math.round((seconds - whole) * 1000);
    return isEpochMs(ms) ? ms : clampTime(ms);
  }
  if (!RFC3339.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A duration parameter in ms (float seconds or `1m30s`); undefined when absent or empty. */
export function durationParam(params: URLSearchParams, name: string): number | undefined {
  const text = params.get(name);
  if (text === null || text === '') return undefined;
  if (FLOAT.test(text.trim())) {
    const seconds = Number(text);
    if (!Number.isFinite(seconds) || Math.abs(seconds) > 9.2e9)
      throw badParam(name, `cannot parse ${goQuote(text)} to a valid duration. It overflows int64`);
    return seconds * 1000;
  }
  try {
    return parsePromDuration(text);
  } catch {
    throw badParam(name, `cannot parse ${goQuote(text)} to a valid duration`);
  }
}

/** `limit`: a whole number, 0 (or absent) for none. */
export function limitParam(params: URLSearchParams): number {
  const text = params.get('limit');
  if (text === null || text === '') return 0;
  if (!/^[+-]?\d+$/.test(text)) throw badParam('limit', `${goQuote(text)} is not a whole number`);
  const limit = Number(text);
  if (limit < 0) throw badParam('limit', 'limit must be non-negative');
  return limit;
}

/**
 * A label name from the path, unescaped from `U__` form (`U__host_2e_name` is `host.name`: `__` is `_`, `_<hex>_`
 * a code point); anything else as it is.
 */
export function unescapeLabelName(name: string): string {
  if (!name.startsWith('U__')) return name;
  const body = name.slice(3);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '_') {
      out += c;
      continue;
    }
    if (body[i + 1] === '_') {
      out += '_';
      i++;
      continue;
    }
    const end = body.indexOf('_', i + 1);
    const hex = end < 0 ? '' : body.slice(i + 1, end);
    const code = /^[0-9a-fA-F]{1,6}$/.test(hex) ? Number.parseInt(hex, 16) : Number.NaN;
    // Prometheus gives back the name as it came when it does not decode.
    if (!(code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) return name;
    out += String.fromCodePoint(code);
    i = end;
  }
  return out;
}

/** Prometheus 3 takes any UTF-8 name that is not empty. */
export function checkLabelName(name: string): void {
  if (name === '' || !isWellFormed(name)) throw new PromApiError('bad_data', `invalid label name: ${goQuote(name)}`);
}

function isWellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

export function badParam(name: string, reason: string): PromApiError {
  return new PromApiError('bad_data', `invalid parameter ${goQuote(name)}: ${reason}`);
}

/** Go's %q of a string, near enough for messages: JSON's quoting. */
export function goQuote(text: string): string {
  return JSON.stringify(text);
}

function clampTime(ms: number): number {
  return Math.min(MAX_TIME_MS, Math.max(MIN_TIME_MS, ms));
}

/** What Go's strconv.ParseFloat takes, without hex floats, Inf and NaN (no time). */
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
