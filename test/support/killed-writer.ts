/** A store written by a child process (src/store/embedded/durability-child.ts) that is killed once its writes are acknowledged. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp-dir.js';

const CHILD = fileURLToPath(new URL('../../src/store/embedded/durability-child.ts', import.meta.url));

/** The path of the store the child wrote `scenario` to before SIGKILL ended it. */
export async function killedAfterWrites(scenario: 'blocks' | 'head'): Promise<string> {
  const path = tempDir();
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, path, scenario], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
    if (output.includes('acknowledged')) child.kill('SIGKILL');
  });
  const [, signal] = await once(child, 'exit');
  if (signal !== 'SIGKILL')
    throw new Error(`the writer exited by itself (signal ${signal}), before its writes were acknowledged`);
  return path;
}
