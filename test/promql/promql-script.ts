/**
 * Reads Prometheus's PromQL test scripts (promql/promqltest format): `load` blocks with the expanding sample
 * notation, `clear`, and `eval` commands with their `expect` lines and expected series.
 */
import { parseDuration } from '../../src/engine/promql/duration.js';
import { type Label, type Labels, METRIC_NAME, sortLabels } from '../../src/engine/promql/labels.js';
import { lexString } from '../../src/engine/promql/lexer.js';
import { STALE_NAN } from '../../src/engine/promql/values.js';

/** One expanded value: a number, the stale marker, a gap (`_`), or a native histogram (which we do not read). */
export type ScriptValue = number | 'gap' | 'histogram';

export interface ScriptSeries {
  readonly labels: Labels;
  readonly values: readonly ScriptValue[];
}

export interface Expectation {
  readonly kind: 'fail' | 'warn' | 'info' | 'no_warn' | 'no_info' | 'ordered';
  readonly match?: { readonly type: 'msg' | 'regex'; readonly text: string };
}

export interface EvalCommand {
  readonly kind: 'eval';
  readonly line: number;
  readonly expr: string;
  readonly instantMs?: number;
  readonly range?: { readonly startMs: number; readonly endMs: number; readonly stepMs: number };
  readonly expects: readonly Expectation[];
  readonly rangeVector?: { readonly startMs: number; readonly endMs: number; readonly stepMs: number };
  readonly expectedString?: string;
  /** A bare number: a scalar answer. */
  readonly scalar?: number;
  readonly series: readonly ScriptSeries[];
}

export type ScriptCommand =
  | {
      readonly kind: 'load';
      readonly line: number;
      readonly intervalMs: number;
      readonly nhcb: boolean;
      readonly series: readonly ScriptSeries[];
    }
  | { readonly kind: 'clear'; readonly line: number }
  | EvalCommand;

/** `10s`, `1m`, `0`, or a bare number of seconds, as the scripts write times. */
export function parseTime(text: string): number {
  if (/^-?[0-9.]+$/.test(text)) return Math.round(Number(text) * 1000);
  return text.startsWith('-') ? -parseDuration(text.slice(1)) : parseDuration(text);
}

function parseNumber(text: string): number {
  if (/^[+-]?inf$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(text)) return Number.NaN;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`bad number ${text}`);
  return value;
}

/** Expands `1 2+3x4 _ _x2 stale Inf -1-2x3 {{...}}` into one value per interval. */
export function expandValues(text: string): ScriptValue[] {
  const out: ScriptValue[] = [];
  const tokens = text.match(/\{\{.*?\}\}(?:[+-]\{\{.*?\}\}x\d+|x\d+)?|\S+/g) ?? [];
  for (const token of tokens) {
    if (token.startsWith('{{')) {
      const repeat = /x(\d+)$/.exec(token);
      const n = repeat === null ? 1 : Number(repeat[1]) + 1;
      for (let i = 0; i < n; i++) out.push('histogram');
      continue;
    }
    if (token === '_') out.push('gap');
    else if (token === 'stale') out.push(STALE_NAN);
    else if (/^_x\d+$/.test(token)) for (let i = 0; i < Number(token.slice(2)); i++) out.push('gap');
    else {
      const m = /^([+-]?[^+\-x]+?(?:e[+-]?\d+)?)(?:([+-])([^x]+))?x(\d+)$/i.exec(token);
      if (m === null) {
        out.push(parseNumber(token));
        continue;
      }
      const start = parseNumber(m[1]!);
      const step = m[2] === undefined ? 0 : (m[2] === '-' ? -1 : 1) * parseNumber(m[3]!);
      for (let i = 0; i <= Number(m[4]); i++) out.push(start + i * step);
    }
  }
  return out;
}

/** `name{a="b", "c.d"='e'}` (either part optional) and the rest of the line. */
export function parseSeriesLine(line: string): { labels: Labels; rest: string } {
  let i = 0;
  const labels: Label[] = [];
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
  if (name !== undefined) {
    labels.push({ name: METRIC_NAME, value: name });
    i = name.length;
  }
  if (line[i] === '{') {
    i++;
    for (;;) {
      while (line[i] === ' ' || line[i] === ',') i++;
      if (line[i] === '}') {
        i++;
        break;
      }
      let labelName: string;
      if (line[i] === '"' || line[i] === "'") {
        const [value, end] = lexString(line, i);
        labelName = value;
        i = end;
      } else {
        labelName = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(i))![0];
        i += labelName.length;
      }
      while (line[i] === ' ') i++;
      if (line[i] !== '=') {
        labels.push({ name: METRIC_NAME, value: labelName });
        continue;
      }
      i++;
      while (line[i] === ' ') i++;
      const [value, end] = lexString(line, i);
      labels.push({ name: labelName, value });
      i = end;
    }
  }
  return { labels: sortLabels(labels), rest: line.slice(i).trim() };
}

