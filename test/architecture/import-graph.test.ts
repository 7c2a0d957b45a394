/**
 * The house's shape, held by a test over every import of src/ (static, `export ... from`, dynamic, type-only and
 * `import()` types alike, read from TypeScript's own syntax tree):
 * - LAYERS: a module imports its own layer or those below, never one above; the front ends, each a thin adapter, never
 *   import one another.
 * - No import circle between files.
 * - The layout seam: above src/sources/, series are reached through src/sources/'s own modules, never a store
 *   (src/store/**) nor a layout's insides (src/sources/<layout>/**).
 * Tests may build real stores and gateways, so they are exempt. Each rule is also fed planted violations.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * From the bottom up. A layer of several folders holds peers, which may not import one another: the front ends. The
 * gateway is the composition root, the copy tool a command of its own over the gateway's configuration, and
 * src/main.ts the process's entry.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['src/lib/'],
  ['src/model/'],
  ['src/store/'],
  ['src/sources/'],
  ['src/engine/'],
  ['src/kairos-json/'],
  ['src/sharing/'],
  ['src/app/'],
  ['src/demo/'],
  ['src/rollups/'],
  ['src/http/'],
  ['src/graphql/', 'src/kairos-rest/', 'src/prometheus/', 'src/ingest/'],
  ['src/gateway/'],
  ['src/copy/'],
  ['src/main.ts'],
];

/** Folders above the layout seam: all between it and the composition roots, which open stores and layouts. */
const ABOVE_SEAM = LAYERS.slice(
  LAYERS.findIndex((layer) => layer.includes('src/engine/')),
  LAYERS.findIndex((layer) => layer.includes('src/gateway/')),
).flat();

interface Place {
  readonly layer: number;
  readonly folder: string;
}

function placeOf(file: string): Place | undefined {
  for (const [layer, folders] of LAYERS.entries()) {
    const folder = folders.find((f) => (f.endsWith('/') ? file.startsWith(f) : file === f));
    if (folder !== undefined) return { layer, folder };
  }
  return undefined;
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

/** `file → the src/ files it imports`, tests and generated code left out. */
function graphOf(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    if (file.endsWith('.test.ts') || file.startsWith('src/generated/')) continue;
    const targets = importsOf(file, text)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => join(dirname(file), specifier).replaceAll('\\', '/').replace(/\.js$/, '.ts'))
      .filter((target) => target.startsWith('src/') && !target.startsWith('src/generated/'));
    graph.set(file, targets);
  }
  return graph;
}

/** Imports that run up the layers or across peers, and imports that go around the layout seam. */
function layerViolations(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const violations: string[] = [];
  for (const [file, targets] of graph) {
    const from = placeOf(file);
    if (from === undefined) {
      violations.push(`${file} is in no layer of LAYERS`);
      continue;
    }
    for (const target of targets) {
      const to = placeOf(target);
      if (to === undefined) continue;
      if (to.layer > from.layer)
        violations.push(`${file} imports ${target}: up the layers, from ${from.folder} to ${to.folder}`);
      else if (to.layer === from.layer && to.folder !== from.folder)
        violations.push(`${file} imports ${target}: across peers, ${from.folder} and ${to.folder}`);
      const aboveSeam = ABOVE_SEAM.includes(from.folder);
      if (aboveSeam && target.startsWith('src/store/'))
        violations.push(`${file} imports ${target}: a store, below the layout seam`);
      if (aboveSeam && /^src\/sources\/[^/]+\//.test(target))
        violations.push(`${file} imports ${target}: a layout's own module, below the layout seam`);
    }
  }
  return violations;
}

/** Every circle of imports between files, each as its files in a fixed order (strongly connected components). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    if (members.length > 1) found.push(`import circle: ${members.sort().join(' ↔ ')}`);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found.sort();
}

function sourceFiles(dir: string, files = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) sourceFiles(path, files);
    else if (entry.name.endsWith('.ts')) files.set(path, readFileSync(join(ROOT, path), 'utf8'));
  }
  return files;
}

describe('the house', () => {
  it('has no import that runs up its layers, crosses peers or goes around the layout seam, and no import circle', () => {
    const graph = graphOf(sourceFiles('src'));
    // Not vacuous: every folder of LAYERS has modules.
    for (const folder of LAYERS.flat())
      expect([...graph.keys()].filter((f) => f.startsWith(folder)).length, folder).toBeGreaterThan(0);
    expect([...layerViolations(graph), ...circles(graph)].sort()).toEqual([]);
  });

  it('finds every kind of violation planted in it', () => {
    const files = new Map([
      [
        'src/engine/sneaky.ts',
        "import { EmbeddedStore } from '../store/embedded/embedded-store.js';\nexport { x } from '../app/request-scope.js';",
      ],
      [
        'src/graphql/lazy.ts',
        "const m = await import('../sources/kairosdb/plan.js');\ntype Key = import('../kairos-rest/routes.js').Route;",
      ],
      ['src/model/a.ts', "import type { B } from './b.js';"],
      ['src/model/b.ts', "import type { A } from './a.js';"],
      ['src/lib/fine.ts', "import { dict } from './dict.js';"],
      ['src/orphan.ts', 'export const x = 1;'],
      // Below the seam, and tests, may use stores.
      ['src/sources/kairosdb/kairosdb-source.ts', "import type { Store } from '../../store/store.js';"],
      ['src/engine/execute.test.ts', "import { EmbeddedStore } from '../store/embedded/embedded-store.js';"],
    ]);
    const graph = graphOf(files);
    expect([...layerViolations(graph), ...circles(graph)].sort()).toEqual([
      'import circle: src/model/a.ts ↔ src/model/b.ts',
      'src/engine/sneaky.ts imports src/app/request-scope.ts: up the layers, from src/engine/ to src/app/',
      'src/engine/sneaky.ts imports src/store/embedded/embedded-store.ts: a store, below the layout seam',
      'src/graphql/lazy.ts imports src/kairos-rest/routes.ts: across peers, src/graphql/ and src/kairos-rest/',
      "src/graphql/lazy.ts imports src/sources/kairosdb/plan.ts: a layout's own module, below the layout seam",
      'src/orphan.ts is in no layer of LAYERS',
    ]);
  });
});
