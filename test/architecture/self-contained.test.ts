/**
 * The repository is self-contained: no tracked file points at a path outside it (a build machine's absolute path, a
 * sibling folder of notes), and every relative link of its Markdown resolves to a file inside it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILES = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(
    (file) => file !== '' && /\.(md|ts|json|graphql|yml|sh|conf|xml)$/.test(file) && existsSync(join(ROOT, file)),
  );

/** Recorded benchmark runs keep the directory their server ran in, as the run printed it: a record, not a reference. */
const RECORDS = new Set(['bench/RESULTS.md']);

it('names no path outside the repository', () => {
  const outside = FILES.filter(
    (file) => !RECORDS.has(file) && file !== 'test/architecture/self-contained.test.ts',
  ).flatMap((file) =>
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        /\/work\/|shared\/reference|\.\.\/shared\//.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [],
      ),
  );
  expect(outside).toEqual([]);
});

it('links Markdown only to files inside the repository that exist', () => {
  const broken = FILES.filter((file) => file.endsWith('.md')).flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)].flatMap(([, target]) => {
      if (/^[a-z]+:|^#/.test(target!)) return [];
      const path = resolve(dirname(join(ROOT, file)), target!.split('#')[0]!);
      const inside = !relative(ROOT, path).startsWith('..');
      return inside && existsSync(path) ? [] : [`${file}: ${target}`];
    }),
  );
  expect(broken).toEqual([]);
});
