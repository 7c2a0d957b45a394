/**
 * Heroic's writes through Google's Go client (tools/bigtable/heroic-writer), for tests that must read rows no
 * Kairograph code wrote, and its reading of every cell back, for tests that check what Kairograph wrote.
 */
import { execFileSync } from 'node:child_process';

export interface Cell {
  readonly row: string;
  readonly family: string;
  readonly qualifier: string;
  readonly value: string;
  /** Absent: the server's time, as Heroic writes (-1). */
  readonly micros?: number;
}

export interface Place {
  readonly endpoint: string;
  readonly writer: string;
  readonly project: string;
  readonly instance: string;
}

/** Creates the table with Heroic's families when missing, then writes the cells in order, one request each. */
export function heroicWrite(place: Place, cells: readonly Cell[]): void {
  run(place, [], cells.map((c) => JSON.stringify(c)).join('\n'));
}

/** Every cell of the table, every version, sorted by row, family, qualifier and time (newest first, as Bigtable). */
export function readAllCells(place: Place): Cell[] {
  const out = run(place, ['-read'], '');
  const cells = out
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Required<Cell>);
  return cells.sort(
    (a, b) =>
      a.row.localeCompare(b.row) ||
      a.family.localeCompare(b.family) ||
      a.qualifier.localeCompare(b.qualifier) ||
      b.micros - a.micros,
  );
}

function run(place: Place, args: string[], input: string): string {
  return execFileSync(place.writer, ['-project', place.project, '-instance', place.instance, ...args], {
    input,
    env: { ...process.env, BIGTABLE_EMULATOR_HOST: place.endpoint },
    encoding: 'utf8',
    timeout: 60_000,
  });
}
