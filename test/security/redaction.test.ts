import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { QueueEvents } from 'bullmq';
import { JOBS } from '../../jobs/index.ts';
import { ImportCsvPayload } from '../../jobs/import-csv.ts';
import { ImportIcsPayload } from '../../jobs/import-ics.ts';
import { ConfigError, parseConfig } from '../../src/config/load.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { RunHistory } from '../../src/queue/history.ts';
import { openQueues, startWorkers } from '../../src/queue/worker.ts';
import { fetchSource } from '../../src/sources/fetch/index.ts';
import { redactText, redactUrl } from '../../src/util/redact.ts';
import { capturedLog } from '../support/log.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';

const TOKEN = 'tok-9f8e7d6c5b4a';

describe('secrets in feed URLs are redacted wherever a URL is shown or stored (issue 14 part 4)', () => {
  it.each([
    ['https://cal.example/basic.ics?token=abc&lang=en', 'https://cal.example/basic.ics?token=REDACTED&lang=REDACTED'],
    ['https://u:p%40ss@cal.example/a.ics', 'https://cal.example/a.ics'],
    ['webcal://u:p@cal.example/a.ics?key=1#frag', 'webcal://cal.example/a.ics?key=REDACTED#frag'],
    ['https://cal.example/a.ics?flag', 'https://cal.example/a.ics?flag'],
  ])('redactUrl(%s)', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
  });

  it('redacts every URL inside free text, even ones that do not parse', () => {
    const text = `Timed out fetching https://u:pw@a.example/x.ics?token=${TOKEN}; then http://b.example/y?sig=zz and http://[bad@c.example/?k=v`;
    const out = redactText(text);
    expect(out).not.toMatch(new RegExp(`${TOKEN}|pw@|sig=zz|k=v`));
    expect(out).toContain('https://a.example/x.ics?token=REDACTED');
  });

  it('regression: a feed URL\'s ?token= appeared in the fetch error a report and the history keep', async () => {
    const err = await fetchSource(`http://127.0.0.1:9/feed.ics?token=${TOKEN}`).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).not.toContain(TOKEN);
    expect((err as Error).message).toContain('token=REDACTED');
    expect((err as { url: string }).url).not.toContain(TOKEN);
  });

  it('regression: a configured feed\'s token reached the run history, the job\'s failedReason (dashboard) and the logs', async () => {
    const config = parseConfig({
      dataDir: mkdtempSync(path.join(tmpdir(), 'calsync-redact-')),
      sites: [{ name: 'sb', restRoot: 'http://127.0.0.1:1/wp-json' }],
      // Port 1: nothing listens, so the fetch fails with a message naming the URL.
      sources: [{ name: 'private-feed', kind: 'ics', site: 'sb', url: `http://127.0.0.1:1/feed.ics?token=${TOKEN}`, allow: ['127.0.0.1:1'] }],
    });
    const { log, text: logText } = capturedLog('trace');
    const prefix = testPrefix();
    const running = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log, prefix, queues: ['import'] });
    const queues = openQueues(redisUrl(), prefix);
    const events = new QueueEvents('import', { connection: bullConnection(redisUrl()), prefix });
    const redis = testRedis();
    try {
      await events.waitUntilReady();
      const job = await queues.import.add('import-ics', { source: 'private-feed' }, { attempts: 1 });
      const failed = await job.waitUntilFinished(events, 30_000).then(() => '', (e: Error) => e.message);
      expect(failed).toMatch(/127\.0\.0\.1:1/);
      const history = JSON.stringify(await new RunHistory(redis, { prefix }).list('private-feed'));
      expect(history).toContain('private-feed');
      const stored = (await queues.import.getJob(job.id as string))?.failedReason ?? '';
      for (const [where, text] of Object.entries({ failedReason: stored, history, logs: logText(), waitUntilFinished: failed })) {
        expect(text.includes(TOKEN), `token found in ${where}`).toBe(false);
      }
    } finally {
      await running.close(5000);
      await events.close();
      await queues.import.obliterate({ force: true }).catch(() => undefined);
      for (const q of Object.values(queues)) await q.close();
      await redis.quit();
    }
  });

  it('regression: a config restRoot with user:pass@ was accepted; it is refused like an inline password', () => {
    const err = (() => {
      try {
        parseConfig({ sites: [{ name: 'city', restRoot: 'https://admin:hunter2@city.example/wp-json' }] });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.problems.join('\n')).toMatch(/sites\[0\]\.restRoot: secrets are not allowed inline/);
    expect(err?.message).not.toContain('hunter2');
  });

  it('regression: an ad-hoc job kept user:pass@ in Redis job data; queued locations with credentials or secret query parameters are refused', () => {
    const base = { site: 'city' };
    expect(ImportIcsPayload.safeParse({ ...base, location: 'https://u:p@feeds.example/a.ics' }).success).toBe(false);
    expect(ImportIcsPayload.safeParse({ ...base, location: `https://feeds.example/a.ics?token=${TOKEN}` }).success).toBe(false);
    expect(ImportCsvPayload.safeParse({ ...base, location: `https://feeds.example/a.csv?api_key=${TOKEN}` }).success).toBe(false);
    expect(ImportIcsPayload.safeParse({ ...base, location: 'https://feeds.example/a.ics?lang=en' }).success).toBe(true);
    expect(ImportIcsPayload.safeParse({ ...base, location: 'webcal://feeds.example/a.ics' }).success).toBe(true);
  });
});
