#!/usr/bin/env node
// The `kairograph` command. In a clone (`npx kairograph`) it runs the TypeScript sources through tsx, so it is
// always the code checked out, never a stale `dist/` from an earlier build; an installed package, which ships no
// sources, runs its built `dist/`. `npm start` builds and runs `node dist/main.js` itself.
import { existsSync } from 'node:fs';

const sources = new URL('../src/main.ts', import.meta.url);
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  await import(new URL('../dist/main.js', import.meta.url).href);
}
