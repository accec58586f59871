import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';
import { spawnWorker, writeConfig } from '../support/worker-process.ts';

/**
 * Found onboarding a CSV through the queue: `calsync enqueue import-csv --name kurse --wait` listed
 * the failed row but never said where its rejects file went (`<dataDir>/rejects/<run id>.csv`),
 * while `calsync import csv … --rejects` prints "rejected rows written to <file>". The job's result
 * carries the path; the text left it out.
 */
describe('regression: enqueue import-csv --wait did not say where the rejected rows were written', () => {
  let site: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    site = await testSite();
  });
  afterAll(() => site.close());

  it('prints the rejects file as the inline command does', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-enqueue-rejects-'));
    const file = path.join(dir, 'kurse.csv');
    writeFileSync(file, 'Event Name,Event Start Date\nKochkurs 1,2031-03-01 18:00\nKochkurs 2,2031-02-31 18:00\n');
    const config = writeConfig({
      dataDir: path.join(dir, 'data'),
      sites: [{ name: 'city', restRoot: site.sandbox.url, auth: { user: USER, passwordEnv: 'CITY_PASSWORD' } }],
      sources: [{ name: 'kurse', kind: 'csv', site: 'city', url: file }],
    });
    const prefix = testPrefix();
    const env = { CITY_PASSWORD: PASSWORD };
    const worker = spawnWorker({ config, redisUrl: redisUrl(), prefix, env, args: ['--queues', 'import'] });
    try {
      const r = await runCli(['--config', config, '--redis', redisUrl(), '--prefix', prefix, 'enqueue', 'import-csv', '--name', 'kurse', '--wait'], env);
      expect(r.code, r.stderr).toBe(2);
      const m = /rejected rows written to (\S+\.csv)$/m.exec(r.stdout);
      expect(m, r.stdout).not.toBeNull();
      expect(m![1]!.startsWith(path.join(dir, 'data', 'rejects'))).toBe(true);
      expect(existsSync(m![1]!)).toBe(true);
      expect(readFileSync(m![1]!, 'utf8')).toContain('Kochkurs 2');
    } finally {
      await worker.kill('SIGKILL');
    }
  }, 90_000);
});
