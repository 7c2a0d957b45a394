/**
 * The configuration blocks of docs/ that tests run with real senders: a block is the fenced code block after a line
 * `<!-- tested: <id> -->`, so what a reader copies is what the test ran, and moving, renaming or dropping a block fails
 * the test that names it rather than leaving a config no test runs.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));

/** The text of the fenced block marked `id` in `docs/<doc>`, without its fences. */
export function docsBlock(doc: string, id: string): string {
  const lines = readFileSync(`${DOCS}${doc}`, 'utf8').split('\n');
  const marker = `<!-- tested: ${id} -->`;
  const at = lines.flatMap((line, index) => (line.trim() === marker ? [index] : []));
  if (at.length !== 1) throw new Error(`docs/${doc} must hold "${marker}" once, found ${at.length}`);
  const open = at[0]! + 1;
  if (!lines[open]?.startsWith('```')) throw new Error(`docs/${doc}: "${marker}" must be followed by a fenced block`);
  const close = lines.findIndex((line, index) => index > open && line.startsWith('```'));
  if (close < 0) throw new Error(`docs/${doc}: the block after "${marker}" is not closed`);
  return lines.slice(open + 1, close).join('\n');
}

/**
 * `block` with each placeholder replaced (the docs' host, ports and credentials by the test's); a placeholder the block
 * no longer holds fails, so the test never quietly runs a block that still points at the docs' example host.
 */
export function fill(block: string, values: Readonly<Record<string, string>>): string {
  let text = block;
  for (const [placeholder, value] of Object.entries(values)) {
    if (!text.includes(placeholder)) throw new Error(`the docs block no longer holds "${placeholder}":\n${block}`);
    text = text.replaceAll(placeholder, value);
  }
  return text;
}
