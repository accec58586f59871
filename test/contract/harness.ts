import { afterAll, beforeAll } from 'vitest';
import { randomBytes } from 'node:crypto';
import { CalendarClient, type SiteConnection } from '../../src/api/index.ts';

/**
 * Where the contract suite runs: a sandbox site started per test file (default), or a real site
 * when CALSYNC_CONTRACT_URL is set. On a real site every record gets a unique run prefix and is
 * trashed (terms: deleted) afterwards; sandbox-only assertions (fault knobs, request counters)
 * are skipped there.
 */

export type Version = '6.17.2' | '6.17.1';

/** Fault knobs (src/sandbox/faults.ts); `seed` only when the sandbox starts. */
export interface SandboxFaults {
  latencyMs?: number;
  latencyJitterMs?: number;
  errorRate?: number;
  throttleRate?: number;
  retryAfterSeconds?: number;
  dropRate?: number;
}

/** The parts of the sandbox handle the suite uses (src/sandbox/index.ts). */
export interface SandboxHandle {
  url: string;
  namespace: string;
  user: string;
  password: string;
  stats(): {
    total: number;
    writes: number;
    byRoute: Record<string, number>;
    faults: { error: number; throttle: number; drop: number };
    retryAfterViolations: number;
  };
  resetStats(): void;
  setFaults(f: SandboxFaults): void;
  close(): Promise<void>;
}

/** setFaults() merges into the current knobs, so clearing them means setting each to zero. */
export const NO_FAULTS: SandboxFaults = { latencyMs: 0, latencyJitterMs: 0, errorRate: 0, throttleRate: 0, dropRate: 0 };

export const REAL_URL = process.env.CALSYNC_CONTRACT_URL;
export const isReal = Boolean(REAL_URL);

export interface Target {
  url: string;
  namespace: string;
  user: string;
  password: string;
  /** Set only against the sandbox. */
  sandbox?: SandboxHandle;
  version?: Version;
  /** Unique per file and run: slugs and titles start with it, so runs never collide. */
  prefix: string;
  client(extra?: Partial<SiteConnection>): CalendarClient;
  anonymous(extra?: Partial<SiteConnection>): CalendarClient;
  /** Records to remove at the end, by kind and id. */
  track(kind: 'events' | 'venues' | 'organizers' | 'categories' | 'tags', id: number): void;
  close(): Promise<void>;
}

export async function openTarget(opts: { version?: Version; faults?: SandboxFaults; seed?: number; siteTimezone?: string; now?: () => Date } = {}): Promise<Target> {
  const prefix = `cs${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  let sandbox: SandboxHandle | undefined;
  let url: string;
  let namespace: string;
  let user: string;
  let password: string;
  if (REAL_URL) {
    url = REAL_URL;
    namespace = process.env.CALSYNC_CONTRACT_NAMESPACE ?? 'tribe/events/v1';
    user = process.env.CALSYNC_CONTRACT_USER ?? '';
    password = process.env.CALSYNC_CONTRACT_PASSWORD ?? '';
  } else {
    const { startSandbox } = (await import('../../src/sandbox/index.ts')) as unknown as {
      startSandbox(o: Record<string, unknown>): Promise<SandboxHandle>;
    };
    sandbox = await startSandbox({ port: 0, version: opts.version ?? '6.17.2', seed: opts.seed, siteTimezone: opts.siteTimezone, now: opts.now, ...opts.faults });
    ({ url, namespace, user, password } = sandbox);
  }
  const clients: CalendarClient[] = [];
  const tracked: Array<[string, number]> = [];
  const make = (conn: SiteConnection) => {
    const c = new CalendarClient(conn);
    clients.push(c);
    return c;
  };
  const base = (extra?: Partial<SiteConnection>): SiteConnection => ({
    restRoot: url,
    namespace,
    retry: { minDelayMs: 20, maxDelayMs: 500 },
    ...extra,
  });
  return {
    url,
    namespace,
    user,
    password,
    sandbox,
    version: sandbox ? (opts.version ?? '6.17.2') : undefined,
    prefix,
    client: (extra) => make({ ...base(extra), auth: extra?.auth ?? { kind: 'basic', user, password } }),
    anonymous: (extra) => make(base(extra)),
    track: (kind, id) => tracked.push([kind, id]),
    async close() {
      if (REAL_URL && tracked.length) {
        // Trash what this run created; already trashed or gone is fine.
        const c = new CalendarClient({ ...base(), auth: { kind: 'basic', user, password } });
        for (const [kind, id] of tracked.reverse()) {
          await (c as unknown as Record<string, { delete(id: number): Promise<unknown> }>)[kind]!.delete(id).catch(() => undefined);
        }
        await c.close();
      }
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await sandbox?.close();
    },
  };
}

/** A far-future window so a real site's own events never mix in. */
export const WINDOW = { start_date: '2031-01-01', end_date: '2031-12-31' } as const;

/** An event body on `day` (1–28) of January 2031. */
export function eventBody(title: string, day = 1, extra: Record<string, unknown> = {}) {
  const d = String(day).padStart(2, '0');
  return {
    title,
    start_date: `2031-01-${d} 10:00:00`,
    end_date: `2031-01-${d} 11:00:00`,
    timezone: 'Europe/Paris',
    ...extra,
  };
}

/** Runs `fn` and returns what it threw (fails the test when nothing was thrown). */
export async function caught(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw');
}

/** Opens a target before the enclosing describe's tests and closes it after them. */
export function useTarget(set: (t: Target) => void, opts: Parameters<typeof openTarget>[0] = {}): void {
  let target: Target | undefined;
  beforeAll(async () => {
    target = await openTarget(opts);
    set(target);
  });
  afterAll(() => target?.close());
}
