// Owns a real Bigtable (Google's emulator) for tests: builds it once (tools/bigtable/build.sh), boots one through
// tools/bigtable/run.sh (or reuses KAIROGRAPH_BIGTABLE=host:port with KAIROGRAPH_BIGTABLE_WRITER) and makes sure it
// never outlives this process (test/support/supervised-script.ts: run.sh stops it when our end of its stdin closes).
import { fileURLToPath } from 'node:url';
import { runFetch, supervise } from './supervised-script.js';

export interface BigtableServer {
  /** `127.0.0.1:<port>`, what BIGTABLE_EMULATOR_HOST takes. */
  readonly endpoint: string;
  /** heroic-writer: Heroic's writes through Google's Go client (tools/bigtable/heroic-writer). */
  readonly writer: string;
  /** The emulator's pid; 0 for a reused one. */
  readonly pid: number;
  readonly bootMs: number;
  /** Stops the emulator by its pid (through run.sh) and deletes its dir; a no-op for a reused one. Safe twice. */
  stop(): Promise<void>;
}

const TOOLS = fileURLToPath(new URL('../../tools/bigtable/', import.meta.url));
const RUN_SH_STOP_TIMEOUT_S = 5;

export async function startBigtable(): Promise<BigtableServer> {
  const reuse = (process.env.KAIROGRAPH_BIGTABLE ?? '').trim();
  const writer = (process.env.KAIROGRAPH_BIGTABLE_WRITER ?? '').trim();
  if (reuse !== '') {
    if (writer === '') throw new Error('KAIROGRAPH_BIGTABLE needs KAIROGRAPH_BIGTABLE_WRITER (a heroic-writer binary)');
    return { endpoint: reuse, writer, pid: 0, bootMs: 0, stop: async () => {} };
  }
  // Apart from the boot: on a fresh machine this is a Go build of minutes, with its own output.
  await runFetch('tools/bigtable/build.sh', `${TOOLS}build.sh`);
  const { ready, stop } = await supervise({
    label: 'Bigtable',
    scriptName: 'tools/bigtable/run.sh',
    scriptPath: `${TOOLS}run.sh`,
    args: ['--timeout', '30'],
    env: { KAIROGRAPH_BIGTABLE_STOP_TIMEOUT: String(RUN_SH_STOP_TIMEOUT_S) },
    readyPrefix: 'KAIROGRAPH_BIGTABLE_READY ',
    readyMeans: 'accept connections',
    bootTimeoutMs: 30_000,
    stopBackstopMs: (RUN_SH_STOP_TIMEOUT_S + 10) * 1000,
  });
  try {
    return {
      endpoint: `127.0.0.1:${ready.int('port')}`,
      writer: ready.fields.get('writer') ?? '',
      pid: ready.pid,
      bootMs: ready.int('boot_ms'),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
