import { execFile } from 'node:child_process';
import { enableCompileCache } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

/** One row of the benchmark table: a figure, its unit, and (when it has one) its reference in the same run. */
export interface Scenario {
  name: string;
  figure: number;
  unit: string;
  reference?: string | number;
  ratio?: number;
}

export function machine() {
  return {
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    date: new Date().toISOString(),
  };
}

export const round = (n: number, digits = 2) => Number(n.toFixed(digits));

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

/**
 * Runs a bench script in its own process and returns the JSON it prints last: peak RSS is then
 * that scenario's own (`process.resourceUsage().maxRSS`), not the whole suite's.
 */
export function inChild<T>(script: string, args: string[] = [], timeoutMs = 300_000): Promise<T> {
  const file = fileURLToPath(new URL(script, import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', file, ...args], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${script} failed: ${err.message}\n${stderr.slice(-2000)}`));
      const last = stdout.trim().split('\n').pop() ?? '{}';
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${script} printed no JSON: ${stdout.slice(-500)}`));
      }
    });
  });
}

export function peakRssMiB(): number {
  return round(process.resourceUsage().maxRSS / 1024, 1);
}

export function printTable(scenarios: Scenario[]): string {
  const rows = scenarios.map((s) => [s.name, `${s.figure} ${s.unit}`, String(s.reference ?? ''), s.ratio === undefined ? '' : String(s.ratio)]);
  const head = ['scenario', 'figure', 'reference (same run)', 'ratio'];
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(w[i]!)).join(' | ')} |`;
  return [line(head), `|${w.map((n) => '-'.repeat(n + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

let cacheFilled: Promise<unknown> | undefined;

/**
 * Imports run as the CLI and the queue worker run them (src/cli/main.ts): with Node's compile cache
 * on, and filled as any earlier run on the machine has filled it (bench/compile-cache-child.ts, in a
 * process of its own, so no warm parser thread is left for the run measured). Once per process.
 */
export function likeTheCli(): Promise<unknown> {
  enableCompileCache();
  return (cacheFilled ??= inChild('./compile-cache-child.ts'));
}
