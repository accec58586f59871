import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** One real site as the suite sees it: REST root, namespace, credentials, and how to empty it. */
export interface RealSite {
  url: string;
  namespace: string;
  user: string;
  password: string;
  version: string;
  /** Kit sites: reset through realsite.sh (snapshot restore). Otherwise the suite deletes records by API. */
  kit?: { script: string; dir: string; port: number };
}

/** The kit script: $CALSYNC_REALSITE_KIT, else ../shared/realsite/realsite.sh beside the repository. */
export function kitScript(): string {
  return path.resolve(REPO, process.env.CALSYNC_REALSITE_KIT ?? '../shared/realsite/realsite.sh');
}

export function kitAvailable(): boolean {
  return existsSync(kitScript());
}

/** Parses a kit env file (REALSITE_URL=…, one per line). */
export function readEnvFile(file: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, 'utf8').trim().split('\n').filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** A site described by a kit env file; it stays resettable through the kit when the script exists. */
export function siteFromEnvFile(file: string): RealSite {
  const env = readEnvFile(file);
  const port = Number(new URL(env.REALSITE_URL).port);
  return {
    url: env.REALSITE_URL,
    namespace: env.REALSITE_NAMESPACE,
    user: env.REALSITE_USER,
    password: env.REALSITE_PASSWORD,
    version: env.REALSITE_VERSION,
    ...(kitAvailable() ? { kit: { script: kitScript(), dir: path.dirname(path.resolve(file)), port } } : {}),
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts one kit site on a free port in `dir`; the kit installs missing apt packages when run as root. */
export async function startKitSite(dir: string, version: string): Promise<RealSite> {
  const port = await freePort();
  try {
    await run('bash', [kitScript(), 'start', '--dir', dir, '--port', String(port), '--version', version], { maxBuffer: 10e6, timeout: 15 * 60_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`realsite.sh start --port ${port} --version ${version} failed: ${e.stderr?.trim().split('\n').slice(-5).join('\n') ?? e.message}`, { cause: err });
  }
  return siteFromEnvFile(path.join(dir, `site-${port}.env`));
}

export async function stopKit(dir: string): Promise<void> {
  await run('bash', [kitScript(), 'stop', '--dir', dir], { timeout: 60_000 });
}

export async function resetKitSite(kit: NonNullable<RealSite['kit']>): Promise<void> {
  await run('bash', [kit.script, 'reset', '--dir', kit.dir, '--port', String(kit.port)], { timeout: 60_000 });
}

export function kitScratchDir(): string {
  return process.env.CALSYNC_REAL_DIR ?? mkdtempSync(path.join(tmpdir(), 'calsync-realsite-'));
}

/**
 * The two sites the suite runs against, from the environment:
 * - CALSYNC_REAL_A_URL / _NAMESPACE / _USER / _PASSWORD (and CALSYNC_REAL_B_…): any staging site;
 * - CALSYNC_REAL_A_ENV / CALSYNC_REAL_B_ENV: env files of kit sites that are already running.
 * Returns undefined when neither is set (the caller then starts kit sites).
 */
export function sitesFromEnv(env = process.env): { a: RealSite; b: RealSite } | undefined {
  const one = (k: 'A' | 'B'): RealSite | undefined => {
    const file = env[`CALSYNC_REAL_${k}_ENV`];
    if (file) return siteFromEnvFile(file);
    const url = env[`CALSYNC_REAL_${k}_URL`];
    if (!url) return undefined;
    return {
      url,
      namespace: env[`CALSYNC_REAL_${k}_NAMESPACE`] ?? 'tribe/events/v1',
      user: env[`CALSYNC_REAL_${k}_USER`] ?? '',
      password: env[`CALSYNC_REAL_${k}_PASSWORD`] ?? '',
      version: env[`CALSYNC_REAL_${k}_VERSION`] ?? 'unknown',
    };
  };
  const a = one('A');
  const b = one('B');
  if (!a && !b) return undefined;
  if (!a || !b) throw new Error('set both site A (source, e.g. TEC 6.17.2) and site B (target, e.g. 6.17.1): CALSYNC_REAL_A_… and CALSYNC_REAL_B_…');
  return { a, b };
}

/** Environment that hands two resolved sites to child processes (vitest runs, contract suite). */
export function sitesToEnv(sites: { a: RealSite; b: RealSite }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, s] of [['A', sites.a], ['B', sites.b]] as const) {
    Object.assign(out, {
      [`CALSYNC_REAL_${k}_URL`]: s.url,
      [`CALSYNC_REAL_${k}_NAMESPACE`]: s.namespace,
      [`CALSYNC_REAL_${k}_USER`]: s.user,
      [`CALSYNC_REAL_${k}_PASSWORD`]: s.password,
      [`CALSYNC_REAL_${k}_VERSION`]: s.version,
    });
    if (s.kit) out[`CALSYNC_REAL_${k}_ENV`] = path.join(s.kit.dir, `site-${s.kit.port}.env`);
  }
  return out;
}
