/**
 * Waits for every promise, then rejects with the first failure if any failed: for work that must not be left running
 * behind an early rejection (writes in flight, resources being closed).
 */
export async function settleAll(promises: readonly Promise<unknown>[]): Promise<void> {
  const outcomes = await Promise.allSettled(promises);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}