function parseExpect(text: string): Expectation | undefined {
  const m = /^expect\s+(fail|warn|info|no_warn|no_info|ordered)\b\s*(?:(msg|regex):\s?(.*))?$/.exec(text);
  if (m === null) return undefined;
  const match = m[2] === undefined ? undefined : { type: m[2] as 'msg' | 'regex', text: m[3]!.trim() };
  return { kind: m[1] as Expectation['kind'], ...(match === undefined ? {} : { match }) };
}

export function parseScript(text: string): ScriptCommand[] {
  const lines = text.split('\n');
  const commands: ScriptCommand[] = [];
  let i = 0;
  const body = (): [string, number][] => {
    const out: [string, number][] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !/^(load|clear|eval)/.test(lines[i]!)) {
      if (!lines[i]!.trim().startsWith('#')) out.push([lines[i]!.trim(), i + 1]);
      i++;
    }
    return out;
  };
  while (i < lines.length) {
    const line = lines[i]!.trim();
    const lineNo = i + 1;
    i++;
    if (line === '' || line.startsWith('#')) continue;
    const load = /^load(_with_nhcb)?\s+(\S+)$/.exec(line);
    if (load !== null) {
      // Start-timestamp lines (`series@st ...`, an experimental feature) are not read: the engine has no start times.
      const series = body()
        .filter(([l]) => !/^\S*@st\s/.test(l))
        .map(([l]) => {
          const { labels, rest } = parseSeriesLine(l);
          return { labels, values: expandValues(rest) };
        });
      commands.push({
        kind: 'load',
        line: lineNo,
        intervalMs: parseTime(load[2]!),
        nhcb: load[1] !== undefined,
        series,
      });
      continue;
    }
    if (line === 'clear') {
      commands.push({ kind: 'clear', line: lineNo });
      continue;
    }
    const ev =
      /^eval(_fail|_ordered|_warn|_info)?\s+(?:instant\s+at\s+(\S+)|range\s+from\s+(\S+)\s+to\s+(\S+)\s+step\s+(\S+))\s+(.*)$/.exec(
        line,
      );
    if (ev === null) throw new Error(`line ${lineNo}: cannot read ${line}`);
    const expects: Expectation[] = [];
    if (ev[1] === '_fail') expects.push({ kind: 'fail' });
    if (ev[1] === '_ordered') expects.push({ kind: 'ordered' });
    let rangeVector: EvalCommand['rangeVector'];
    let expectedString: string | undefined;
    let scalar: number | undefined;
    const series: ScriptSeries[] = [];
    for (const [l] of body()) {
      const rv = /^expect range vector from (\S+) to (\S+) step (\S+)$/.exec(l);
      if (rv !== null) {
        rangeVector = { startMs: parseTime(rv[1]!), endMs: parseTime(rv[2]!), stepMs: parseTime(rv[3]!) };
        continue;
      }
      if (l.startsWith('expect string')) {
        expectedString = lexString(l.slice('expect string'.length).trim(), 0)[0];
        continue;
      }
      const expect = l.split(' ')[0] === 'expect' ? parseExpect(l) : undefined;
      if (expect !== undefined) {
        expects.push(expect);
        continue;
      }
      if (/^[-+]?([0-9.]|Inf|NaN|inf|nan)/.test(l) && !l.includes('{')) {
        scalar = parseNumber(l);
        continue;
      }
      const { labels, rest } = parseSeriesLine(l);
      series.push({ labels, values: expandValues(rest) });
    }
    const instantMs = ev[2] === undefined ? undefined : parseTime(ev[2]);
    const range =
      ev[3] === undefined
        ? undefined
        : { startMs: parseTime(ev[3]), endMs: parseTime(ev[4]!), stepMs: parseTime(ev[5]!) };
    commands.push({
      kind: 'eval',
      line: lineNo,
      expr: ev[6]!,
      ...(instantMs === undefined ? {} : { instantMs }),
      ...(range === undefined ? {} : { range }),
      expects,
      ...(rangeVector === undefined ? {} : { rangeVector }),
      ...(expectedString === undefined ? {} : { expectedString }),
      ...(scalar === undefined ? {} : { scalar }),
      series,
    });
  }
  return commands;
}
