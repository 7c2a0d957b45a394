/**
 * The CPU time of a local server process, for benchmarks that split a run's CPU between Node and the server it talks
 * to: found by the TCP port it listens on (/proc/net/tcp* and /proc/<pid>/fd), read from /proc/<pid>/stat.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** The pid of the local process listening on `port`, or undefined when none is visible (another user's, no /proc). */
export function pidListeningOn(port: number): number | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; the inode is the 10th field.
      if (fields.length > 9 && fields[3] === '0A' && parseInt(fields[1]!.split(':')[1]!, 16) === port)
        inodes.add(fields[9]!);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${entry}/fd/${fd}`);
        if (target.startsWith('socket:[') && inodes.has(target.slice(8, -1))) return Number(entry);
      } catch {
        // The descriptor closed while we looked.
      }
    }
  }
  return undefined;
}

/** User plus system CPU seconds the process has used, children not included. */
export function cpuSeconds(pid: number): number {
  // The command name may hold spaces and parentheses; the fields after its closing parenthesis are fixed.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** USER_HZ: what /proc counts CPU time in; 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;
