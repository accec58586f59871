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

/**
 * How much of a process's main thread (where its JavaScript runs) was waiting for a CPU just
 * now: the scheduler's decayed averages of time runnable and time running (/proc/<pid>/sched,
 * PELT, ~32 ms half-life; 1024 = all the time), runnable minus running. 0 where unreadable.
 */
function waitingNow(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const text = readFileSync(`/proc/${pid}/sched`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^se\\.avg\\.${name}\\s*:\\s*(\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return Math.max(0, field('runnable_avg') - field('util_avg')) / 1024;
  } catch {
    return 0;
  }
}

/** Share of the stretch in which some task on the machine waited for a CPU (/proc/pressure/cpu `some`). */
function cpuPressureMicros(): number {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1] ?? 0);
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
  /** How long the stretch was (cores × seconds = CPU seconds). */
  seconds: number;
  /** Main threads of a group waiting for a CPU, on average (sampled every 100 ms): work held up by a busy machine. */
  waiting: Record<string, number>;
  /** Share of the stretch in which some task on the machine waited for a CPU. */
  pressure: number;
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
  const pressure = cpuPressureMicros();
  const waited: Record<string, number> = Object.fromEntries(Object.keys(groups).map((k) => [k, 0]));
  let samples = 0;
  const sampler = setInterval(() => {
    samples++;
    for (const [k, pids] of Object.entries(groups)) {
      let now = 0;
      for (const pid of pids) now += waitingNow(pid);
      waited[k] = (waited[k] ?? 0) + now;
    }
  }, 100);
  return () => {
    clearInterval(sampler);
    const secs = (performance.now() - t) / 1000;
    const used: Record<string, number> = {};
    for (const [k, pids] of Object.entries(groups)) used[k] = (sum(pids) - (before[k] ?? 0)) / secs;
    return {
      groups: used,
      machine: (machineBusySeconds() - machine) / secs,
      cores: os.cpus().length,
      seconds: secs,
      waiting: Object.fromEntries(Object.entries(waited).map(([k, v]) => [k, samples ? v / samples : 0])),
      pressure: (cpuPressureMicros() - pressure) / 1e6 / secs,
    };
  };
}

export function formatShares(c: CpuShares): string {
  const ours = Object.values(c.groups).reduce((a, b) => a + b, 0);
  return `${Object.entries(c.groups).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}; ours ${ours.toFixed(2)}, machine ${c.machine.toFixed(2)} of ${c.cores} cores; main threads waiting for a CPU: ${Object.entries(c.waiting).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}; some task waiting ${Math.round(c.pressure * 100)}% of the time`;
}

/** CPU seconds all the named groups used over the stretch (what the work needed, whoever waited). */
export function cpuSeconds(c: CpuShares): number {
  return Object.values(c.groups).reduce((a, b) => a + b, 0) * c.seconds;
}
