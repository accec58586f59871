// Where the sync planner's time goes at a given site latency: the planner alone (SiteSync.plan,
// in this process, in-memory ledger) against two sandbox processes, every request recorded with
// its route and time, then a second plan (the no-change resync's). `node bench/sync-plan-profile.ts [events] [latencyMs]`
import { resolveSite } from '../src/config/sites.ts';
import { SiteSync, syncReport, type SyncParams } from '../src/runs/sync-site.ts';
import { Redis } from 'ioredis';
import { benchRedis, PASSWORD, sandboxProcess, USER } from './env.ts';
import { seedSource } from './sync.ts';

const ENV = { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD };
const events = Number(process.argv[2] ?? 2000);
const latency = Number(process.argv[3] ?? 50);

interface Req { site: string; route: string; end: number; ms: number }

function summary(reqs: Req[], wallMs: number): string {
  const by = new Map<string, { n: number; ms: number }>();
  for (const r of reqs) {
    const k = `${r.site} ${r.route}`;
    const e = by.get(k) ?? { n: 0, ms: 0 };
    e.n++;
    e.ms += r.ms;
    by.set(k, e);
  }
  const busy = reqs.reduce((s, r) => s + r.ms, 0);
  const lines = [...by].sort((a, b) => b[1].ms - a[1].ms).map(([k, v]) => `  ${k}: ${v.n} requests, ${Math.round(v.ms)} ms summed`);
  return `${reqs.length} requests, summed ${Math.round(busy)} ms over ${Math.round(wallMs)} ms wall: mean overlap ${(busy / wallMs).toFixed(2)}\n${lines.join('\n')}`;
}

const src = await sandboxProcess(latency ? ['--latency-ms', String(latency)] : []);
const dst = await sandboxProcess(latency ? ['--latency-ms', String(latency)] : []);
try {
  await seedSource(src, events);
  const reqs: Req[] = [];
  const server = await benchRedis();
  const redis = new Redis(server.url);
  const from = resolveSite(src.url, undefined, { env: ENV });
  const to = { ...resolveSite(dst.url, undefined, { env: ENV }), concurrency: 8 };
  const p: SyncParams = { from, to, lang: 'en', window: { from: new Date('2027-01-01'), to: new Date('2027-12-31') }, retire: 'none' as never, onEdit: 'overwrite', dryRun: false, settledMs: 0 };
  for (const label of ['first', 'resync']) {
    reqs.length = 0;
    const ctx = {
      redis,
      prefix: 'profile',
      onRequest: (site: string, info: { route: string; method: string; durationMs: number }) => reqs.push({ site: site === from.key ? 'src' : 'dst', route: `${info.method} ${info.route}`, end: performance.now(), ms: info.durationMs }),
    };
    const sync = new SiteSync(p, ctx as never, syncReport(p, ctx as never));
    const pages: unknown[] = [];
    const t = performance.now();
    const cpu0 = process.cpuUsage();
    await sync.plan(async (page) => {
      if (pages.length === 0 && process.env.FIRST_PAGE) console.log(`first page at ${Math.round(performance.now() - t)} ms; requests before it:\n${reqs.map((r) => `  ${Math.round(r.end - r.ms - t)}..${Math.round(r.end - t)} ${r.site} ${r.route}`).join('\n')}`);
      pages.push(page);
    });
    const planMs = performance.now() - t;
    const cpu = process.cpuUsage(cpu0);
    // What the queue's pages would write, so the resync finds everything in the ledger.
    if (label === 'first') for (const page of pages) await sync.write(page as never);
    await sync.close();
    console.log(`${label}: plan ${Math.round(planMs)} ms (this process's CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms), ${pages.length} pages\n${summary(reqs.filter((r) => r.end <= t + planMs), planMs)}`);
  }
  redis.disconnect();
  await server.stop();
} finally {
  await src.stop();
  await dst.stop();
}
process.exit(0);
