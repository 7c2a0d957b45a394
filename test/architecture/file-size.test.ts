/**
 * No file of src/ over 400 lines (#40): a module that long holds more than one job, a test file more than one subject,
 * and either is split by what it does, not in halves. Generated code (src/generated/) is exempt: nobody edits it. The
 * check is also fed a planted over-long file, so that it is known to fail.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

afterAll(removeTempDirs);

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const MAX_LINES = 400;

/** Lines as `wc -l` counts them: a last line without its newline counts too. */
function linesOf(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** `path → lines` of every .ts file under `dir` of `root` (paths relative to `root`), src/generated/ left out. */
function lineCounts(root: string, dir = 'src', counts = new Map<string, number>()): Map<string, number> {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (path !== 'src/generated') lineCounts(root, path, counts);
    } else if (entry.name.endsWith('.ts')) counts.set(path, linesOf(readFileSync(join(root, path), 'utf8')));
  }
  return counts;
}

/** Each file over MAX_LINES, with its count, by path. */
function overLong(counts: ReadonlyMap<string, number>): string[] {
  return [...counts]
    .filter(([, lines]) => lines > MAX_LINES)
    .map(([path, lines]) => `${path}: ${lines} lines, over ${MAX_LINES}`)
    .sort();
}

describe('the size of files', () => {
  it(`holds every .ts file of src/ but the generated code to ${MAX_LINES} lines`, () => {
    const counts = lineCounts(ROOT);
    // Not vacuous: the walk reached the sources, and left the generated code out.
    expect(counts.get('src/main.ts')).toBeGreaterThan(0);
    expect([...counts.keys()].filter((path) => path.startsWith('src/generated/'))).toEqual([]);
    expect(overLong(counts)).toEqual([]);
  });

  it('names each planted file over the limit with its count, and nothing at the limit, generated or not .ts', () => {
    const root = tempDir('kairograph-file-size-');
    const plant = (path: string, lines: number, lastNewline = true): void => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      const text = Array.from({ length: lines }, (_, i) => `export const x${i} = ${i};`).join('\n');
      writeFileSync(join(root, path), lastNewline ? `${text}\n` : text);
    };
    plant('src/engine/huge.ts', 401);
    plant('src/engine/huge.test.ts', 560);
    plant('src/sources/heroic/unterminated.ts', 401, false);
    plant('src/sources/at-the-limit.ts', 400);
    plant('src/sources/unterminated-at-the-limit.ts', 400, false);
    plant('src/generated/graphql.ts', 5000);
    plant('src/notes.md', 1000);
    plant('src/empty.ts', 0, false);
    expect(overLong(lineCounts(root))).toEqual([
      'src/engine/huge.test.ts: 560 lines, over 400',
      'src/engine/huge.ts: 401 lines, over 400',
      'src/sources/heroic/unterminated.ts: 401 lines, over 400',
    ]);
  });
});
