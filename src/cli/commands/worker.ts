import type { Command } from 'commander';
import type { Redis } from 'ioredis';
import { QueueEvents, type Job, type Queue } from 'bullmq';
import { JOBS } from '../../../jobs/index.ts';
import type { CalsyncConfig } from '../../config/schema.ts';
import { QUEUES, type Family, type QueueName } from '../../queue/names.ts';
import { reconcileSchedulers } from '../../queue/schedulers.ts';
import { openQueues, startWorkers } from '../../queue/worker.ts';
import { bullConnection, firstErrorLogged } from '../../queue/connection.ts';
import { FlowUnits, waitForRun, warnIfNoWorker } from '../../queue/follow.ts';
import { exportSummary, isExportSummary } from '../../export/summary.ts';
import { reportExitCode, type ReportJson } from '../../report/report.ts';
import { reportText } from '../outcome.ts';
import { createLogger, type Logger } from '../../util/log.ts';
import { terminalSafe } from '../../util/terminal.ts';
import { ProgressLine } from '../progress.ts';
import { commandRedis, loadCliConfig, type GlobalOptions } from '../runtime.ts';
import { splitList } from '../options.ts';
import { OptionsError } from '../validate.ts';

type SetExit = (code: number) => void;

/** `calsync worker` and `calsync enqueue`: the two ends of the queue. */
export function registerWorker(program: Command, globals: () => GlobalOptions, setExit: SetExit): void {
  program
    .command('worker')
    .description('Run job processors for all queues (or --queues), reconcile the config\'s schedules, shut down gracefully on SIGTERM/SIGINT')
    .option('--queues <list>', `queues to work: ${QUEUES.join(',')}`, splitList)
    .option('--no-schedules', 'do not reconcile job schedulers with the config')
    .addHelpText('after', '\nExamples:\n  $ REDIS_URL=redis://127.0.0.1:6379 calsync --config calsync.config.json worker\n  $ calsync worker --queues import')
    .action(async (o: { queues?: string[]; schedules: boolean }) => runWorker(globals(), o, setExit));
  registerEnqueue(program, globals, setExit);
}

async function runWorker(g: GlobalOptions, o: { queues?: string[]; schedules: boolean }, setExit: SetExit): Promise<void> {
  const log = createLogger({ level: g.logLevel === 'warn' ? 'info' : g.logLevel });
  const config = loadCliConfig(g);
  const r = await commandRedis(g, config, { need: 'required', log, waitForRedis: true });
  const queues = (o.queues as Family[] | undefined) ?? [...QUEUES];
  const running = await startWorkers({ config, redisUrl: r.url, jobs: JOBS, log, queues, prefix: g.prefix });
  if (o.schedules) {
    await reconcileSchedules(config, r.url, g.prefix, log);
    reconcileAfterOutages(r.redis, () => reconcileSchedules(config, r.url, g.prefix, log), log);
  }
  log.info({ queues }, 'worker started');
  const signal = await untilSignal();
  log.info({ signal }, 'shutting down: no new jobs, waiting for running ones');
  const abandoned = await running.close();
  await r.stop();
  setExit(0);
  // A job that ignored the cut-off would go on writing beside the worker that takes it over.
  if (abandoned) process.exit();
}

async function reconcileSchedules(config: CalsyncConfig, redisUrl: string, prefix: string, log: Logger): Promise<void> {
  const q = openQueues(redisUrl, prefix);
  const changes = await reconcileSchedulers(q, config);
  for (const c of changes) if (c.action !== 'unchanged') log.info({ scheduler: c.id, queue: c.queue, schedule: c.schedule }, `scheduler ${c.action}`);
  log.info({ added: count(changes, 'added'), updated: count(changes, 'updated'), removed: count(changes, 'removed'), unchanged: count(changes, 'unchanged') }, 'schedules reconciled');
  await Promise.all(Object.values(q).map((x) => x.close()));
}

