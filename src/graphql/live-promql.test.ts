/** Where livePromql's window starts as now moves on: in place, then forward by whole steps once it has grown. */
import { describe, expect, it } from 'vitest';
import { movedStart } from './live-promql.js';

describe('movedStart', () => {
  it('keeps the start until the window is twice its length, then moves it by whole steps to its length again', () => {
    // A 60s window at a 15s step, from 0.
    expect(movedStart(0, 60_000, 15_000, 120_000)).toBe(0);
    // At 121s: 61s past its length; 4 whole steps (60s) forward, so it starts on one of the steps it had.
    expect(movedStart(0, 60_000, 15_000, 121_000)).toBe(60_000);
    expect(movedStart(0, 60_000, 15_000, 200_000)).toBe(135_000);
  });

  it('moves a window that would pass 11,000 steps before it is twice its length', () => {
    // 10,000 steps of 1s: at 22,000s it has 22,000 steps, but it moves once it has more than 11,000.
    expect(movedStart(0, 10_000_000, 1000, 11_000_000)).toBe(0);
    expect(movedStart(0, 10_000_000, 1000, 11_000_001)).toBe(1_000_000);
  });

  it('never moves a window of no length (from now)', () => {
    expect(movedStart(5000, 0, 1000, 10_000_000)).toBe(5000);
  });
});
