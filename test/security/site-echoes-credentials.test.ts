import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { resolveSite } from '../../src/config/sites.ts';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { feedServer } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

/**
 * Regression: a site (or a proxy in front of it) that echoes the request's headers in an error put
 * calsync's credential into the report: `FAILED event …: POST /events → 400 http_400: Bad gateway
 * Authorization: Basic YWRtaW46…` (and the decoded password, when the page decoded it). Reports
 * go to the run history in Redis, the job's return value on the dashboard and the logs.
 */

const USER = 'calsync';
const PASSWORD = 'abcd EFGH 1234 ijkl MNOP 5678';
const TOKEN = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

/** A REST root that lists nothing and answers every write with an error echoing the Authorization header. */
async function echoingSite(form: 'json' | 'html'): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const auth = req.headers.authorization ?? '';
    const decoded = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString() : '';
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (u.pathname === '/wp-json' || u.pathname === '/wp-json/') return json(200, { namespaces: ['calendar/events/v1'], timezone_string: 'UTC', gmt_offset: 0 });
    // A create answered 502 is verified by slug before it is retried: nothing was created.
    if (req.method === 'GET' && u.pathname.includes('/by-slug/')) return json(404, { code: 'event-not-found', message: 'not found', data: { status: 404 } });
    if (req.method === 'GET') return json(200, { events: [], venues: [], organizers: [], categories: [], tags: [], total: 0, total_pages: 0 });
    if (form === 'json') return json(400, { code: 'rest_invalid', message: `rejected request with ${auth} (${decoded})`, data: { status: 400 } });
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end(`<html><body><h1>Bad gateway</h1><pre>Authorization: ${auth}\nuser: ${decoded}</pre></body></html>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/wp-json`,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

const FEED = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'BEGIN:VEVENT', 'UID:echo@test', 'DTSTART:20270301T100000Z', 'DURATION:PT1H', 'SUMMARY:echo', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

describe('regression: a site echoing the Authorization header in an error put the credential into the report', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it.each(['json', 'html'] as const)('%s error bodies: the failure is reported without the token or the password', async (form) => {
    const site = await echoingSite(form);
    const feed = await feedServer(FEED);
    try {
      const report = await runIcsImport(
        {
          site: resolveSite(site.url, undefined, { env: { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD } }),
          sourceKey: 'echo', lang: 'en', defaultTimezone: 'UTC', status: 'publish', createTerms: true, dryRun: false,
          location: feed.url, window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
          retire: 'keep', onEdit: 'overwrite', categoriesAs: 'categories', allow: [new URL(feed.url).host],
        },
        { redis, prefix: testPrefix() },
      );
      expect(report.counts.events.failed).toBe(1);
      const text = JSON.stringify(report);
      expect(text).toContain('REDACTED');
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(PASSWORD);
    } finally {
      await feed.close();
      await site.close();
    }
  });
});
