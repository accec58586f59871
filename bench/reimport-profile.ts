// Where an unchanged re-import's time goes, next to parsing alone: one first import of the bench's
// ICS feed into a sandbox, then `reps` rounds of (parse+normalize in this thread, unchanged re-import),
// each with its wall and this process's CPU (main + parser thread). The same figures as
// `bench/import-ics.ts`'s "unchanged re-import" rows, repeated so a spread can be quoted.
// `node bench/reimport-profile.ts [reps] [vevents]`; `--json` prints the rounds as JSON;
// `--profile=FILE` writes a CPU profile of this thread during the re-imports only (not the parses);
// `--no-reuse` deletes the UID-group records before each re-import (every group is normalized again,
// as on the first run after an upgrade or after a failed run). `--job-marks` runs each import as a
// queued job's would be (RunContext.jobMark: its ledger entries name the job, src/write/job-mark.ts),
// every run a different job, as a worker's scheduled runs are; without it they run as the CLI's do.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { Redis } from 'ioredis';
import { resolveSite } from '../src/config/sites.ts';
import { runIcsImport, type IcsImportParams } from '../src/runs/import-ics.ts';
import { normalizeIcs } from '../src/sources/ics/index.ts';
import { generateIcsFeed } from '../test/support/generate-ics.ts';
import { benchRedis, PASSWORD, sandboxProcess, staticServer, USER } from './env.ts';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const reps = Number(args[0] ?? 5);
const vevents = Number(args[1] ?? 6000);

/** Wall, this process's CPU (every thread), and this (main) thread's own CPU during `fn`. */
async function measured<T>(fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; mainCpuMs: number; value: T }> {
  const c0 = process.cpuUsage();
  const m0 = process.threadCpuUsage();
  const t = performance.now();
  const value = await fn();
  const ms = performance.now() - t;
  const c = process.cpuUsage(c0);
  const m = process.threadCpuUsage(m0);
  return { ms, cpuMs: (c.user + c.system) / 1000, mainCpuMs: (m.user + m.system) / 1000, value };
}

const sandbox = await sandboxProcess();
const redisServer = await benchRedis();
const redis = new Redis(redisServer.url);
const ics = generateIcsFeed({ events: vevents, seed: 7, recurringShare: 0.1, start: new Date(Date.UTC(2025, 0, 6)) });
const feed = await staticServer(ics);
const noReuse = process.argv.includes('--no-reuse');
const jobMarks = process.argv.includes('--job-marks');
/** The context of run `n`: a job of its own with --job-marks. */
const ctxOf = (n: number) => ({ redis, ...(jobMarks ? { jobMark: `bench-${n}` } : {}) });
const profileTo = process.argv.find((a) => a.startsWith('--profile='))?.slice('--profile='.length);
const session = profileTo ? new Session() : undefined;
session?.connect();
await session?.post('Profiler.enable');
const profiles: unknown[] = [];
const rounds: Array<{ parseMs: number; parseCpuMs: number; reimportMs: number; reimportCpuMs: number; reimportMainCpuMs: number; ratio: number }> = [];
try {
  const window = { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2026-06-30T00:00:00Z') };
  const site = resolveSite(sandbox.url, undefined, { env: { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD } });
  const params: IcsImportParams = {
    location: feed.url, site, sourceKey: 'bench', lang: 'en', window, retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC',
    status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host], refreshAfterMs: 0,
  };
  const bytes = new TextEncoder().encode(ics);
  const first = await runIcsImport(params, ctxOf(0));
  const created = first.counts.events.created;
  for (let r = 0; r < reps; r++) {
    const parse = await measured(async () => normalizeIcs(bytes, { sourceKey: 'bench', sourceName: 'bench', window }));
    if (noReuse) for (const key of await redis.keys('*:state:groups:*')) await redis.del(key);
    if (session) await session.post('Profiler.start');
    const again = await measured(() => runIcsImport(params, ctxOf(r + 1)));
    if (session) profiles.push((await session.post('Profiler.stop')).profile);
    if (again.value.counts.events.unchanged !== created) throw new Error(`re-import saw ${again.value.counts.events.unchanged} unchanged of ${created}`);
    rounds.push({ parseMs: parse.ms, parseCpuMs: parse.cpuMs, reimportMs: again.ms, reimportCpuMs: again.cpuMs, reimportMainCpuMs: again.mainCpuMs, ratio: again.ms / parse.ms });
  }
} finally {
  await feed.close();
  await redis.quit();
  await redisServer.stop();
  await sandbox.stop();
}
profiles.forEach((p, i) => writeFileSync(`${profileTo}.${i}.cpuprofile`, JSON.stringify(p)));
const r0 = (n: number) => Math.round(n);
if (process.argv.includes('--json')) console.log(JSON.stringify(rounds));
else for (const r of rounds) console.log(`parse ${r0(r.parseMs)} ms (cpu ${r0(r.parseCpuMs)}) | re-import ${r0(r.reimportMs)} ms (cpu ${r0(r.reimportCpuMs)}, main thread ${r0(r.reimportMainCpuMs)}) | ×${r.ratio.toFixed(2)}`);
