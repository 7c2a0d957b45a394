/**
 * Where roll-up tasks live: KairosDB's own places in service_index (`RollUpTasksStoreImpl`,
 * `RollupTaskStatusStoreImpl`) — service `_Rollups`, service key `Config`, key = the task's id, value = the task's
 * JSON; service key `Status` for KairosDB's status of the last run — and Kairograph's own records beside them:
 * `_kairograph_rollups`/`status` (each task's progress and last run) and `_kairograph_rollup_claims`/<task id>
 * (one claim per period, service_index.claim), and who created each task through the gateway: `_kairograph_rollups`/
 * `owner` (task id → client) and `_kairograph_rollups`/`owner <client>` (one key per task id), so a client's tasks are
 * counted with one read. The metadata API refuses every `_` service, so users cannot touch them.
 */
import type { ServiceIndex } from '../sources/capabilities.js';
import { parseRollupTask, type ParseTaskOptions, type RollupTask } from './rollup-task.js';

export const ROLLUPS_SERVICE = '_Rollups';
export const CONFIG_KEY = 'Config';
export const STATUS_KEY = 'Status';
export const OWN_SERVICE = '_kairograph_rollups';
export const OWN_STATUS_KEY = 'status';
export const CLAIMS_SERVICE = '_kairograph_rollup_claims';
const OWNER_KEY = 'owner';

/** A stored task: parsed, or the reason it cannot run (KairosDB may hold tasks Kairograph cannot run). */
export type StoredTask =
  | {
      readonly id: string;
      readonly task: RollupTask;
      readonly json: string;
      readonly lastModifiedMs: number;
      readonly error?: undefined;
    }
  | {
      readonly id: string;
      readonly task?: undefined;
      readonly json: string;
      readonly lastModifiedMs: number;
      readonly error: string;
    };

export class RollupTaskStore {
  constructor(
    readonly index: ServiceIndex,
    private readonly parse: () => Omit<ParseTaskOptions, 'id'>,
  ) {}

  async ids(): Promise<string[]> {
    return this.index.keys(ROLLUPS_SERVICE, CONFIG_KEY);
  }

  async list(): Promise<StoredTask[]> {
    const ids = await this.ids();
    const tasks = await Promise.all(ids.map((id) => this.get(id)));
    return tasks.filter((task): task is StoredTask => task !== undefined);
  }

  async get(id: string): Promise<StoredTask | undefined> {
    const stored = await this.index.value(ROLLUPS_SERVICE, CONFIG_KEY, id);
    if (stored === undefined) return undefined;
    try {
      // The key is the task's id, whatever its JSON says (KairosDB's PUT could store a JSON with another).
      const task = parseRollupTask(stored.value, { ...this.parse(), id });
      return { id, task, json: stored.value, lastModifiedMs: stored.writtenMs };
    } catch (error) {
      return {
        id,
        json: stored.value,
        lastModifiedMs: stored.writtenMs,
        error: error instanceof Error ? error.message : String(error),
      };
    }
  }

  async put(task: RollupTask): Promise<number> {
    return this.index.set(ROLLUPS_SERVICE, CONFIG_KEY, task.id, task.json);
  }

  /** Removes the task, the statuses of it and its owner; its period claims stay, so a task recreated with its id never re-runs them. */
  async delete(id: string): Promise<void> {
    await this.index.delete(ROLLUPS_SERVICE, CONFIG_KEY, id);
    await this.index.delete(ROLLUPS_SERVICE, STATUS_KEY, id);
    await this.index.delete(OWN_SERVICE, OWN_STATUS_KEY, id);
    const owner = await this.owner(id);
    if (owner !== undefined) await this.index.delete(OWN_SERVICE, `${OWNER_KEY} ${owner}`, id);
    await this.index.delete(OWN_SERVICE, OWNER_KEY, id);
  }

  /** The client that created the task through the gateway; undefined for tasks KairosDB or an older gateway created. */
  async owner(id: string): Promise<string | undefined> {
    return (await this.index.value(OWN_SERVICE, OWNER_KEY, id))?.value;
  }

  async setOwner(id: string, client: string): Promise<void> {
    await this.index.set(OWN_SERVICE, `${OWNER_KEY} ${client}`, id, '');
    await this.index.set(OWN_SERVICE, OWNER_KEY, id, client);
  }

  /** How many tasks `client` owns. */
  async ownedBy(client: string): Promise<number> {
    return (await this.index.keys(OWN_SERVICE, `${OWNER_KEY} ${client}`)).length;
  }

  /**
   * Deletes up to `atMost` of the task's claims on periods that start before `beforeMs`; returns how many. The claims
   * service is written only by claim and complete otherwise: these rows are past every gateway's catch-up.
   */
  async pruneClaims(id: string, beforeMs: number, atMost: number): Promise<number> {
    const old = (await this.index.keys(CLAIMS_SERVICE, id))
      .filter((key) => claimStartMs(key) < beforeMs)
      .slice(0, atMost);
    for (const key of old) await this.index.delete(CLAIMS_SERVICE, id, key);
    return old.length;
  }

  async kairosStatus(id: string): Promise<string | undefined> {
    return (await this.index.value(ROLLUPS_SERVICE, STATUS_KEY, id))?.value;
  }

  async writeKairosStatus(id: string, json: string): Promise<void> {
    await this.index.set(ROLLUPS_SERVICE, STATUS_KEY, id, json);
  }

  async ownStatus(id: string): Promise<string | undefined> {
    return (await this.index.value(OWN_SERVICE, OWN_STATUS_KEY, id))?.value;
  }

  async writeOwnStatus(id: string, json: string): Promise<void> {
    await this.index.set(OWN_SERVICE, OWN_STATUS_KEY, id, json);
  }
}

/** The start of the period a claim key names (rollup-scheduler.ts, claimKey: the padded start, a space, the interval). */
function claimStartMs(key: string): number {
  const start = Number(key.split(' ', 1)[0]);
  return Number.isFinite(start) ? start : Number.POSITIVE_INFINITY;
}
