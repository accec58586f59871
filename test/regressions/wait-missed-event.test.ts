import { Queue, QueueEvents, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullConnection } from '../../src/queue/connection.ts';
import { waitForRun } from '../../src/queue/follow.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';

/**
 * Found on a loaded machine: `calsync enqueue … --wait` enqueued a paused source's job, the worker
 * completed it at once, and the command waited past a minute: BullMQ's wait looks at the job's state
 * once, when it starts, and otherwise only hears the job's events, so a completion its listener
 * missed left it waiting for good. Here the listener hears nothing at all (another prefix): the wait
 * must still end, with the job's result or its error.
 */
describe('regression: `enqueue --wait` waited forever when its listener missed the job\'s completion event', () => {
  const prefix = testPrefix();
  const connection = () => bullConnection(redisUrl());
  let queue: Queue;
  let deaf: QueueEvents;
  let worker: Worker;
  beforeAll(async () => {
    queue = new Queue('follow', { connection: connection(), prefix });
    deaf = new QueueEvents('follow', { connection: connection(), prefix: `${prefix}-elsewhere` });
    await deaf.waitUntilReady();
    worker = new Worker('follow', async (job) => {
      if (job.name === 'fails') throw new Error('the site said no');
      return { done: job.data.n };
    }, { connection: connection(), prefix });
  });
  afterAll(async () => {
    await worker.close();
    await deaf.close();
    await queue.close();
  });

  it('a completed job\'s result arrives although no event was heard', { timeout: 30_000 }, async () => {
    const job = await queue.add('works', { n: 7 });
    // The wait starts as the job is added, before the worker ends it: its one look at the start finds it unfinished.
    await expect(waitForRun(job, queue, deaf, { timeoutMs: 20_000 })).resolves.toEqual({ done: 7 });
  });

  it('a failed job\'s error arrives although no event was heard', { timeout: 30_000 }, async () => {
    const job = await queue.add('fails', {});
    await expect(waitForRun(job, queue, deaf, { timeoutMs: 20_000 })).rejects.toThrow('the site said no');
  });
});
