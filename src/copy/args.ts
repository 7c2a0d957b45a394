/**
 * `npm run copy`'s command line, read once into normalised options; a bad argument is a UsageError naming the option
 * and the value (the CLI exits 2 with it).
 */
import { MAX_EPOCH_MS } from '../lib/epoch-ms.js';
import { parseTime, TimeParseError } from '../model/time.js';
import { DEFAULT_BATCH_POINTS } from './copy.js';

export const USAGE = `Usage: npm run copy -- --from <source> --to <source> [options]

Copies series from one configured source to another (names as in SOURCES_FILE and PRIMARY_SOURCE_NAME),
resumably, then reads every series copied back on both sides and compares counts and sums.

Options:
  --from <source>        source to read (required)
  --to <source>          writable source to write (required, not --from)
  --metric <name>        a metric to copy; repeat for more (default: every metric of --from)
  --from-time <time>     start of the range, inclusive: ISO-8601 or epoch ms (default: all time)
  --to-time <time>       end of the range, inclusive: ISO-8601 or epoch ms (default: all time)
  --state <file>         resume file (default: ./kairograph-copy-<from>-to-<to>.state)
  --fresh                ignore and replace an existing state file
  --batch-points <n>     most points per write (default ${DEFAULT_BATCH_POINTS})
  --verify-only          copy nothing: only read back and compare
  --help                 this text
`;

export interface CopyArgs {
  readonly from: string;
  readonly to: string;
  /** Sorted, distinct; undefined for every metric. */
  readonly metrics: readonly string[] | undefined;
  readonly startMs: number;
  readonly endMs: number;
  readonly statePath: string;
  readonly fresh: boolean;
  readonly batchPoints: number;
  readonly verifyOnly: boolean;
}

export class UsageError extends Error {}

const VALUED = ['--from', '--to', '--metric', '--from-time', '--to-time', '--state', '--batch-points'] as const;
const FLAGS = ['--fresh', '--verify-only', '--help'] as const;
const MAX_BATCH_POINTS = 1_000_000;

/** The options of `argv` (without node and the script), or 'help'. */
export function parseCopyArgs(argv: readonly string[]): CopyArgs | 'help' {
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if ((FLAGS as readonly string[]).includes(name)) {
      if (eq > 0) throw new UsageError(`${name} takes no value (got ${JSON.stringify(arg.slice(eq + 1))})`);
      flags.add(name);
    } else if ((VALUED as readonly string[]).includes(name)) {
      let value: string | undefined;
      if (eq > 0) value = arg.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) value = argv[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      if (name !== '--metric' && values.has(name))
        throw new UsageError(
          `${name} is given twice (got ${JSON.stringify(values.get(name)![0])} and ${JSON.stringify(value)})`,
        );
      values.set(name, [...(values.get(name) ?? []), value]);
    } else {
      throw new UsageError(`unknown argument ${JSON.stringify(arg)} (options: ${[...VALUED, ...FLAGS].join(', ')})`);
    }
  }
  if (flags.has('--help')) return 'help';
  const one = (name: string): string | undefined => values.get(name)?.[0];
  const from = required(one('--from'), '--from');
  const to = required(one('--to'), '--to');
  if (from === to) throw new UsageError(`--to must not be the source --from names (got ${JSON.stringify(to)})`);
  const metrics = values.get('--metric');
  for (const metric of metrics ?? []) if (metric === '') throw new UsageError('--metric must not be empty (got "")');
  const startMs = time(one('--from-time'), '--from-time', -MAX_EPOCH_MS);
  const endMs = time(one('--to-time'), '--to-time', MAX_EPOCH_MS);
  if (endMs < startMs)
    throw new UsageError(`--to-time must not be before --from-time (got ${JSON.stringify(one('--to-time'))})`);
  const batch = one('--batch-points') ?? String(DEFAULT_BATCH_POINTS);
  if (!/^\d+$/.test(batch) || Number(batch) < 1 || Number(batch) > MAX_BATCH_POINTS)
    throw new UsageError(
      `--batch-points must be a whole number from 1 to ${MAX_BATCH_POINTS} (got ${JSON.stringify(batch)})`,
    );
  const state = one('--state') ?? `kairograph-copy-${from}-to-${to}.state`;
  if (state === '') throw new UsageError('--state must not be empty (got "")');
  return {
    from,
    to,
    metrics: metrics === undefined ? undefined : [...new Set(metrics)].sort(),
    startMs,
    endMs,
    statePath: state,
    fresh: flags.has('--fresh'),
    batchPoints: Number(batch),
    verifyOnly: flags.has('--verify-only'),
  };
}

function required(value: string | undefined, name: string): string {
  if (value === undefined || value === '')
    throw new UsageError(`${name} is required (got ${JSON.stringify(value ?? '')})`);
  return value;
}

/** Absolute times only: a relative one (`now-1d`) would name another range on every resumed run. */
function time(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const problem = `${name} must be ISO-8601 text or epoch milliseconds from ${-MAX_EPOCH_MS} to ${MAX_EPOCH_MS} (got ${JSON.stringify(value)})`;
  if (/^\s*now/.test(value)) throw new UsageError(problem);
  try {
    return parseTime(value, 0);
  } catch (error) {
    if (error instanceof TimeParseError) throw new UsageError(problem);
    throw error;
  }
}
