/**
 * vitest globalSetup of the e2e project: makes sure a Chromium exists before any browser test starts.
 */
import { ensureChromium } from './chromium.js';

export default function setup(): void {
  ensureChromium();
}
