/**
 * Where roll-up tasks live: KairosDB's own places in service_index (`RollUpTasksStoreImpl`,
 * `RollupTaskStatusStoreImpl`) — service `_Rollups`, service key `Config`, key = the task's id, value = the task's
 * JSON; service key `Status` for KairosDB's status of the last run — and Kairograph's own records beside them:
 * `_kairograph_rollups`/`status` (each task's progress and last run) and `_kairograph_rollup_claims`/<task id>
 * (one claim per period, service_index.claim; claimed and pruned by period-claims.ts), and who created each task
 * through the gateway: `_kairograph_rollups`/`owner` (task id → client) and `_kairograph_rollups`/`owner <client>`
 * (one key per task id), so a client's tasks are counted with one read. The metadata API refuses every `_` service,
 * so users cannot touch them.
 */
import type { ServiceIndex } from '../model/service-index.js';
import type { Sources } from '../sources/sources.js';
import { parseRollupTask, type ParseTaskOptions, type RollupTask } from './rollup-task.js';

const ROLLUPS_SERVICE = '_Rollups';
const CONFIG_KEY = 'Config';
const STATUS_KEY = 'Status';
const OWN_SERVICE = '_kairograph_rollups';
const OWN_STATUS_KEY = 'status';
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

/**
 * The primary source's roll-up tasks (KairosDB's API names no source), or undefined when its layout keeps no
 * service_index; `now` is the time relative times of a task's queries are read at.
 */
export function taskStoreOf(sources: Sources, now: () => number = Date.now): RollupTaskStore | undefined {
  const source = sources.primary;
  const index = source.capabilities.metadata?.index;
  if (index === undefined) return undefined;
  return new RollupTaskStore(index, () => ({ limits: source.limits, nowMs: now() }));
}

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

  /** Whether a task of this id is stored, parsed or not. */
  async exists(id: string): Promise<boolean> {
    return (await this.index.value(ROLLUPS_SERVICE, CONFIG_KEY, id)) !== undefined;
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
