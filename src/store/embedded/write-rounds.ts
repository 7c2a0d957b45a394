/**
 * The embedded store's writes, run in rounds: one LMDB transaction takes every write waiting when it starts, each in a
 * child transaction of its own, so a write that throws rolls back alone; the round's writes are acknowledged together
 * once the transaction is on disk. One round commits at a time: a write changes the head (head.ts) in its callback,
 * and only with no other round's callbacks run since can a failed commit put the head back exactly as it was, its
 * writes undone last first. The next round starts once this one has committed, while lmdb-js syncs it to disk.
 */
import type { RootDatabase } from 'lmdb';
import { HeadChanges, type Head } from './head.js';

interface Job {
  readonly work: (changes: HeadChanges) => void;
  readonly changes: HeadChanges;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  failure?: { error: unknown };
}

export class WriteRounds {
  private readonly waiting: Job[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly env: RootDatabase,
    private readonly head: Head,
    /** Called when a round's commit fails, before its writes are rejected. */
    private readonly onCommitFailure: () => void,
  ) {}

  /** Runs `work` in the next round; resolves once it is durable, rejects with what it threw or what failed the commit. */
  run(work: (changes: HeadChanges) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ work, changes: new HeadChanges(this.head), resolve, reject });
      this.running ??= this.rounds();
    });
  }

  /** Resolves once no round runs or waits. */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  private async rounds(): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.round();
    } finally {
      this.running = undefined;
    }
  }

  private async round(): Promise<void> {
    let jobs: Job[] = [];
    try {
      await this.env.transaction(() => {
        // Taken when LMDB opens the transaction, not when the round began: writes that came meanwhile join it.
        jobs = this.waiting.splice(0);
        for (const job of jobs) {
          try {
            this.env.childTransaction(() => job.work(job.changes));
          } catch (error) {
            job.changes.undo();
            job.failure = { error };
          }
        }
      });
    } catch (commitFailure) {
      // A transaction that never opened ran none of them.
      if (jobs.length === 0) jobs = this.waiting.splice(0);
      for (let i = jobs.length - 1; i >= 0; i--) if (jobs[i]!.failure === undefined) jobs[i]!.changes.undo();
      this.onCommitFailure();
      for (const job of jobs) job.reject(job.failure?.error ?? commitFailure);
      return;
    }
    // Committed, and what readers see: the head lets go of what the round wrote to data_points. Should the process die
    // before the commit is on disk, LMDB opens at an earlier commit, whose log still holds those cells.
    for (const job of jobs) if (job.failure === undefined) job.changes.committed();
    // Acknowledged once on disk. lmdb-js syncs a commit while the next transaction runs: the next round starts now.
    this.env.flushed.then(
      () => {
        for (const job of jobs) {
          if (job.failure === undefined) job.resolve();
          else job.reject(job.failure.error);
        }
      },
      (error: unknown) => {
        for (const job of jobs) job.reject(job.failure?.error ?? error);
      },
    );
  }
}
