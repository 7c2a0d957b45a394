/**
 * The gateway as production runs it, for benchmarks that measure it from outside: `node dist/main.js` with the node
 * options of `npm start`, in a process of its own (built first), its log drained, its URL read from its listening
 * line, its CPU time and RSS read from /proc.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface GatewayProcess {
  readonly url: string;
  readonly pid: number;
  /** How it was started: `node <options> dist/main.js`. */
  readonly command: string;
  readonly child: ChildProcess;
  /** SIGTERM, then waits for the process to end. */
  stop(): Promise<void>;
}

/** Compiles `dir` with tsconfig.build.json (as `npm start` does). */
export function buildGateway(dir: string): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
}

/**
 * Starts `dir`'s dist/main.js on a free port of 127.0.0.1 with `env` added; resolves once it listens. `onLine`
 * sees each JSON log line (the seeding summary, say); every line is read, since a full pipe would stall the server.
 */
export function startGateway(
  dir: string,
  env: Record<string, string>,
  onLine: (entry: Record<string, unknown>) => void = () => {},
  /** Options for node itself (`--cpu-prof` may not go in NODE_OPTIONS). */
  nodeArgs: readonly string[] = [],
): Promise<GatewayProcess> {
  const args = [...productionNodeArgs(dir), ...nodeArgs, 'dist/main.js'];
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  return new Promise<GatewayProcess>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the gateway exited (${code}) before it listened`)));
    lines.on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        // The last line of a process killed while writing it is cut short.
        console.error(`the gateway wrote a line that is not JSON: ${line}`);
        return;
      }
      onLine(entry);
      if (
        typeof entry['url'] === 'string' &&
        entry['msg'] !== undefined &&
        String(entry['msg']).includes('listening')
      ) {
        resolve({
          url: entry['url'],
          command: ['node', ...args].join(' '),
          pid: child.pid!,
          child,
          stop: async () => {
            child.kill('SIGTERM');
            await new Promise((done) => child.once('exit', done));
          },
        });
      }
    });
  });
}

/**
 * The options `npm start` gives node (package.json's start script: `... node <options> dist/main.js`), so that a
 * benchmark measures the gateway as it runs in production, young-generation size included.
 */
export function productionNodeArgs(dir: string): string[] {
  const scripts = (JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  const match = /\bnode((?: --[^ ]+)*) dist\/main\.js/.exec(scripts['start'] ?? '');
  if (match === null)
    throw new Error(`package.json's start script does not run node dist/main.js: ${scripts['start']}`);
  return match[1]!.split(' ').filter((arg) => arg !== '');
}

/** User plus system CPU seconds a process has used (any process: the gateway, a JVM). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Bytes a process has had written to storage (/proc/<pid>/io's write_bytes): the embedded store's commits. */
export function diskWriteBytes(pid: number): number {
  const match = /^write_bytes:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return Number(match?.[1] ?? 0);
}

/** A field of /proc/<pid>/status in kB: VmRSS now, VmHWM the peak. */
export function memoryKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0);
}
