import { Queue, QueueEvents } from 'bullmq';
import { JOBS } from '../../jobs/index.ts';
import type { CalsyncConfig } from '../../src/config/schema.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import type { JobDefinition } from '../../src/queue/job-definition.ts';
import { startWorkers, type RunningWorkers } from '../../src/queue/worker.ts';
import { createLogger } from '../../src/util/log.ts';
import { redisUrl } from './redis.ts';

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
