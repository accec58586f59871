import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * CPU time of named processes over a stretch of a bench, against the whole machine's: on a
 * shared 2-core machine a figure that does not scale is explained by who had the cores.
 * Linux /proc only (elsewhere every figure is 0); /proc counts in USER_HZ, 100 per second.
 */
const HZ = 100;

function processSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const rest = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()!.split(' ');
    return (Number(rest[11]) + Number(rest[12])) / HZ;
  } catch {
    return 0;
  }
}

function machineBusySeconds(): number {
  try {
    const [, user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0)) / HZ;
  } catch {
    return 0;
  }
}

export interface CpuShares {
  /** Cores each group used on average over the stretch (a group sums its processes). */
  groups: Record<string, number>;
  /** Cores busy on the whole machine (every process, other users' too), and how many it has. */
  machine: number;
  cores: number;
}

/** Starts measuring; the returned function ends the stretch. */
export function cpuShares(groups: Record<string, (number | undefined)[]>): () => CpuShares {
  const t = performance.now();
  const sum = (pids: (number | undefined)[]): number => {
    let total = 0;
    for (const pid of pids) total += processSeconds(pid);
    return total;
  };
  const before = Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, sum(pids)]));
  const machine = machineBusySeconds();
  return () => {
    const secs = (performance.now() - t) / 1000;
    const used: Record<string, number> = {};
    for (const [k, pids] of Object.entries(groups)) used[k] = (sum(pids) - (before[k] ?? 0)) / secs;
    return {
      groups: used,
      machine: (machineBusySeconds() - machine) / secs,
      cores: os.cpus().length,
    };
  };
}

export function formatShares(c: CpuShares): string {
  const ours = Object.values(c.groups).reduce((a, b) => a + b, 0);
  return `${Object.entries(c.groups).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}; ours ${ours.toFixed(2)}, machine ${c.machine.toFixed(2)} of ${c.cores} cores`;
}
