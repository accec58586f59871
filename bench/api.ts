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

    const root = new URL(sb.url);
    const basePath = root.pathname.replace(/\/+$/, '');
    const authorization = `Basic ${Buffer.from(`${sb.user}:${sb.password}`).toString('base64')}`;
    const payloads = slugs.map((_, i) => JSON.stringify(body(i)));

    for (const concurrency of concurrencies) {
      const connections = Math.max(8, concurrency);
      const pool = new Pool(root.origin, { connections });
      const bareOp = async (k: number) => {
        const i = k % n;
        const res = await pool.request({
          method: 'POST',
          path: `${basePath}/${sb.namespace}/events/by-slug/${slugs[i]}`,
          headers: { authorization, 'content-type': 'application/json', accept: 'application/json' },
          body: payloads[i],
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`bare upsert: ${res.statusCode} ${text.slice(0, 200)}`);
        JSON.parse(text);
      };
      const client = new CalendarClient({
        restRoot: sb.url,
        namespace: sb.namespace,
        auth: { kind: 'basic', user: sb.user, password: sb.password },
        connections,
      });
      const clientOp = async (k: number) => {
        const i = k % n;
        const { created } = await client.events.upsertBySlug(slugs[i]!, body(i));
        if (created) throw new Error('client upsert created instead of updating');
      };
      // Short alternating rounds, best of each: the sandbox shares this process and the machine
      // may be busy, so one long run per mode would mostly measure whatever else ran meanwhile.
      let bare = 0;
      let viaClient = 0;
      let bareCpu = Infinity;
      let clientCpu = Infinity;
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? ([bareOp, clientOp] as const) : ([clientOp, bareOp] as const);
        for (const op of order) {
          const m = await measure(concurrency, durationMs / rounds, op);
          if (op === bareOp) {
            bare = Math.max(bare, m.rate);
            bareCpu = Math.min(bareCpu, m.cpuPerOp);
          } else {
            viaClient = Math.max(viaClient, m.rate);
            clientCpu = Math.min(clientCpu, m.cpuPerOp);
          }
        }
      }
      await pool.close();
      await client.close();

      scenarios.push({ name: `api.upsert-by-slug.bare.c${concurrency}`, figure: Math.round(bare), unit: 'events/s' });
      scenarios.push({
        name: `api.upsert-by-slug.client.c${concurrency}`,
        figure: Math.round(viaClient),
        unit: 'events/s',
        reference: Math.round(bare),
        ratio: Math.round((viaClient / bare) * 100) / 100,
      });
      // CPU is steadier than wall time on a busy machine: what the client adds per event.
      scenarios.push({
        name: `api.upsert-by-slug.client-cpu.c${concurrency}`,
        figure: Math.round(clientCpu),
        unit: 'µs CPU/event',
        reference: Math.round(bareCpu),
        ratio: Math.round((clientCpu / bareCpu) * 100) / 100,
      });
    }
  } finally {
    await sb.close();
  }
  return { scenarios };
}

if (import.meta.main) {
  const json = process.argv.includes('--json');
  const msArg = process.argv.find((a) => a.startsWith('--ms='));
  const result = await runApiBench({ durationMs: msArg ? Number(msArg.slice(5)) : undefined });
  if (json) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    for (const s of result.scenarios) {
      const extra = s.ratio !== undefined ? `  (bare ${s.reference} ${s.unit}, client/bare ${s.ratio.toFixed(2)})` : '';
      console.log(`${s.name.padEnd(36)} ${String(s.figure).padStart(8)} ${s.unit}${extra}`);
    }
  }
}
