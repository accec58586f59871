import { describe, expect, it } from 'vitest';
import { RunHistory } from '../../src/queue/history.ts';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { writeConfig } from '../support/worker-process.ts';

describe('regression: `calsync resume <typo>` answered "<typo> was not paused" with exit 0, and the paused source stayed paused', () => {
  it('a name neither configured nor paused is refused (exit 1); a paused name the config no longer has is marked and can still be resumed', { timeout: 60_000 }, async () => {
    const prefix = testPrefix();
    const config = writeConfig({ sites: [{ name: 'city', restRoot: 'http://127.0.0.1:9/wp-json' }], sources: [{ name: 'city-feed', kind: 'ics', site: 'city', url: 'https://feeds.example.org/city.ics' }] });
    const cli = (...args: string[]) => runCli(['--config', config, '--redis', redisUrl(), '--prefix', prefix, ...args], {});
    const redis = testRedis();
    try {
      const history = new RunHistory(redis, { prefix, pauseAfterFailures: 1 });
      const failed = (name: string) => history.record({ id: `${name}-1`, name, kind: 'import-ics', status: 'failed', startedAt: new Date().toISOString(), durationMs: 1, failures: [], error: 'feed unreachable' });
      await failed('city-feed');
      await failed('old-feed'); // a source since removed from the config

      const typo = await cli('resume', 'city-fed');
      expect(typo.code).toBe(1);
      expect(typo.stderr).toMatch(/nothing to resume: no source, export or sync named "city-fed" in the config/);
      expect(await history.paused('city-feed')).toBeDefined();

      const runs = await cli('runs');
      expect(runs.stdout).toMatch(/^PAUSED old-feed \(not in the config\) since/m);
      expect(runs.stdout).toMatch(/^PAUSED city-feed since/m);

      const old = await cli('resume', 'old-feed');
      expect(old.code, old.stderr).toBe(0);
      expect(old.stdout).toMatch(/^resumed old-feed/);
      const ok = await cli('resume', 'city-feed');
      expect(ok.code, ok.stderr).toBe(0);
      expect(await history.paused('city-feed')).toBeUndefined();
      const again = await cli('resume', 'city-feed');
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/city-feed was not paused/);
    } finally {
      await redis.quit();
    }
  });
});
