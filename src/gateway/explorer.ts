/**
 * The explorer page at `/` (explorer/ at the project root, plain files: no build step) and the charting library it
 * uses, uPlot, served from its npm package (a dependency: no CDN, no bundler).
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** src/gateway and dist/gateway are both two levels below the project root, where explorer/ lives. */
const EXPLORER_DIR = fileURLToPath(new URL('../../explorer/', import.meta.url));

const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** Every path the explorer serves → its file; nothing else is read, whatever the URL says. */
function files(): Map<string, string> {
  const served = new Map<string, string>([
    ['/', join(EXPLORER_DIR, 'index.html')],
    ['/explorer/explorer.js', join(EXPLORER_DIR, 'explorer.js')],
    ['/explorer/chart.js', join(EXPLORER_DIR, 'chart.js')],
    ['/explorer/explorer.css', join(EXPLORER_DIR, 'explorer.css')],
  ]);
  const uPlot = dirname(createRequire(import.meta.url).resolve('uplot'));
  served.set('/explorer/vendor/uPlot.iife.min.js', join(uPlot, 'uPlot.iife.min.js'));
  served.set('/explorer/vendor/uPlot.min.css', join(uPlot, 'uPlot.min.css'));
  return served;
}

/** A handler that answers the explorer's paths (GET and HEAD) and returns false for every other request. */
export function createExplorerHandler(): (req: IncomingMessage, res: ServerResponse) => boolean {
  const served = files();
  // Read once: a few small files, and the page must not wait on the disk.
  const bodies = new Map([...served].map(([path, file]) => [path, readFileSync(file)]));
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const body = bodies.get(path);
    if (body === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    res.writeHead(200, {
      'content-type': TYPES[served.get(path)!.split('.').at(-1)!] ?? 'application/octet-stream',
      'content-length': body.length,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
