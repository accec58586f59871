import type { Job, Queue } from 'bullmq';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** Writes a config file for worker processes (credentials by env reference, as in production). */
export function writeConfig(config: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'calsync-test-'));
  const file = path.join(dir, 'calsync.config.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A real `calsync worker` process, as an operator would run it. */
/** `schedules`: the worker reconciles the config's schedules, as it does unless told `--no-schedules`. */
export function spawnWorker(opts: { config: string; redisUrl: string; prefix: string; env?: Record<string, string>; args?: string[]; schedules?: boolean }): WorkerProcess {
  const child = spawn(process.execPath, [CLI, '--config', opts.config, '--redis', opts.redisUrl, '--prefix', opts.prefix, '--log-level', 'warn', 'worker', ...(opts.schedules ? [] : ['--no-schedules']), ...(opts.args ?? [])], {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out = (out + d).slice(-20_000)));
  child.stderr?.on('data', (d) => (out = (out + d).slice(-20_000)));
  return {
    child,
    output: () => out,
    kill: (signal = 'SIGKILL') =>
      new Promise((resolve) => {
        // A process killed by a signal has no exit code, only a signal code.
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Polls a planner job (CSV import, sync) until its flow's finish job has ended, and returns that
 * job. Polling rather than QueueEvents, because tests kill the workers that would emit events.
 */
export async function waitForFinish(queue: Queue, planner: Job, timeoutMs = 180_000, everyMs = 100): Promise<Job> {
  const plan = await waitFor('the plan', async () => (await queue.getJob(planner.id as string))?.returnvalue as { finishJobId: string } | undefined, timeoutMs, everyMs);
  return waitFor('the finish job', async () => {
    const j = await queue.getJob(plan.finishJobId);
    return j?.finishedOn ? j : undefined;
  }, timeoutMs, everyMs);
}
