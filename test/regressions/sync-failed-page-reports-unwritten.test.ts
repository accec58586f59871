import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { bullConnection } from '../../src/queue/connection.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';
import { spawnWorker, waitForFinish, writeConfig, type WorkerProcess } from '../support/worker-process.ts';

/**
 * Found stopping a real target site in the middle of a queued sync: the page that could not be
 * written was reported with every one of its events failed, the events that needed no write (the
 * target held them as planned) included, so the report said 228 failed where 200 had. Now only the
 * events the target does not hold as planned are failed; the others are unchanged (or, written by
 * an attempt of the failed page, created/updated).
 */
const CHANGED = 24;

describe('regression: a page that failed every attempt reported all its events failed, unchanged ones included', () => {
  type Site = Awaited<ReturnType<typeof testSite>>;
  let source: Site;
  let target: Site;
  let proxy: http.Server;
  let proxyUrl: string;
  /** While set, the target refuses every write (503) and still answers reads. */
  let refuseWrites = false;

  beforeAll(async () => {
    source = await testSite();
    target = await testSite();
    proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (refuseWrites && req.method !== 'GET') {
          res.writeHead(503, { 'content-type': 'application/json' }).end('{"code":"down","message":"maintenance"}');
          return;
        }
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<string, string>;
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        fetch(`${target.sandbox.url.replace(/\/wp-json$/, '')}${req.url}`, { method: req.method, headers, body })
          .then(async (r) => {
            const out = Buffer.from(await r.arrayBuffer());
            const h: Record<string, string> = {};
            r.headers.forEach((v, k) => {
              if (k !== 'content-encoding' && k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection') h[k] = v;
            });
            res.writeHead(r.status, h).end(out);
          })
          .catch(() => res.destroy());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/wp-json`;
  }, 60_000);
  afterAll(async () => {
    await new Promise<void>((r) => proxy.close(() => r()));
    await source.close();
    await target.close();
  });

  it('only the events the target does not hold as planned are failed', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) {
      const day = String(1 + (i % 28)).padStart(2, '0');
      const ev = await source.client.events.create({ title: `Talk ${i}`, description: `d${i}`, start_date: `2030-03-${day} 10:00:00`, end_date: `2030-03-${day} 11:00:00` } as never);
      ids.push(ev.id);
    }
    const prefix = testPrefix();
    const config = writeConfig({
      sites: [
        { name: 'src', restRoot: source.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' } },
        { name: 'dst', restRoot: proxyUrl, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, concurrency: 2 },
      ],
      syncs: [{ name: 'copy', from: 'src', to: 'dst', languages: ['en'], window: { from: '2030-01-01', to: '2030-12-31' } }],
      worker: { concurrency: { sync: 2 }, lockDurationMs: 5000, stalledIntervalMs: 2000, shutdownTimeoutMs: 2000 },
    });
    const queue = new Queue('sync', { connection: bullConnection(redisUrl()), prefix });
    const worker: WorkerProcess = spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PASSWORD: PASSWORD }, args: ['--queues', 'sync'] });
    const run = async () => {
      const finish = await waitForFinish(queue, await queue.add('sync-site', { sync: 'copy' }, { attempts: 1 }), 120_000);
      return finish.returnvalue as ReportJson;
    };
    try {
      expect((await run()).counts.events).toMatchObject({ read: 30, created: 30, failed: 0 });
      // Enough failing writes in a row to open the client's circuit breaker: the page fails as a whole.
      for (const id of ids.slice(0, CHANGED)) await source.client.events.update(id, { title: `Talk ${id} moved`, description: 'moved', start_date: '2030-03-20 10:00:00', end_date: '2030-03-20 11:00:00' } as never);
      refuseWrites = true;
      const report = await run();
      expect(report.items.filter((i) => i.kind === 'events' && i.outcome === 'failed')[0]?.reason).toMatch(/^page 0 failed: /);
      expect(report.counts.events).toMatchObject({ read: 30, created: 0, updated: 0, unchanged: 30 - CHANGED, failed: CHANGED });
      const failed = report.items.filter((i) => i.kind === 'events' && i.outcome === 'failed').map((i) => i.origin?.ref);
      expect(failed.sort()).toEqual(ids.slice(0, CHANGED).map(String).sort());
    } finally {
      refuseWrites = false;
      await worker.kill('SIGKILL');
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  }, 240_000);
});
