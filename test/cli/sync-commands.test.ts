import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportJson } from '../../src/report/report.ts';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { seedSite } from '../support/seed.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';
import { spawnWorker, writeConfig } from '../support/worker-process.ts';

const cli = (args: string[], env: Record<string, string>) => runCli(args, env);


describe('sync from the command line', () => {
  let source: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    source = await testSite();
    await seedSite(source.client, ['en', 'fr'], 120);
  }, 60_000);
  afterAll(async () => source.close());

  const configFor = (target: Awaited<ReturnType<typeof testSite>>) =>
    writeConfig({
      sites: [
        { name: 'src', restRoot: source.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, languages: ['en', 'fr'] },
        { name: 'dst', restRoot: target.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, languages: ['en', 'fr'] },
      ],
      syncs: [{ name: 'copy', from: 'src', to: 'dst', window: { from: '2027-01-01', to: '2027-12-31' } }],
    });

  it('`enqueue sync-site --wait --json` follows the flow to its finish and prints the run\'s report', async () => {
    const target = await testSite();
    const config = configFor(target);
    const prefix = testPrefix();
    const worker = spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PASSWORD: PASSWORD }, args: ['--queues', 'sync'] });
    try {
      const r = await cli(['--config', config, '--redis', redisUrl(), '--prefix', prefix, 'enqueue', 'sync-site', '--name', 'copy', '--wait', '--json'], { SB_PASSWORD: PASSWORD });
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as ReportJson;
      expect(report.run.language).toBe('en,fr');
      expect(report.counts.events).toMatchObject({ read: 240, created: 240, failed: 0 });
      expect(target.sandbox.dump('fr').events).toHaveLength(120);
      // Its page jobs, counted to the total its two planners gave (3 pages of 50 per language).
      expect(r.stderr).toMatch(/write \(jobs\) \[#+\] 100% 6\/6/);
    } finally {
      await worker.kill('SIGKILL');
      await target.close();
    }
  }, 90_000);

  it('`sync --from --to` runs in this process: created, then a rerun with nothing to write', async () => {
    const target = await testSite();
    const config = configFor(target);
    try {
      const args = ['--config', config, '--redis', redisUrl(), '--prefix', testPrefix(), 'sync', '--from', 'src', '--to', 'dst', '--lang', 'all', '--window', '2027-01-01..2027-12-31', '--json'];
      const first = await cli(args, { SB_PASSWORD: PASSWORD });
      expect(first.code, first.stderr).toBe(0);
      expect((JSON.parse(first.stdout) as ReportJson).counts.events).toMatchObject({ read: 240, created: 240 });
      target.sandbox.resetStats();
      const again = await cli(args, { SB_PASSWORD: PASSWORD });
      expect((JSON.parse(again.stdout) as ReportJson).counts.events).toMatchObject({ read: 240, unchanged: 240 });
      expect(target.sandbox.stats().writes).toBe(0);
    } finally {
      await target.close();
    }
  }, 90_000);
});
