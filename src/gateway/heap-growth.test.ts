import { describe, expect, it } from 'vitest';
import { fixHeapGrowth } from './heap-growth.js';

describe('fixHeapGrowth', () => {
  it.each([
    [['--heap-growing-percent=50'], ''],
    [['--heap_growing_percent', '50'], ''],
    [[], '--max-old-space-size=4096 --heap-growing-percent=25'],
  ])('leaves a growing percent node was given alone (%j, %j)', (execArgv, nodeOptions) => {
    expect(fixHeapGrowth(execArgv, nodeOptions)).toBe(false);
  });

  it('sets it otherwise, whatever other options node has', () => {
    expect(fixHeapGrowth(['--enable-source-maps'], '--max-old-space-size=4096')).toBe(true);
  });
});