/**
 * Puts the config's schedules back each time Redis comes back after an outage: one restarted without
 * persistence has lost them, and the worker went on with no scheduled run at all while /healthz said
 * ok. Reconciling a Redis that kept them changes nothing.
 */
function reconcileAfterOutages(redis: Redis | undefined, reconcile: () => Promise<void>, log: Logger): void {
  let down = false;
  // 'close', not 'error': a restart quicker than ioredis' first retry reconnects without an error.
  redis?.on('close', () => (down = true));
  redis?.on('ready', () => {
    if (!down) return;
    down = false;
    reconcile().catch((err: Error) => log.warn({ err: err.message }, 'schedules not reconciled after Redis came back'));
  });
}

/** Resolves with the name of the first SIGINT or SIGTERM. */
function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

function registerEnqueue(program: Command, globals: () => GlobalOptions, setExit: SetExit): void {
  program
    .command('enqueue')
    .description('Add a job to the queue (a configured source/export/sync by name, or ad-hoc options) and optionally follow it')
    // A run's own jobs; the parts of a planned run (chunks, pages, planners, finishes) are added by its planner.
    .argument('<kind>', `job kind: ${Object.values(JOBS).filter((d) => !d.part).map((d) => d.name).join(', ')}`)
    .argument('[location]', 'feed/file for ad-hoc imports')
    .option('--name <name>', 'configured source/export/sync name')
    .option('--site <site>', 'site for ad-hoc imports (REST root or config name)')
    .option('--lang <code>', 'language', 'en')
    .option('--window <from..to>', 'window for ad-hoc imports')
    .option('--source <key>', 'source key for ad-hoc imports (default: derived from the URL)')
    .option('--allow-overlap', "ad-hoc imports: import as a new source although another source already imported these events")
    .option('--wait', 'follow the job\'s progress until it finishes and print its report')
    .option('--json', 'print the report as JSON (with --wait)')
    .addHelpText('after', '\nExamples:\n  $ calsync enqueue import-ics --name city-feed --wait\n  $ calsync enqueue import-ics https://example.org/cal.ics --site city --wait --json')
    .action(async (kind: string, location: string | undefined, o: Record<string, unknown>) => enqueue(globals(), kind, location, o, setExit));
}

/** The payload for `enqueue`, checked by the same schema the worker applies (jobs/payload.ts): refused here with the reason, not after queueing. */
function enqueuePayload(kind: string, location: string | undefined, o: Record<string, unknown>): unknown {
  const def = JOBS[kind];
  if (!def) throw new OptionsError([`unknown job kind "${kind}" (known: ${Object.keys(JOBS).join(', ')})`]);
  const data: Record<string, unknown> = o.name
    ? kind.startsWith('import') ? { source: o.name } : kind === 'export-ics' ? { export: o.name } : { sync: o.name }
    : { location, site: o.site, lang: o.lang, ...(o.window ? { window: o.window } : {}), ...(o.source ? { source: o.source } : {}), ...(o.allowOverlap ? { allowOverlap: true } : {}) };
  const checked = def.payload.safeParse(data);
  if (!checked.success) throw new OptionsError([`cannot enqueue ${kind}: ${checked.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ')}`]);
  return checked.data;
}

