/**
 * The layout seam holds: the planner, the engine, budgets, the results cache and shared work, the server, both front
 * ends and the copy tool (src/copy) reach series only through src/sources/'s own modules (the Source interface, the
 * registry, the series vocabulary), never a store (src/store/**) nor a layout's insides (src/sources/<layout>/**).
 * Every import of every module is read from TypeScript's own syntax tree (static, `export ... from`, dynamic,
 * type-only and `import()` types alike), so an import that goes around the seam fails here, whatever it imports.
 * Tests may build real stores, so they are exempt.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Directories above the seam. */
const ABOVE_SEAM = [
  'src/cache',
  'src/copy',
  'src/engine',
  'src/graphql',
  'src/http',
  'src/kairos-rest',
  'src/query',
  'src/rollups',
  'src/server',
];

/** Why an import target is out of bounds for a module above the seam, or undefined when it is not. */
function forbidden(target: string): string | undefined {
  if (target.startsWith('src/store/')) return 'a store';
  if (/^src\/sources\/[^/]+\//.test(target)) return "a layout's own module";
  return undefined;
}

/** `file → text` of the modules to check, paths relative to the project root with `/`. */
function seamViolations(files: ReadonlyMap<string, string>): string[] {
  const violations: string[] = [];
  for (const [file, text] of files) {
    if (!ABOVE_SEAM.some((dir) => file.startsWith(`${dir}/`)) || file.endsWith('.test.ts')) continue;
    for (const fileName of importsOf(file, text)) {
      if (!fileName.startsWith('.')) continue;
      const target = join(dirname(file), fileName).replaceAll('\\', '/').replace(/\.js$/, '.ts');
      const why = forbidden(target);
      if (why !== undefined)
        violations.push(`${file} imports ${fileName}: ${why}, below the seam (go through src/sources/*.ts)`);
    }
  }
  return violations;
}

/** Every module specifier `text` names, in order: declarations, re-exports, `import(...)` calls and types. */
function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  return found;
}

function sourceFiles(dir: string, files = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) sourceFiles(path, files);
    else if (entry.name.endsWith('.ts')) files.set(path, readFileSync(join(ROOT, path), 'utf8'));
  }
  return files;
}

describe('the layout seam', () => {
  it('is the only way from the engine, the planner, the cache, the server, the front ends and the copy tool to where series live', () => {
    const files = sourceFiles('src');
    // Not vacuous: every directory above the seam has modules, and they import the seam.
    for (const dir of ABOVE_SEAM)
      expect(
        [...files.keys()].filter((f) => f.startsWith(`${dir}/`) && !f.endsWith('.test.ts')).length,
        dir,
      ).toBeGreaterThan(2);
    expect(seamViolations(files)).toEqual([]);
  });

  it('finds every kind of import that goes around it', () => {
    const files = new Map([
      [
        'src/engine/sneaky.ts',
        "import { EmbeddedStore } from '../store/embedded/embedded-store.js';\nexport { rowTimeOf } from '../store/format/index.js';",
      ],
      [
        'src/graphql/lazy.ts',
        "const m = await import('../sources/kairosdb/plan.js');\nimport type { Store } from '../store/store.js';\ntype Key = import('../store/store.js').RowKey;",
      ],
      [
        'src/kairos-rest/fine.ts',
        "import type { Source } from '../sources/source.js';\nimport { Sources } from '../sources/sources.js';",
      ],
      // Below the seam, and tests, may use stores.
      ['src/sources/kairosdb/kairosdb-source.ts', "import type { Store } from '../../store/store.js';"],
      ['src/engine/execute.test.ts', "import { EmbeddedStore } from '../store/embedded/embedded-store.js';"],
    ]);
    expect(seamViolations(files)).toEqual([
      'src/engine/sneaky.ts imports ../store/embedded/embedded-store.js: a store, below the seam (go through src/sources/*.ts)',
      'src/engine/sneaky.ts imports ../store/format/index.js: a store, below the seam (go through src/sources/*.ts)',
      "src/graphql/lazy.ts imports ../sources/kairosdb/plan.js: a layout's own module, below the seam (go through src/sources/*.ts)",
      'src/graphql/lazy.ts imports ../store/store.js: a store, below the seam (go through src/sources/*.ts)',
      'src/graphql/lazy.ts imports ../store/store.js: a store, below the seam (go through src/sources/*.ts)',
    ]);
  });
});
