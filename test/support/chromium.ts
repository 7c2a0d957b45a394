/**
 * A headless Chromium for browser tests: Debian's package, installed by the test run itself when the machine has
 * none (CI machines start without it), driven with playwright-core. Playwright's own browser download cannot work
 * on machines that reach only package registries.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env['KAIROGRAPH_CHROMIUM'] ?? '/usr/bin/chromium';

/** Installs Debian's chromium with apt-get when it is missing; fails with the way out when that is not possible. */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium) or set KAIROGRAPH_CHROMIUM to a Chromium binary`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env, timeout: 300_000 });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env, timeout: 600_000 });
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} does not exist`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // Without the background-networking flags Chromium keeps dialing Google, which this network refuses.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
