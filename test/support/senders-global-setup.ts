// Vitest globalSetup of the `senders` project: a real Telegraf (tools/telegraf/build.sh, built from the Go module proxy
// on a machine's first run) and a real collectd (tools/collectd/fetch.sh, Debian's package unpacked), their paths handed
// to tests through inject(). Each test starts and stops its own sender: they run for seconds.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { runFetch } from './supervised-script.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Telegraf binary. */
    telegraf: string;
    /** The root collectd is unpacked in: `usr/sbin/collectd`, `usr/lib/collectd/`, `usr/share/collectd/types.db`. */
    collectd: string;
  }
}

const TOOLS = fileURLToPath(new URL('../../tools/', import.meta.url));

export default async function setup(project: TestProject): Promise<void> {
  // Both in turn: each prints why it takes long on a fresh machine, and a build of Telegraf wants both cores.
  await runFetch('tools/telegraf/build.sh', `${TOOLS}telegraf/build.sh`);
  await runFetch('tools/collectd/fetch.sh', `${TOOLS}collectd/fetch.sh`);
  const path = (script: string) =>
    execFileSync('bash', [`${TOOLS}${script}`, '--print-path'], { encoding: 'utf8' }).trim();
  project.provide('telegraf', path('telegraf/build.sh'));
  project.provide('collectd', path('collectd/fetch.sh'));
}
