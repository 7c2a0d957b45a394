/**
 * The docs' walk-throughs as tests: a section's code blocks read out of the doc page itself, and the gateway started
 * as a user starts it (its own process, configured by the environment), so docs and behaviour cannot drift apart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The text of the section `heading` (a `##` or `###` title) of the Markdown file `page` (relative to the repository),
 * up to the next heading of its level or above outside code blocks.
 */
export function docSection(page: string, heading: string): string {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
  const start = lines.findIndex((line) => line === `## ${heading}` || line === `### ${heading}`);
  if (start < 0) throw new Error(`${page} has no section "${heading}"`);
  const level = lines[start]!.indexOf(' ');
  let fenced = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    const line = lines[end]!;
    if (line.startsWith('```')) fenced = !fenced;
    const hashes = /^(#+) /.exec(line)?.[1]?.length;
    if (!fenced && hashes !== undefined && hashes <= level) break;
  }
  return lines.slice(start, end).join('\n');
}

/** The section's code blocks of one language, in order. */
export function codeBlocks(section: string, language: string): string[] {
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

export interface GatewayProcess {
  readonly url: string;
  /** Posts a GraphQL query; the parsed body. */
  ask(query: string): Promise<{ data?: Record<string, unknown>; errors?: unknown[] }>;
  stop(): Promise<void>;
}

/** `node src/main.ts` with `env` on a free port; resolves once it listens (rejects if it exits first). */
export async function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], {
    env: { ...process.env, SEED_DEMO: 'false', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((done) => child.once('exit', done));
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the gateway exited (${code}) before it listened`)));
      // Every line is read, since a full pipe would stall the server.
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (typeof entry['url'] === 'string') resolve(entry['url']);
      });
    });
    const ask: GatewayProcess['ask'] = async (query) => {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    };
    return { url, ask, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
