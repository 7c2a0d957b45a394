/**
 * Log lines: JSON for collectors, readable lines on a terminal, and no credential in either.
 */
import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLogger } from './log.js';

function sink(isTTY: boolean) {
  const lines: string[] = [];
  const stream = Object.assign(
    new Writable({
      write: (chunk, _, done) => {
        lines.push(String(chunk));
        done();
      },
    }),
    {
      isTTY,
    },
  );
  return { stream, lines };
}

it('writes JSON when the output is not a terminal, and readable lines when it is', async () => {
  const pipe = sink(false);
  createLogger('info', 'auto', pipe.stream).info({ route: '/graphql', status: 200 }, 'graphql request');
  const terminal = sink(true);
  createLogger('info', 'auto', terminal.stream).info(
    {
      route: '/graphql',
      status: 200,
      statistics: { storeCalls: { total: 5 }, queries: [{ pointsRead: 20, pointsReturned: 2 }] },
    },
    'graphql request',
  );
  await new Promise((resolve) => setImmediate(resolve));
  expect(JSON.parse(pipe.lines.join(''))).toMatchObject({
    level: 30,
    service: 'kairograph',
    route: '/graphql',
    status: 200,
    msg: 'graphql request',
  });
  expect(terminal.lines.join('')).toMatch(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour codes are what is tested.
    /^\d\d:\d\d:\d\d\.\d{3} \u001b\[32mINFO \u001b\[0m graphql request {2}route=\/graphql status=200 queries=1 pointsRead=20 pointsReturned=2 storeCalls=5\n$/,
  );
});

it('shows an error with its stack under the line when pretty', async () => {
  const out = sink(false);
  createLogger('info', 'pretty', out.stream).error({ err: new Error('boom') }, 'unexpected error');
  await new Promise((resolve) => setImmediate(resolve));
  expect(out.lines.join('')).toMatch(/ERROR unexpected error\n {4}Error: boom\n {8}at /);
});

it('redacts credentials wherever a header or password is logged', async () => {
  const out = sink(false);
  createLogger('info', 'json', out.stream).info(
    { req: { headers: { authorization: 'Basic c2VjcmV0', 'x-kairograph-token': 'kg_secret' } }, password: 'hunter2' },
    'oops',
  );
  await new Promise((resolve) => setImmediate(resolve));
  const text = out.lines.join('');
  expect(text).not.toMatch(/c2VjcmV0|kg_secret|hunter2/);
  expect(text).toContain('"authorization":"[redacted]"');
});
