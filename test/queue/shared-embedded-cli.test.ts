import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedStateFile } from '../../src/queue/redis-server.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';
import { waitFor, writeConfig } from '../support/worker-process.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** The CLI as an operator runs it with no REDIS_URL anywhere: the embedded default. */
function start(args: string[]): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const env: NodeJS.ProcessEnv = { ...process.env, SB_PASSWORD: PASSWORD, LOG_LEVEL: 'warn' };
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, exit };
}

describe('issue 13 item 10: commands on one config share one embedded Redis', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    env = await testSite();
  });
  afterAll(async () => env.close());

  it('regression: worker and `enqueue --wait` without REDIS_URL each started their own redis-server and the job waited forever; `runs` said "no Redis"', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-shared-'));
    const csv = path.join(dir, 'rows.csv');
    writeFileSync(csv, 'title,start_date,end_date,timezone\nOne,2027-02-01 10:00,2027-02-01 11:00,UTC\nTwo,2027-02-02 10:00,2027-02-02 11:00,UTC\n');
    const config = writeConfig({
      dataDir: path.join(dir, 'data'),
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' } }],
      sources: [{ name: 'rows', kind: 'csv', site: 'sb', url: csv }],
    });
    // Enqueue first, with no worker anywhere: it must say so within a few seconds, not wait in silence.
    const enqueue = start(['--config', config, 'enqueue', 'import-csv', '--name', 'rows', '--wait', '--json']);
    await waitFor('the no-worker notice', async () => /no worker is listening on queue "import"/.test(enqueue.out()), 20_000, 100);
    expect(enqueue.out()).toMatch(/start `calsync worker` with the same config/);
    // A worker started now on the same config finds the same Redis and runs the waiting job.
    const worker = start(['--config', config, 'worker', '--no-schedules']);
    try {
      expect(await Promise.race([enqueue.exit, new Promise((r) => setTimeout(() => r('timeout'), 45_000))])).toBe(0);
      const report = JSON.parse(enqueue.out().slice(enqueue.out().indexOf('{')));
      expect(report.counts.events.created).toBe(2);
      // `runs` without REDIS_URL reads the same history.
      const runs = start(['--config', config, 'runs', '--json']);
      expect(await runs.exit).toBe(0);
      const listed = JSON.parse(runs.out());
      expect(listed.runs.map((r: { name: string }) => r.name)).toContain('rows');
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exit;
    }
    // The last command out shut the embedded Redis down.
    await waitFor('the embedded Redis to stop', async () => !existsSync(embeddedStateFile(path.join(dir, 'data'))), 10_000, 100);
  }, 90_000);
});