async function enqueue(g: GlobalOptions, kind: string, location: string | undefined, o: Record<string, unknown>, setExit: SetExit): Promise<void> {
  const log = createLogger({ level: g.logLevel });
  const config = loadCliConfig(g);
  const payload = enqueuePayload(kind, location, o);
  const queueName = (JOBS[kind] as { queue: QueueName }).queue;
  const r = await commandRedis(g, config, { need: 'required', log });
  const queues = openQueues(r.url, g.prefix);
  const onError = firstErrorLogged(log);
  for (const q of Object.values(queues)) q.on('error', onError);
  const queue = queues[queueName];
  let events: QueueEvents | undefined;
  // A sync's planners run on their own queue; their results give the number of page jobs.
  let planEvents: QueueEvents | undefined;
  try {
    if (o.wait) {
      // Subscribe before adding: QueueEvents only sees events after it starts (BullMQ docs).
      events = new QueueEvents(queueName, { connection: bullConnection(r.url), prefix: g.prefix }).on('error', onError);
      if (queueName === 'sync') planEvents = new QueueEvents('sync-plan', { connection: bullConnection(r.url), prefix: g.prefix }).on('error', onError);
      await Promise.all([events.waitUntilReady(), planEvents?.waitUntilReady()]);
    }
    const job: Job = await queue.add(kind, payload);
    process.stderr.write(`enqueued ${kind} job ${job.id} on queue "${queueName}"\n`);
    if (!events) return;
    const where = r.embedded ? `the embedded Redis of ${config.dataDir}` : 'this Redis';
    await followJob(job, queue, { events, planEvents }, where, Boolean(o.json), setExit);
  } finally {
    await events?.close();
    await planEvents?.close();
    await Promise.all(Object.values(queues).map((x) => x.close()));
    await r.stop();
  }
}

/** Follows a job (and, for a planner, its flow) to its report, with progress on stderr. */
async function followJob(job: Job, queue: Queue, { events, planEvents }: { events: QueueEvents; planEvents?: QueueEvents }, where: string, json: boolean, setExit: SetExit): Promise<void> {
  const cancelCheck = warnIfNoWorker(queue, job, () =>
    process.stderr.write(`no worker is listening on queue "${queue.name}" of ${where}: start \`calsync worker\` with the same config (or the same REDIS_URL); still waiting\n`),
  );
  const progress = new ProgressLine();
  // After planning, progress is the share of the flow's chunk/page jobs completed.
  const units = new FlowUnits(progress.update);
  events.on('progress', ({ jobId, data: p }) => {
    if (jobId === job.id && p && typeof p === 'object') progress.update(p as never);
  });
  planEvents?.on('completed', ({ jobId, returnvalue }) => units.plannerDone(jobId, returnvalue));
  events.on('completed', ({ jobId }) => units.jobDone(jobId));
  try {
    // A planner (CSV import, sync) hands over to its flow: the report is the finish job's.
    const result = (await waitForRun(job, queue, events, { onPlanned: (p) => units.planned(p) })) as ReportJson;
    progress.done();
    process.stdout.write(`${json ? JSON.stringify(result, null, 2) : resultText(result)}\n`);
    // A paused source's job ends without running (src/queue/worker.ts): not "nothing failed".
    setExit(result?.counts ? reportExitCode(result) : pausedRun(result) ? 1 : 0);
  } catch (err) {
    progress.done();
    process.stderr.write(`job ${job.id} failed: ${terminalSafe((err as Error).message, { multiline: true })}\n`);
    setExit(1);
  } finally {
    cancelCheck();
  }
}

function count(changes: { action: string }[], action: string): number {
  return changes.filter((c) => c.action === action).length;
}

/** What the worker returns for a job of a paused source, which it skips (src/queue/worker.ts). */
function pausedRun(result: unknown): { name: string; lastError: string } | undefined {
  const r = result as { paused?: unknown; name?: unknown; lastError?: unknown } | undefined;
  return r?.paused === true && typeof r.name === 'string' ? { name: r.name, lastError: String(r.lastError ?? '') } : undefined;
}

/** A finished job's result as text: a run report, an export's feed files, a paused source, else its JSON. */
function resultText(result: unknown): string {
  if ((result as ReportJson | undefined)?.counts) return reportText(result as ReportJson);
  if (isExportSummary(result)) return exportSummary(result);
  const paused = pausedRun(result);
  if (paused) {
    return `${paused.name} is paused after failing several runs in a row (last error: ${terminalSafe(paused.lastError, { multiline: true })}): the worker skipped this run, nothing was written.\n  resume with: calsync resume ${paused.name}`;
  }
  return JSON.stringify(result);
}
