/**
 * `npm run copy`: reads the configuration as the gateway does (environment and SOURCES_FILE), opens the two sources
 * named, copies (copy.ts) with progress on stderr, and exits 0 when the read-back matched, 1 when it did not or the
 * copy failed, 2 for bad arguments or configuration.
 */
import { SingleBar } from 'cli-progress';
import { invalidConfiguration, loadConfig, type Config } from '../gateway/config.js';
import { createLogger } from '../lib/log.js';
import { configuredSourceNames, openSource } from '../sources/open-sources.js';
import { loadSourcesFile, type SourceSettings } from '../sources/sources-file.js';
import { sourcesFileOptions, sourcesOptions } from '../gateway/layer-options.js';
import type { Source } from '../sources/source.js';
import { parseCopyArgs, USAGE, UsageError, type CopyArgs } from './args.js';
import { copySeries, CopyError, summary, type CopyProgress } from './copy.js';

/** Without a terminal, one progress line this often. */
const PLAIN_PROGRESS_MS = 5000;

async function main(argv: readonly string[]): Promise<number> {
  let args: CopyArgs | 'help';
  try {
    args = parseCopyArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return fail(`${error.message}\n(npm run copy -- --help for the options)`, 2);
  }
  if (args === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  let config: Config;
  let settings: SourceSettings[];
  try {
    config = loadConfig();
    settings = loadSourcesFile(sourcesFileOptions(config));
  } catch (error) {
    const message = invalidConfiguration(error);
    if (message === undefined) throw error;
    process.stderr.write(message);
    return 2;
  }
  const names = configuredSourceNames(config.primarySourceName, settings);
  for (const [option, name] of [
    ['--from', args.from],
    ['--to', args.to],
  ] as const) {
    if (!names.includes(name))
      return fail(
        `${option} must be one of the configured sources: ${names.join(', ')} (got ${JSON.stringify(name)})`,
        2,
      );
  }
  const log = createLogger(config.logLevel);
  const opened: Source[] = [];
  try {
    const from = await openSource(sourcesOptions(config), settings, args.from, log);
    opened.push(from);
    const to = await openSource(sourcesOptions(config), settings, args.to, log);
    opened.push(to);
    const progress = progressReporter();
    let result: Awaited<ReturnType<typeof copySeries>>;
    try {
      result = await copySeries({
        from,
        to,
        ...(args.metrics !== undefined ? { metrics: args.metrics } : {}),
        range: { startMs: args.startMs, endMs: args.endMs },
        statePath: args.statePath,
        fresh: args.fresh,
        batchPoints: args.batchPoints,
        verifyOnly: args.verifyOnly,
        onProgress: progress.update,
        onNotice: (line) => progress.notice(line),
      });
    } finally {
      progress.stop();
    }
    process.stdout.write(`${summary(result)}\n`);
    return result.mismatches.length === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof CopyError) return fail(error.message, error.exitCode);
    throw error;
  } finally {
    await Promise.allSettled(opened.map((source) => source.close()));
  }
}

function fail(message: string, code: number): number {
  process.stderr.write(`kairograph copy: ${message}\n`);
  return code;
}

interface ProgressReporter {
  update(progress: CopyProgress): void;
  notice(line: string): void;
  stop(): void;
}

/** A bar on a terminal; elsewhere (logs, CI, a pipe) a plain line every few seconds. */
function progressReporter(): ProgressReporter {
  if (process.stderr.isTTY) {
    const bar = new SingleBar({
      stream: process.stderr,
      format: 'copy |{bar}| {value}/{total} partitions | {points} points | {rate} points/s | ETA {eta_formatted}',
      hideCursor: true,
      etaBuffer: 50,
    });
    let started = false;
    return {
      update(p) {
        const fields = { points: p.points, rate: rate(p) };
        if (!started) {
          bar.start(p.partitionsTotal, p.partitionsDone, fields);
          started = true;
        } else bar.update(p.partitionsDone, fields);
      },
      // Notices come while planning, before the bar is drawn.
      notice: (line) => process.stderr.write(`${line}\n`),
      stop: () => started && bar.stop(),
    };
  }
  let lastMs = performance.now();
  return {
    update(p) {
      const now = performance.now();
      if (now - lastMs < PLAIN_PROGRESS_MS || p.phase !== 'copy') return;
      lastMs = now;
      process.stderr.write(
        `copy: ${p.partitionsDone}/${p.partitionsTotal} partitions, ${p.points} points, ${rate(p)} points/s, ETA ${eta(p)}\n`,
      );
    },
    notice: (line) => process.stderr.write(`${line}\n`),
    stop: () => undefined,
  };
}

function rate(p: CopyProgress): number {
  return p.elapsedMs > 0 ? Math.round((p.points * 1000) / p.elapsedMs) : 0;
}

/** From this run's pace over the partitions it copied (skipped ones cost next to nothing). */
function eta(p: CopyProgress): string {
  const copied = p.partitionsDone - p.skipped;
  if (copied <= 0) return '?';
  const seconds = Math.round(((p.partitionsTotal - p.partitionsDone) * p.elapsedMs) / copied / 1000);
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m ${seconds % 60}s` : `${seconds}s`;
}

process.exitCode = await main(process.argv.slice(2));
// A Cassandra source's driver can keep timers alive after close: the result is known, so the process ends here.
process.exit();
