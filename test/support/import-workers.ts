import { Queue, QueueEvents } from 'bullmq';
import { JOBS } from '../../jobs/index.ts';
import type { CalsyncConfig } from '../../src/config/schema.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import type { JobDefinition } from '../../src/queue/job-definition.ts';
import { startWorkers, type RunningWorkers } from '../../src/queue/worker.ts';
import { createLogger } from '../../src/util/log.ts';
import { parseConfig } from '../../src/config/load.ts';
import { redisUrl, testPrefix } from './redis.ts';
import { PASSWORD, USER, feedServer, testSite } from './site.ts';

export interface ImportWorkers {
  running: RunningWorkers;
  queue: Queue;
  events: QueueEvents;
  close(): Promise<void>;
}

/** The import queue served by workers in this process (a real Redis), with its queue and events to drive and watch it. */
export async function importWorkers(config: CalsyncConfig, prefix: string, jobs: Record<string, JobDefinition> = JOBS): Promise<ImportWorkers> {
  const running = await startWorkers({ config, jobs, redisUrl: redisUrl(), log: createLogger({ level: 'silent' }), prefix, queues: ['import'] });
  const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
  const events = new QueueEvents('import', { connection: bullConnection(redisUrl()), prefix });
  await events.waitUntilReady();
  return {
    running,
    queue,
    events,
    close: async () => {
      await running.close(5000);
      await events.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    },
  };
}

/**
 * A sandbox site and one ICS source on it, `source`, whose feed answers each fetch after `delayMs` (one event
 * in 2027): for runs that must still be going when the next one starts. Its import queue is served by
 * workers in this process, `concurrency` jobs at a time, under a prefix of its own.
 */
export async function slowSourceWorkers(source: string, o: { delayMs: number; concurrency: number }): Promise<{ workers: ImportWorkers; fetches(): number; close(): Promise<void> }> {
  const env = await testSite();
  const feed = await feedServer(`BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:${source}-1@example.org\r\nSUMMARY:${source}\r\nDTSTART:20270301T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`, { delayMs: o.delayMs });
  const passwordEnv = `CALSYNC_TEST_${source.toUpperCase()}_PW`;
  process.env[passwordEnv] = PASSWORD;
  const config = parseConfig({
    sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv } }],
    sources: [{ name: source, kind: 'ics', site: 'sb', url: feed.url, allow: [new URL(feed.url).host], window: { from: '2027-01-01', to: '2027-12-31' } }],
    worker: { concurrency: { import: o.concurrency } },
  });
  const workers = await importWorkers(config, testPrefix());
  return {
    workers,
    fetches: feed.fetches,
    close: async () => {
      await workers.close();
      await feed.close();
      await env.close();
    },
  };
}
