/**
 * A clock tests move by hand (the roll-up scheduler's Clock): no real sleeps, timers fire as it passes them.
 */
import type { Clock } from '../../src/rollups/rollup-scheduler.js';

/** A clock tests move by hand; timers fire as it passes them. */
export class FakeClock implements Clock {
  private timers: { at: number; run: () => void }[] = [];
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  setTimeout(run: () => void, ms: number): () => void {
    const timer = { at: this.t + ms, run };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((other) => other !== timer);
    };
  }
  /** Moves to `t`, firing each timer due on the way at its time. */
  async advanceTo(t: number, settle: () => Promise<void>): Promise<void> {
    for (;;) {
      const due = this.timers.filter((timer) => timer.at <= t).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.t = Math.max(this.t, due.at);
      due.run();
      await settle();
    }
    this.t = t;
  }
}
