import { describe, expect, it } from 'vitest';
import { BoundedTasks } from '../../src/util/pool.ts';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The sync planner's pages in flight (src/runs/sync-site.ts): started as the listing yields them.
describe('BoundedTasks', () => {
  it('runs at most `limit` tasks at once and all of them by drain()', async () => {
    const tasks = new BoundedTasks(3);
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    for (let i = 0; i < 10; i++) {
      await tasks.run(async () => {
        peak = Math.max(peak, ++running);
        await tick(5 + (i % 3) * 5);
        running--;
        done.push(i);
      });
    }
    await tasks.drain();
    expect(peak).toBe(3);
    expect(done.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('a failure stops new tasks, and drain() waits for those still running before throwing it', async () => {
    const tasks = new BoundedTasks(2);
    let slowFinished = false;
    await tasks.run(async () => {
      await tick(40);
      slowFinished = true;
    });
    await tasks.run(async () => {
      throw new Error('page 1 failed');
    });
    await tick(5);
    let started = false;
    await expect(tasks.run(async () => void (started = true))).rejects.toThrow('page 1 failed');
    await expect(tasks.drain()).rejects.toThrow('page 1 failed');
    expect(started).toBe(false);
    expect(slowFinished).toBe(true);
  });
});
