/**
 * Generated code is committed and never edited: regenerating from schema.graphql, codegen.yml and the
 * operations must give exactly the committed files.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generate, loadCodegenConfig } from '@graphql-codegen/cli';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

it('finds every generated file up to date (run `npm run codegen` after changing the schema)', {
  timeout: 60_000,
}, async () => {
  const { config } = await loadCodegenConfig({ configFilePath: resolve(ROOT, 'codegen.yml') });
  const outputs = await generate({ ...config, cwd: ROOT, silent: true }, false);
  expect(outputs.length).toBeGreaterThan(0);
  for (const output of outputs) {
    expect(readFileSync(resolve(ROOT, output.filename), 'utf8'), output.filename).toBe(output.content);
  }
});
