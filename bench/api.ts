/**
 * REST client overhead: by-slug upserts of existing events (the steady state of a feed import:
 * every item is an update) against a zero-latency sandbox, once with a bare undici `request`
 * loop and once through CalendarClient.events.upsertBySlug, at concurrency 1, 8 and 32.
 * The figure is events/s; the client scenarios carry the bare figure as reference and the
 * client/bare ratio (1.0 = no overhead: validation, parsing, retries bookkeeping). The sandbox
 * runs in this process, so CPU time per event (client + sandbox) is reported too: on a busy
 * machine it is steadier than wall-clock throughput.
 *
 * Run alone: `npx node bench/api.ts [--json] [--ms=2000]`.
 */
import { Pool } from 'undici';
import { CalendarClient } from '../src/api/index.ts';

export interface ApiBenchOptions {
  /** Measuring time per scenario (default 2000 ms). */
  durationMs?: number;
  concurrencies?: number[];
  /** Events seeded and cycled through (default 64). */
  events?: number;
  /** Alternating bare/client rounds per concurrency (default 3); the best round of each counts. */
  rounds?: number;
}

export type { Scenario as BenchScenario } from './lib.ts';
import type { Scenario as BenchScenario } from './lib.ts';

interface SandboxLike {
  url: string;
  namespace: string;
  user: string;
  password: string;
  close(): Promise<void>;
}

function body(i: number) {
  return {
    title: `Bench event ${i}`,
    description: 'A benchmark event with a short description.',
    status: 'publish',
    timezone: 'Europe/Paris',
    all_day: false,
    start_date: `2031-03-${String(1 + (i % 28)).padStart(2, '0')} 10:00:00`,
    end_date: `2031-03-${String(1 + (i % 28)).padStart(2, '0')} 12:00:00`,
    cost: '10',
    website: '',
    show_map: true,
    show_map_link: true,
    hide_from_listings: false,
    sticky: false,
    featured: false,
    categories: [],
    tags: [],
    organizer: [],
  };
}

interface Run {
  /** Completed operations per second of wall time. */
  rate: number;
  /** Process CPU time (user + system) per operation, in µs: client and sandbox together. */
  cpuPerOp: number;
}

/** Runs `op` from `concurrency` workers for `durationMs`. */
async function run(concurrency: number, durationMs: number, op: (i: number) => Promise<void>): Promise<Run> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const until = started + durationMs;
  let done = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await op(next++);
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { rate: done / ((performance.now() - started) / 1000), cpuPerOp: (used.user + used.system) / Math.max(1, done) };
}

/** A short unmeasured warm-up first (JIT, keep-alive sockets), then the measured run. */
async function measure(concurrency: number, durationMs: number, op: (i: number) => Promise<void>): Promise<Run> {
  await run(concurrency, Math.min(200, durationMs / 4), op);
  return run(concurrency, durationMs, op);
}

interface Target {
  sb: SandboxLike;
  slugs: string[];
  n: number;
}

export async function runApiBench(opts: ApiBenchOptions = {}): Promise<{ scenarios: BenchScenario[] }> {
  const durationMs = opts.durationMs ?? 2000;
  const concurrencies = opts.concurrencies ?? [1, 8, 32];
  const n = opts.events ?? 64;
  const rounds = Math.max(1, opts.rounds ?? 3);
  const { startSandbox } = (await import('../src/sandbox/index.ts')) as unknown as {
    startSandbox(o: Record<string, unknown>): Promise<SandboxLike>;
  };
  const sb = await startSandbox({ port: 0 });
  const scenarios: BenchScenario[] = [];
  try {
    const slugs = Array.from({ length: n }, (_, i) => `bench-event-${i}`);
    const seeder = new CalendarClient({ restRoot: sb.url, namespace: sb.namespace, auth: { kind: 'basic', user: sb.user, password: sb.password } });
    for (let i = 0; i < n; i++) await seeder.events.upsertBySlug(slugs[i]!, body(i));
    await seeder.close();
    for (const concurrency of concurrencies) scenarios.push(...(await compareAt({ sb, slugs, n }, concurrency, durationMs, rounds)));
  } finally {
    await sb.close();
  }
  return { scenarios };
}

/** A bare undici loop of by-slug upserts: the ceiling the client is compared with. */
function bareUpsert(t: Target, pool: Pool): (k: number) => Promise<void> {
  const root = new URL(t.sb.url);
  const basePath = root.pathname.replace(/\/+$/, '');
  const authorization = `Basic ${Buffer.from(`${t.sb.user}:${t.sb.password}`).toString('base64')}`;
  const payloads = t.slugs.map((_, i) => JSON.stringify(body(i)));
  return async (k: number) => {
    const i = k % t.n;
    const res = await pool.request({
      method: 'POST',
      path: `${basePath}/${t.sb.namespace}/events/by-slug/${t.slugs[i]}`,
      headers: { authorization, 'content-type': 'application/json', accept: 'application/json' },
      body: payloads[i],
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`bare upsert: ${res.statusCode} ${text.slice(0, 200)}`);
    JSON.parse(text);
  };
}

/** Client vs bare at one concurrency: rates and CPU per event. */
async function compareAt(t: Target, concurrency: number, durationMs: number, rounds: number): Promise<BenchScenario[]> {
  const connections = Math.max(8, concurrency);
  const pool = new Pool(new URL(t.sb.url).origin, { connections });
  const client = new CalendarClient({ restRoot: t.sb.url, namespace: t.sb.namespace, auth: { kind: 'basic', user: t.sb.user, password: t.sb.password }, connections });
  const bareOp = bareUpsert(t, pool);
  const clientOp = async (k: number) => {
    const i = k % t.n;
    const { created } = await client.events.upsertBySlug(t.slugs[i]!, body(i));
    if (created) throw new Error('client upsert created instead of updating');
  };
  // Short alternating rounds, best of each: the sandbox shares this process and the machine
  // may be busy, so one long run per mode would mostly measure whatever else ran meanwhile.
  const best = { bare: 0, client: 0, bareCpu: Infinity, clientCpu: Infinity };
  try {
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['bare', 'client'] as const) : (['client', 'bare'] as const);
      for (const mode of order) {
        const m = await measure(concurrency, durationMs / rounds, mode === 'bare' ? bareOp : clientOp);
        best[mode] = Math.max(best[mode], m.rate);
        best[`${mode}Cpu`] = Math.min(best[`${mode}Cpu`], m.cpuPerOp);
      }
    }
  } finally {
    await pool.close();
    await client.close();
  }
  return [
    { name: `api.upsert-by-slug.bare.c${concurrency}`, figure: Math.round(best.bare), unit: 'events/s' },
    { name: `api.upsert-by-slug.client.c${concurrency}`, figure: Math.round(best.client), unit: 'events/s', reference: Math.round(best.bare), ratio: Math.round((best.client / best.bare) * 100) / 100 },
    // CPU is steadier than wall time on a busy machine: what the client adds per event.
    { name: `api.upsert-by-slug.client-cpu.c${concurrency}`, figure: Math.round(best.clientCpu), unit: 'µs CPU/event', reference: Math.round(best.bareCpu), ratio: Math.round((best.clientCpu / best.bareCpu) * 100) / 100 },
  ];
}
