/**
 * The roll-up service's settings, its own typed object: the gateway builds it from its Config (rollupSettings), tests
 * and benchmarks write it out. Each module of src/rollups takes the part it needs.
 */

export interface RollupSettings {
  /** ROLLUPS_POLL_MS: how often tasks are read again from service_index (tasks other gateways or KairosDB changed). */
  readonly pollMs: number;
  /**
   * ROLLUPS_MAX_CATCH_UP_PERIODS: most periods one task catches up after downtime; older missed periods are skipped,
   * and the status says which.
   */
  readonly maxCatchUpPeriods: number;
  /** ROLLUPS_LEASE_MS: how long a claim on a period lasts: a gateway that dies holding one leaves it to another after this. */
  readonly leaseMs: number;
  /** ROLLUPS_DELAY_MS: how long after a period ends it is rolled up, so points that arrive a little late are in it. */
  readonly delayMs: number;
  /** ROLLUPS_MIN_INTERVAL_MS: the shortest execution interval of a task created or changed through the gateway. */
  readonly minIntervalMs: number;
  /** QUOTA_ROLLUP_TASKS: the most tasks one client may own; 0 for no bound. */
  readonly maxTasksPerClient: number;
}

/** What a gateway's Config gives the roll-up service. */
export function rollupSettings(config: {
  readonly rollupsPollMs: number;
  readonly rollupsMaxCatchUpPeriods: number;
  readonly rollupsLeaseMs: number;
  readonly rollupsDelayMs: number;
  readonly rollupsMinIntervalMs: number;
  readonly quotaRollupTasks: number;
}): RollupSettings {
  return {
    pollMs: config.rollupsPollMs,
    maxCatchUpPeriods: config.rollupsMaxCatchUpPeriods,
    leaseMs: config.rollupsLeaseMs,
    delayMs: config.rollupsDelayMs,
    minIntervalMs: config.rollupsMinIntervalMs,
    maxTasksPerClient: config.quotaRollupTasks,
  };
}
