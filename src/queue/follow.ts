import type { Job, Queue, QueueEvents } from 'bullmq';
import { JobStateMissingError } from './job-errors.ts';

/** A planner's result: the run continues in a flow whose root is `finishJobId`. */
export interface Planned {
  finishJobId: string;
  /** CSV: chunk jobs. A sync adds its page jobs while it reads the source: their number is not known yet. */
  chunks?: number;
}

/** Units of work (chunk or page jobs) a plan fanned out into (when known), and the prefix of their job ids. */
export function planUnits(p: Planned): { total?: number; jobIdPrefix: string } {
  return { total: p.chunks, jobIdPrefix: p.finishJobId.replace(/-finish$/, '') };
}

const isPlanned = (x: unknown): x is Planned => !!x && typeof x === 'object' && typeof (x as Planned).finishJobId === 'string';

/**
 * Waits for a run to end: the job itself, or for a planner (CSV import, sync) the flow's finish
 * job, whose result is the run's report. `onJob` hears of each job followed (for progress).
 */
export async function waitForRun(job: Job, queue: Queue, events: QueueEvents, opts: { timeoutMs?: number; onPlanned?: (plan: Planned) => void } = {}): Promise<unknown> {
  const result = await finished(job, events, opts.timeoutMs);
  if (!isPlanned(result)) return result;
  const finish = await queue.getJob(result.finishJobId);
  if (!finish) throw new JobStateMissingError(`the run's finish job ${result.finishJobId} is gone (removed by retention?)`);
  opts.onPlanned?.(result);
  return finished(finish, events, opts.timeoutMs);
}

/** How often a wait looks at the job's state again, besides listening for its events. */
const RECHECK_MS = 2000;

/**
 * A job's result once it finished (its error when it failed). BullMQ's wait listens for the job's
 * events and looks at its state once, when it starts; an event its listener missed (one emitted
 * before the listener's first read of the stream: seen on a loaded machine, `enqueue --wait` then
 * waited forever for a job that had completed) would leave it waiting. So the wait is renewed every
 * RECHECK_MS, each renewal looking at the state again.
 */
async function finished(job: Job, events: QueueEvents, timeoutMs?: number): Promise<unknown> {
  const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
  for (;;) {
    try {
      return await job.waitUntilFinished(events, Math.max(1, Math.min(RECHECK_MS, deadline - Date.now())));
    } catch (err) {
      const state = await job.getState();
      // Finished meanwhile (its event missed): a new wait's first look gives its result or its error.
      if (state === 'completed' || state === 'failed') return job.waitUntilFinished(events, RECHECK_MS);
      if (Date.now() >= deadline) throw err;
    }
  }
}

/**
 * Calls `onNone` once if, `afterMs` after it is started, no worker listens on the queue and the
 * job has not started: a job enqueued on a Redis no worker uses would otherwise wait in silence.
 * Returns a function that cancels the check.
 */
export function warnIfNoWorker(queue: Queue, job: Job, onNone: () => void, afterMs = 3000): () => void {
  const timer = setTimeout(async () => {
    try {
      const [workers, state] = await Promise.all([queue.getWorkers(), job.getState()]);
      if (workers.length === 0 && (state === 'waiting' || state === 'prioritized' || state === 'delayed')) onNone();
    } catch {
      // The check is advice; a Redis hiccup here must not fail the command.
    }
  }, afterMs);
  timer.unref();
  return () => clearTimeout(timer);
}
