/**
 * The process logger: pino, one event per line with the request id where there is one; JSON for collectors, or
 * readable lines on a terminal (LOG_FORMAT). Credentials are redacted wherever a header or password could be logged.
 */
import type { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

/** LOG_LEVEL: pino's levels, and `silent`. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** LOG_FORMAT: readable lines (`pretty`, or `auto` on a terminal), JSON lines otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

export type { Logger };

/** Paths a credential could sit at if anything ever logged a request's headers or a configuration. */
const REDACTED = [
  'req.headers.authorization',
  'req.headers["x-kairograph-token"]',
  'headers.authorization',
  'headers["x-kairograph-token"]',
  'authorization',
  'password',
  '*.password',
  'cassandraPassword',
];

export function createLogger(
  level: LogLevel,
  format: LogFormat = 'json',
  output: Writable & { isTTY?: boolean } = process.stdout,
): Logger {
  const options = { level, base: { service: 'kairograph' }, redact: { paths: REDACTED, censor: '[redacted]' } };
  const pretty = format === 'pretty' || (format === 'auto' && output.isTTY === true);
  return pino(options, pretty ? readableLines(output, output.isTTY === true) : output);
}

const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};
const COLOURS: Readonly<Record<number, string>> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' };
/** What every line has, or what says nothing to a reader at a terminal. */
const LEFT_OUT = new Set(['level', 'time', 'pid', 'hostname', 'service', 'msg', 'err']);

/**
 * A pino destination that writes `12:04:05.123 INFO  graphql request  route=/graphql status=200 ...`: pino writes
 * one JSON line per event to any object with `write`, so this reads it back rather than re-implementing the logger.
 * A request's statistics become their totals; an error's stack follows on its own lines.
 */
function readableLines(output: Writable, colour: boolean): { write(line: string): void } {
  return {
    write(line: string) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      const level = Number(entry['level']);
      const time = new Date(Number(entry['time'])).toISOString().slice(11, 23);
      const name = LEVELS[level] ?? String(level);
      const shown = colour ? `\u001b[${COLOURS[level] ?? '0'}m${name}\u001b[0m` : name;
      const fields = Object.entries(entry)
        .filter(([key]) => !LEFT_OUT.has(key))
        .map(([key, value]) =>
          key === 'statistics' ? totals(value) : `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
        );
      const err = entry['err'] as { stack?: string; message?: string } | undefined;
      const stack = err ? `\n    ${(err.stack ?? err.message ?? '').split('\n').join('\n    ')}` : '';
      output.write(
        `${time} ${shown} ${String(entry['msg'] ?? '')}${fields.length > 0 ? `  ${fields.join(' ')}` : ''}${stack}\n`,
      );
    },
  };
}

function totals(statistics: unknown): string {
  const { storeCalls, queries } = statistics as {
    storeCalls?: { total?: number };
    queries?: { pointsRead: number; pointsReturned: number }[];
  };
  const sum = (key: 'pointsRead' | 'pointsReturned') => (queries ?? []).reduce((n, q) => n + q[key], 0);
  return `queries=${queries?.length ?? 0} pointsRead=${sum('pointsRead')} pointsReturned=${sum('pointsReturned')} storeCalls=${storeCalls?.total ?? 0}`;
}
