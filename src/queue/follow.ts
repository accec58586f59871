import type { Job, Queue, QueueEvents } from 'bullmq';
import { JobStateMissingError } from './job-errors.ts';

/** A planner's result: the run continues in a flow whose root is `finishJobId`. */
export interface Planned {
  finishJobId: string;
  /** CSV: chunk jobs. */
  chunks?: number;
  /** A sync's languages, each with a planner (`sync-plan`) that adds its page jobs while it reads the source. */
  languages?: unknown[];
}

/** A reading of a planned run's progress: its chunk or page jobs done, of how many when known. */
export type UnitsProgress = { phase: 'write (jobs)'; done: number; total?: number };

/**
 * Counts the chunk or page jobs of a planned run as they complete. A CSV plan says how many there
 * are; a sync's planners (`sync-plan`, one per language) add page jobs while they read the source,
 * so its total is known once each planner has said how many pages it added (one may say so before
 * the run's plan is known here).
 */
export class FlowUnits {
  private plan?: { prefix: string; total?: number; planners: number };
  private done = 0;
  private readonly planners = new Map<string, number>();
  private readonly onUpdate: (p: UnitsProgress) => void;

  constructor(onUpdate: (p: UnitsProgress) => void) {
    this.onUpdate = onUpdate;
  }

  planned(p: Planned): void {
    // `csv-7-`, with its dash: `csv-7` alone also matched run 70's jobs (`csv-70-chunk-0`).
    this.plan = { prefix: p.finishJobId.replace(/finish$/, ''), total: p.chunks, planners: p.chunks === undefined ? (p.languages?.length ?? 0) : 0 };
    this.settle();
  }

  /** A `sync-plan` job completed with `returnvalue` (as QueueEvents gives it). */
  plannerDone(jobId: string, returnvalue: unknown): void {
    const pages = plannedPages(returnvalue);
    if (pages === undefined) return;
    this.planners.set(jobId, pages);
    if (this.settle() && this.done > 0) this.onUpdate({ phase: 'write (jobs)', done: this.done, total: this.plan?.total });
  }

  /** A job of the queue completed: counted when it is one of the run's chunk or page jobs. */
  jobDone(jobId: string): void {
    if (!this.plan || !jobId.startsWith(this.plan.prefix) || !/-(page|chunk)-\d+$/.test(jobId)) return;
    this.onUpdate({ phase: 'write (jobs)', done: ++this.done, total: this.plan.total });
  }

  /** Sets the total once every planner of the run has said its pages; whether it did now. */
  private settle(): boolean {
    const plan = this.plan;
    if (!plan?.planners || plan.total !== undefined) return false;
    const mine = [...this.planners].filter(([id]) => id.startsWith(plan.prefix));
    if (mine.length !== plan.planners) return false;
    plan.total = mine.reduce((n, [, pages]) => n + pages, 0);
    return true;
  }
}

/** The pages a sync planner's job added, from its return value as QueueEvents gives it (JSON text). */
function plannedPages(returnvalue: unknown): number | undefined {
  try {
    const v = (typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue) as { pages?: unknown } | null;
    return typeof v?.pages === 'number' && Number.isSafeInteger(v.pages) && v.pages >= 0 ? v.pages : undefined;
  } catch {
    return undefined;
  }
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
      // In no list of its queue: Redis lost it (restarted without its data) or it was removed. Its
      // worker cannot finish it either (BullMQ: "Missing key for job"), so the wait would never end.
      if (state === 'unknown') throw new JobStateMissingError(`job ${job.id} (${job.name}) is no longer in Redis (was Redis restarted without its data, or the job removed?): what it did is unknown; see \`calsync runs\` and enqueue it again`);
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
