/**
 * The `kairograph` command: `--help` (every setting with its default), `--version`, `hash-secret` (a hash for
 * CREDENTIALS_FILE), and, with no arguments, the gateway itself. Exit codes: 0 done, 1 failed, 2 bad usage or
 * configuration.
 */
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { SETTINGS } from './config.js';
import { hashSecret, MIN_TOKEN_LENGTH, newToken, tokenHash } from '../http/hashes.js';

export const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** Runs the command `argv` names (the arguments after the program); resolves to the exit code, or never for `start`. */
export async function runCli(argv: readonly string[], start: () => Promise<void>): Promise<number | undefined> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'start') {
    if (rest.length > 0) return usage(`unknown argument ${JSON.stringify(rest[0])}`);
    await start();
    return undefined;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(help());
    return 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`kairograph ${VERSION}\n`);
    return 0;
  }
  if (command === 'hash-secret') return hashSecretCommand(rest);
  return usage(`unknown argument ${JSON.stringify(command)}`);
}

/** The help text: the commands, then every setting with its default, in docs/configuration.md's order. */
function help(): string {
  const settings = SETTINGS.map(
    (s) => `  ${s.env} (default: ${s.default === '' ? 'none' : s.default})\n${wrap(plain(s.meaning), 6)}`,
  ).join('\n');
  return `kairograph ${VERSION}: a GraphQL and KairosDB REST gateway over time series

Usage:
  kairograph                       start the gateway (GraphiQL at http://HOST:PORT/graphql)
  kairograph hash-secret           read a user's password on standard input, print its scrypt hash for CREDENTIALS_FILE
  kairograph hash-secret --generate
                                   make a new random API token and print it with its digest for CREDENTIALS_FILE
  kairograph hash-secret --token   read an API token on standard input, print its digest for CREDENTIALS_FILE
  kairograph --version             print the version
  kairograph --help                print this help

Settings come from the environment (docs/configuration.md):

${settings}
`;
}

async function hashSecretCommand(args: readonly string[]): Promise<number> {
  const unknown = args.find((arg) => arg !== '--generate' && arg !== '--token');
  if (unknown !== undefined) return usage(`unknown argument to hash-secret ${JSON.stringify(unknown)}`);
  if (args.includes('--generate') && args.includes('--token'))
    return usage('hash-secret takes --generate or --token, not both');
  if (args.includes('--generate')) {
    const token = newToken();
    process.stdout.write(`token: ${token}\nhash:  ${tokenHash(token)}\n`);
    process.stderr.write(
      'Give the token to the client (it is not stored anywhere) and put the hash in CREDENTIALS_FILE under "tokens".\n',
    );
    return 0;
  }
  const secret = await readSecret();
  if (secret === '') {
    process.stderr.write('kairograph: hash-secret read an empty secret from standard input\n');
    return 2;
  }
  if (args.includes('--token')) {
    // A digest is only as strong as what it hides: a short token could be found from it by trying them all.
    if (secret.length < MIN_TOKEN_LENGTH) {
      process.stderr.write(
        `kairograph: a token must have at least ${MIN_TOKEN_LENGTH} characters (got ${secret.length}): make one with \`kairograph hash-secret --generate\`\n`,
      );
      return 2;
    }
    process.stdout.write(`${tokenHash(secret)}\n`);
    return 0;
  }
  process.stdout.write(`${await hashSecret(secret)}\n`);
  return 0;
}

/** One line of standard input; on a terminal, asked for and not echoed. */
async function readSecret(): Promise<string> {
  const { stdin } = process;
  if (!stdin.isTTY) {
    const lines = createInterface({ input: stdin });
    for await (const line of lines) return line;
    return '';
  }
  process.stderr.write('secret (not shown): ');
  stdin.setRawMode(true);
  stdin.resume();
  let secret = '';
  try {
    for await (const chunk of stdin) {
      for (const char of (chunk as Buffer).toString('utf8')) {
        if (char === '\r' || char === '\n') return secret;
        if (char === '\u0003') throw new Error('interrupted');
        secret = char === '\u007f' ? secret.slice(0, -1) : secret + char;
      }
    }
    return secret;
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write('\n');
  }
}

function usage(message: string): number {
  process.stderr.write(`kairograph: ${message}; see kairograph --help\n`);
  return 2;
}

/** The meanings' Markdown as terminal text: links become their text, code spans lose their backticks. */
function plain(markdown: string): string {
  return markdown.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1').replace(/`([^`]*)`/g, '$1');
}

function wrap(text: string, indent: number, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => ' '.repeat(indent) + l).join('\n');
}
