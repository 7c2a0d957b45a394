/**
 * A collector run by a test (Telegraf, collectd): started as a child with its output kept for failure messages, and
 * stopped by its pid, TERM then KILL, by the test or, if the test process dies first, by an exit hook.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface SenderProcess {
  readonly pid: number;
  /** What it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves with its exit code (null after a signal) once it has exited by itself. */
  readonly exited: Promise<number | null>;
  /** TERM, then KILL after `graceMs`; resolves once it is gone. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
let hooked = false;

export function startSender(bin: string, args: readonly string[], env: Record<string, string> = {}): SenderProcess {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  if (child.pid === undefined) throw new Error(`could not start ${bin}`);
  live.add(child);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const running of live) running.kill('SIGKILL');
    });
  }
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  return {
    pid: child.pid,
    output: () => text,
    exited,
    stop: async (graceMs = 5000) => {
      if (!live.has(child)) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Runs a sender that stops by itself (Telegraf's `--once`); KILLed after `timeoutMs`. */
export async function runSender(
  bin: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  const sender = startSender(bin, args);
  const timer = setTimeout(() => void sender.stop(0), timeoutMs);
  const code = await sender.exited;
  clearTimeout(timer);
  return { code, output: sender.output() };
}
