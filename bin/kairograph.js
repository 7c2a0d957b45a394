#!/usr/bin/env node
// The `kairograph` command (`npx kairograph` in a clone): the built gateway when `npm run build` made one, otherwise
// the TypeScript sources through tsx, so a fresh `npm ci` needs no build step first.
import { existsSync } from 'node:fs';

const built = new URL('../dist/main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/main.ts', import.meta.url).href);
}
