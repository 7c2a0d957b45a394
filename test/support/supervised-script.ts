// Owns the Node side of the project's server scripts (tools/cassandra/run.sh, tools/kairosdb/run.sh): runs a fetch script,
// starts a run script with a stdin it never closes, waits for its READY line, stops it, and makes sure no JVM outlives
// this process, whether it ends by stop(), a signal, or a crash.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ReadyLine {
  /** The `key=value` fields after the prefix. */
  readonly fields: ReadonlyMap<string, string>;
  /** The JVM's pid, `pid=`. */
  readonly pid: number;
  /** The run dir, `dir=`: deleted by the backstop if the script hangs on stop. */
  readonly dir: string;
  /** A positive integer field, or an error naming the line. */
  int(key: string): number;
}

export interface SupervisedScript {
  readonly ready: ReadyLine;
  /** TERM to the script, which stops its JVM and deletes its dir; KILL and delete ourselves if it hangs. Safe to call twice. */
  stop(): Promise<void>;
  /** A signal to the script itself (a cluster's run.sh starts its dead nodes again on SIGUSR1); false once it has exited. */
  signal(signal: NodeJS.Signals): boolean;
}

export interface SuperviseOptions {
  /** For messages: `Cassandra`, `KairosDB`. */
  readonly label: string;
  /** The script, relative to the repository for messages (`tools/cassandra/run.sh`). */
  readonly scriptName: string;
  readonly scriptPath: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** `KAIROGRAPH_CASSANDRA_READY `: the line that says the server answers. */
  readonly readyPrefix: string;
  /** What ready means, for the timeout message: `answer CQL`. */
  readonly readyMeans: string;
  /** The script enforces this itself and then prints the log tail; ours only catches a hung script. */
  readonly bootTimeoutMs: number;
  /** Time from TERM until we KILL the JVM ourselves: the script's own TERM → KILL wait plus a margin. */
  readonly stopBackstopMs: number;
  /** Every stdout line after the READY line (a cluster's run.sh reports nodes going down and coming back). */
  readonly onLine?: (line: string) => void;
}

const FETCH_TIMEOUT_MS = 20 * 60_000;
const TAIL_LINES = 80;

/** Runs a fetch script (a Maven copy into a git-ignored cache; a no-op once done). */
export function runFetch(scriptName: string, scriptPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // Inherits stderr: on a fresh machine this is a Maven download of a minute or so and whoever waits should see why.
    const child = spawn('bash', [scriptPath], { stdio: ['ignore', 'inherit', 'inherit'], timeout: FETCH_TIMEOUT_MS });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`${scriptName} failed (${signal ?? `exit ${code}`}); see its message above`)),
    );
  });
}

export function supervise(options: SuperviseOptions): Promise<SupervisedScript> {
  const { label, scriptName } = options;
  // stdin stays a pipe we never close: the script stops its JVM when it reads EOF, i.e. when this process is gone however it died.
  const child = spawn('bash', [options.scriptPath, ...options.args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  live.add(child);
  installExitHooks();
  const tail: string[] = [];
  const remember = (line: string): void => {
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
  };
  createInterface({ input: child.stderr! }).on('line', remember);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', () => live.delete(child));

  return new Promise<SupervisedScript>((resolve, reject) => {
    let settled = false;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`${message}\n--- ${scriptName} output (last ${tail.length} lines) ---\n${tail.join('\n')}`));
    };
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      fail(`${label} did not ${options.readyMeans} within ${options.bootTimeoutMs} ms`);
    }, options.bootTimeoutMs + 30_000);
    child.once('error', (err) => fail(`cannot run ${scriptName}: ${err.message}`));
    child.once('exit', (code, signal) =>
      fail(`${label} failed to boot: ${scriptName} ended with ${signal ?? `exit code ${code}`}`),
    );
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (settled && options.onLine !== undefined) return options.onLine(line);
      if (!line.startsWith(options.readyPrefix) || settled) return remember(line);
      settled = true;
      clearTimeout(timer);
      let ready: ReadyLine;
      try {
        ready = parseReady(line, options.readyPrefix, scriptName);
      } catch (err) {
        child.kill('SIGTERM');
        return reject(err);
      }
      resolve({
        ready,
        stop: once(() => stopScript(child, exited, ready, options.stopBackstopMs)),
        signal: (name) => child.exitCode === null && child.signalCode === null && child.kill(name),
      });
    });
  });
}

function parseReady(line: string, prefix: string, scriptName: string): ReadyLine {
  const fields = new Map(
    line
      .slice(prefix.length)
      .split(' ')
      .map((kv) => {
        const at = kv.indexOf('=');
        return (at < 0 ? [kv, ''] : [kv.slice(0, at), kv.slice(at + 1)]) as [string, string];
      }),
  );
  const int = (key: string): number => {
    const value = Number(fields.get(key));
    if (!Number.isInteger(value) || value <= 0)
      throw new Error(`${scriptName} printed a READY line without ${key}: ${line}`);
    return value;
  };
  return { fields, pid: int('pid'), dir: fields.get('dir') ?? '', int };
}

const live = new Set<ChildProcess>();

async function stopScript(
  child: ChildProcess,
  exited: Promise<void>,
  ready: ReadyLine,
  backstopMs: number,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let backstop: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    backstop = setTimeout(() => resolve('hung'), backstopMs);
  });
  const outcome = await Promise.race([exited, hung]);
  clearTimeout(backstop);
  if (outcome !== 'hung') return;
  killQuietly(ready.pid);
  child.kill('SIGKILL');
  if (ready.dir.startsWith('/')) rmSync(ready.dir, { recursive: true, force: true });
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone: exactly what we wanted.
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}

let hooksInstalled = false;

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // TERM makes a run script stop its JVM and delete its dir on its own, so that completes even after we are gone.
  const terminateAll = (): void => {
    for (const child of live) child.kill('SIGTERM');
  };
  process.once('exit', terminateAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      terminateAll();
      // Our listener replaced Node's default exit; keep that default unless someone else (vitest) handles the signal.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.once(signal, onSignal);
  }
}
