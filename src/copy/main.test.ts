/**
 * `npm run copy` as a process: exit codes and exact messages for bad arguments and configuration, a run killed with
 * SIGKILL mid-copy and resumed to the same destination, and the read-back check failing on a changed destination.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, dump, HOUR, series, type CopyFixture } from '../../test/support/copy-sources.js';
import { removeTempDirs } from '../../test/support/temp-dir.js';
import { IndexLoaders } from '../sources/index-loaders.js';
import { USAGE } from './args.js';

afterAll(removeTempDirs);

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI through tsx, in the repository (where tsx resolves), with the fixture's environment. */
function copyCli(
  fixture: CopyFixture,
  args: readonly string[],
  whileRunning?: (kill: () => void) => void,
): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...fixture.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  whileRunning?.(() => child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Records of copied partitions in a state file. */
function recorded(path: string): number {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .slice(1)
        .filter((line) => line.endsWith('}')).length
    : 0;
}

describe('npm run copy', () => {
  it('exits 2 with a message naming the option and the value, or the configuration at fault', async () => {
    const fixture = await copyFixture();
    expect(await copyCli(fixture, ['--from', 'a', '--to', 'c'])).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'kairograph copy: --to must be one of the configured sources: kairosdb, a, b (got "c")\n',
    });
    expect(await copyCli(fixture, ['--from', 'a', '--to', 'b', '--from-time', 'yesterday'])).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr:
        'kairograph copy: --from-time must be ISO-8601 text or epoch milliseconds from -8640000000000000 to 8640000000000000 (got "yesterday")\n(npm run copy -- --help for the options)\n',
    });
    const bad = { ...fixture, env: { ...fixture.env, SOURCES_FILE: join(fixture.dir, 'missing.json') } };
    const config = await copyCli(bad, ['--from', 'a', '--to', 'b']);
    expect(config).toMatchObject({ code: 2, stdout: '' });
    expect(config.stderr).toMatch(/^kairograph: invalid configuration: SOURCES_FILE cannot be read: ENOENT/);
    expect(await copyCli(fixture, ['--help'])).toEqual({ code: 0, signal: null, stdout: USAGE, stderr: '' });
  });

  it('resumes after a SIGKILL mid-copy, skipping what was done, and ends with the destination equal to the source', {
    timeout: 90_000,
  }, async () => {
    const fixture = await copyFixture(5 * HOUR);
    const a = await fixture.open('a');
    // 960 partitions of 360 points: a few seconds at 50 points per write on this machine.
    for (let h = 0; h < 40; h++)
      await a.write({
        series: [
          series('big', { host: `h${h}` }, h % 2 === 0 ? 'double' : 'long', 0, 10_000, 24 * 360, (i) =>
            h % 2 === 0 ? i * 0.5 + h : i * 7 - h,
          ),
        ],
      });
    await a.write({ series: [series('small', { host: 'h0' }, 'string', 0, 60_000, 10, (i) => `s${i}`)] });
    const source = await dump(a);
    await a.close();
    const state = join(fixture.dir, 'copy.state');
    const args = ['--from', 'a', '--to', 'b', '--state', state, '--batch-points', '50'];

    const killed = await copyCli(fixture, args, (kill) => {
      const poll = setInterval(() => {
        if (recorded(state) >= 100) {
          clearInterval(poll);
          kill();
        }
      }, 10);
    });
    expect(killed.signal).toBe('SIGKILL');
    const done = recorded(state);
    expect(done).toBeGreaterThanOrEqual(100);
    expect(done).toBeLessThan(961);

    const resumed = await copyCli(fixture, args);
    expect(resumed.stderr).toContain(`resuming ${state}: ${done} partitions were copied before and are skipped\n`);
    expect(resumed.stdout).toMatch(
      new RegExp(
        `^copied \\d+ points of 41 series \\(961 partitions, ${done} of them copied by an earlier run\\) in \\d+\\.\\d s; read back: counts and sums equal\\n$`,
      ),
    );
    expect(resumed.code).toBe(0);
    const b = await fixture.open('b');
    expect(await dump(b)).toEqual(source);
    await b.close();

    // Once more: every partition is skipped, and nothing changes.
    const again = await copyCli(fixture, args);
    expect(again.stdout).toBe(
      'copied 0 points of 41 series (961 partitions, 961 of them copied by an earlier run) in ' +
        again.stdout.split(' in ')[1],
    );
    expect(again.code).toBe(0);
    const b2 = await fixture.open('b');
    expect(await dump(b2)).toEqual(source);
    await b2.close();
  });

  it('exits 1 naming the series when the read-back finds the destination changed (--verify-only)', async () => {
    const fixture = await copyFixture();
    const a = await fixture.open('a');
    await a.write({
      series: [
        series('m', { host: 'h1' }, 'long', 0, 60_000, 120, (i) => i),
        series('m', { host: 'h2' }, 'long', 0, 60_000, 120, (i) => i),
      ],
    });
    await a.close();
    const state = join(fixture.dir, 'copy.state');
    expect(await copyCli(fixture, ['--from', 'a', '--to', 'b', '--state', state])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(
        /^copied 240 points of 2 series \(4 partitions\) in .*; read back: counts and sums equal\n$/,
      ),
    });

    const b = await fixture.open('b');
    const plan = await b.findSeries(
      new IndexLoaders(),
      'm',
      { startMs: 0, endMs: HOUR },
      (tags) => tags['host'] === 'h2',
    );
    await b.deleteRange(plan.partitions[0]!, 60_000, 60_000);
    await b.close();
    const check = await copyCli(fixture, ['--from', 'a', '--to', 'b', '--verify-only']);
    expect(check.code).toBe(1);
    expect(check.stdout.split('\n')).toEqual([
      expect.stringMatching(/^copied 0 points of 2 series \(4 partitions\) in \d+\.\d s; read back: 1 series differ:$/),
      '  m{host=h2}: source 120 points, long sum 7140, time sum 428400000; destination 119 points, long sum 7139, time sum 428340000',
      '',
    ]);
  });
});
