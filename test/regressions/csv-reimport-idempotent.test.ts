import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type Job } from 'bullmq';
import { bullConnection } from '../../src/queue/connection.ts';
import { slugify } from '../../src/model/identity.ts';
import { MAPPINGS } from '../csv/helpers.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, corpus, testSite } from '../support/site.ts';
import { spawnWorker, waitFor, waitForFinish, writeConfig, type WorkerProcess } from '../support/worker-process.ts';

/**
 * Issue 13 item 2. Replaces csv-corpus's "re-importing a file changes nothing and writes nothing",
 * which ran without Redis, in one chunk, and never counted writes.
 */

const FILES = readdirSync(corpus('csv')).filter((f) => f.endsWith('.csv')).sort();
const CHUNK = 10;

interface SandboxStats {
  total: number;
  writes: number;
  byRoute: Record<string, number>;
}

describe('issue 13: CSV re-import through the queue flow writes nothing', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    env = await testSite();
  });
  afterAll(async () => env.close());

  /** The site's own request counters, over HTTP, as an operator would read them. */
  const stats = async (): Promise<SandboxStats> => (await (await fetch(`${new URL(env.sandbox.url).origin}/__sandbox/stats`)).json()) as SandboxStats;
  const resetStats = async () => void (await fetch(`${new URL(env.sandbox.url).origin}/__sandbox/stats/reset`, { method: 'POST' }));

  /** Every corpus CSV as a planner job; waits for each flow to finish (or its planner to refuse the file). */
  async function importAll(queue: Queue): Promise<Map<string, { created: number; updated: number; unchanged: number } | 'refused'>> {
    const planners = await Promise.all(FILES.map((f) => queue.add('import-csv', { source: sourceName(f) }, { attempts: 1 })));
    const out = new Map<string, { created: number; updated: number; unchanged: number } | 'refused'>();
    for (const [i, planner] of planners.entries()) {
      const state = await waitFor(`planner of ${FILES[i]}`, async () => {
        const s = await queue.getJobState(planner.id as string);
        return s === 'completed' || s === 'failed' ? s : undefined;
      }, 180_000, 100);
      if (state === 'failed') {
        out.set(FILES[i]!, 'refused');
        continue;
      }
      const finish: Job = await waitForFinish(queue, planner, 240_000);
      out.set(FILES[i]!, (finish.returnvalue as { counts: { events: { created: number; updated: number; unchanged: number } } }).counts.events);
    }
    return out;
  }
  const sourceName = (file: string) => slugify(file.replace(/\.csv$/, ''), 40);

  it('regression: "Carnival UK" and "carnival UK" in different chunks rewrote 2 organizers on every re-import (every corpus CSV, Redis, 10-row chunks, 2 worker processes)', async () => {
    const prefix = testPrefix();
    const config = writeConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, concurrency: 4 }],
      sources: FILES.map((f) => ({ name: sourceName(f), kind: 'csv', site: 'sb', url: corpus('csv', f), chunkSize: CHUNK, ...(MAPPINGS[f] ? { map: MAPPINGS[f] } : {}) })),
      worker: { concurrency: { import: 3 }, shutdownTimeoutMs: 2000 },
    });
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    const workers: WorkerProcess[] = [1, 2].map(() => spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PASSWORD: PASSWORD } }));
    try {
      const first = await importAll(queue);
      const imported = [...first].filter(([, r]) => r !== 'refused');
      expect(imported.length).toBeGreaterThanOrEqual(8);
      expect(first.get('massport-cruise-schedule-excel-title-row-crlf.csv')).not.toBe('refused');
      expect(imported.reduce((n, [, r]) => n + (r as { created: number }).created, 0)).toBeGreaterThan(100);
      // Both spellings are in the file, in different 10-row chunks: one organizer on the site.
      const carnival = (env.sandbox.dump('en').organizers as { organizer: string }[]).filter((o) => o.organizer.toLowerCase() === 'carnival uk');
      expect(carnival).toHaveLength(1);

      await resetStats();
      const second = await importAll(queue);
      const s = await stats();
      expect(Object.entries(s.byRoute).filter(([route]) => !route.startsWith('GET '))).toEqual([]);
      expect(s.writes).toBe(0);
      for (const [file, r] of second) {
        if (r === 'refused') expect(first.get(file)).toBe('refused');
        else expect({ file, created: r.created, updated: r.updated }).toEqual({ file, created: 0, updated: 0 });
      }
    } finally {
      await Promise.all(workers.map((w) => w.kill('SIGTERM')));
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  });
});
