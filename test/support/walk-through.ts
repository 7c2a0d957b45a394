/**
 * The README's walk-throughs as tests: a section's code blocks read out of README.md itself, and the gateway started as
 * a user starts it (its own process, configured by the environment), so docs and behaviour cannot drift apart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The text of the README's section `heading` (a `###` title), up to the next heading of any level. */
export function readmeSection(heading: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`### ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "${heading}"`);
  const next = readme.slice(start + 4).search(/\n#{2,3} /);
  return readme.slice(start, next < 0 ? undefined : start + 4 + next);
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
