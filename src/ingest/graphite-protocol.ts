/**
 * Graphite's plaintext protocol, line by line: `path value [timestamp]`, the path optionally with Graphite 1.1's tags
 * (`name;tag=value;...`), the timestamp in seconds (`-1` or none: now, as carbon takes it). The dotted path becomes a
 * metric name whole, or, with a host position, KairosDB kairos-carbon's HostTagParser rule: that part of the path is
 * the `host` tag and the rest, joined by dots, the metric. Carbon answers nothing; a bad line is counted and skipped.
 */
import type { ValueType } from '../model/write-batch.js';
import type { LineOutcome, LineProtocol } from './tcp-line-server.js';

export interface GraphiteMapping {
  /**
   * 0: the whole path is the metric name. n ≥ 1: the n-th part of the dotted path is the `host` tag and is taken out
   * of the metric name; a path of n parts or fewer is refused. kairos-carbon's default rule is n = 2
   * (`servers.web1.cpu.load` → metric `servers.cpu.load`, host `web1`).
   */
  readonly hostTagPosition: number;
}

export function graphiteProtocol(mapping: GraphiteMapping): LineProtocol {
  return { name: 'graphite', parse: (line, nowMs) => parseGraphiteLine(line, nowMs, mapping) };
}

export function parseGraphiteLine(line: string, nowMs: number, mapping: GraphiteMapping): LineOutcome {
  const words = line.split(WHITESPACE).filter((word) => word !== '');
  if (words.length === 0) return undefined;
  if (words.length > 3) return malformed(`a line must be 'path value [timestamp]' (got ${words.length} words)`);
  if (words.length < 2) return malformed(`a line must be 'path value [timestamp]' (got ${words.length} word)`);
  const [pathText, valueText, timeText] = words as [string, string, string | undefined];
  const parts = pathText.split(';');
  const path = parts[0]!;
  if (path === '') return malformed(`the path must not be empty (got ${pathText})`);
  const tags: Record<string, string> = {};
  let metric = path;
  if (mapping.hostTagPosition > 0) {
    const names = path.split('.');
    const at = mapping.hostTagPosition - 1;
    if (names.length <= mapping.hostTagPosition)
      return malformed(
        `the path must have more than ${mapping.hostTagPosition} parts to take the host from (got ${path})`,
      );
    tags.host = names[at]!;
    names.splice(at, 1);
    metric = names.join('.');
  }
  for (let i = 1; i < parts.length; i++) {
    const tag = parts[i]!;
    const equals = tag.indexOf('=');
    if (equals <= 0 || equals === tag.length - 1)
      return malformed(`a tag must be 'name=value', both not empty (got ${JSON.stringify(tag)})`);
    const name = tag.slice(0, equals);
    const tagValue = tag.slice(equals + 1);
    // Graphite 1.1's rules for tags (graphite.readthedocs.io, "Graphite Tag Support").
    if (/[!^]/.test(name)) return malformed(`a tag name must not contain '!' or '^' (got ${name})`);
    if (tagValue.startsWith('~')) return malformed(`a tag value must not start with '~' (got ${tagValue})`);
    // Carbon keeps the last of a name given twice; a tag given on the line wins over the path's host.
    tags[name] = tagValue;
  }
  let type: ValueType;
  let value: number | bigint;
  if (INTEGER.test(valueText)) {
    type = 'long';
    const long = BigInt(valueText);
    value = long >= -MAX_SAFE && long <= MAX_SAFE ? Number(long) : long;
  } else if (FLOAT.test(valueText)) {
    type = 'double';
    value = Number(valueText);
  } else if (NON_FINITE.test(valueText)) {
    // kairos-carbon drops NaN and ±Infinity with a log line; no store here holds them.
    return malformed(`value must be a finite number (got ${valueText})`);
  } else {
    return malformed(`value must be a number (got ${valueText})`);
  }
  let timestampMs: number;
  if (timeText === undefined || timeText === '-1') {
    timestampMs = nowMs;
  } else if (FLOAT.test(timeText) || INTEGER.test(timeText)) {
    // Seconds, with a fraction as carbon's float() takes them: kept to the millisecond.
    timestampMs = Math.round(Number(timeText) * 1000);
  } else {
    return malformed(`timestamp must be a number of seconds, or -1 for now (got ${timeText})`);
  }
  return { point: { metric, tags, type, timestampMs, value, ttlSeconds: 0 } };
}

function malformed(message: string): LineOutcome {
  return { reject: 'malformed', message };
}

/** Carbon splits a line on any whitespace. */
const WHITESPACE = /[ \t\r\v\f]+/;
/** A whole number is a long, as kairos-carbon (and KairosDB's telnet) store one without a '.'. */
const INTEGER = /^[+-]?\d+$/;
/** Python's float() of decimal text, which carbon calls on values and times. */
const FLOAT = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$/;
const NON_FINITE = /^[+-]?(?:nan|inf|infinity)$/i;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
