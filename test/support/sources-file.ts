/** SOURCES_FILE in a test: a file of sources in a scratch directory, and the gateway's configuration that names it. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/gateway/config.js';
import { tempDir } from './temp-dir.js';

/** A SOURCES_FILE holding `content` (JSON.stringify of anything but a string), and the settings that name it. */
export function sourcesFile(content: unknown, env: Record<string, string> = {}) {
  const path = join(tempDir(), 'sources.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return { path, config: loadConfig({ SOURCES_FILE: path, ...env }) };
}
