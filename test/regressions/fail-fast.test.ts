import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { runCsvImport } from '../../src/runs/import-csv.ts';
import { RunFailedError } from '../../src/runs/context.ts';
import { resolveSite } from '../../src/config/sites.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

/** Issue 13 item 4: check the site once before reading items; a site that stops answering ends the run. */

function feed(n: number): string {
  const ev = (i: number) => {
    const d = new Date(Date.UTC(2027, 0, 1) + i * 3_600_000).toISOString().replace(/[-:]/g, '').slice(0, 15);
    return ['BEGIN:VEVENT', `UID:ff-${i}@example.org`, `SUMMARY:Fail fast ${i}`, `DTSTART:${d}Z`, 'DURATION:PT1H', 'DTSTAMP:20260101T000000Z', 'END:VEVENT'];
  };
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...Array.from({ length: n }, (_, i) => ev(i)).flat(), 'END:VCALENDAR', ''].join('\r\n');
}

async function failure(run: Promise<unknown>): Promise<RunFailedError> {
  const err = await run.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(RunFailedError);
  return err as RunFailedError;
}

describe('issue 13: fail fast and say why', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let file: string;
  let csv: string;
  beforeAll(async () => {
    env = await testSite();
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-failfast-'));
    file = path.join(dir, 'many.ics');
    writeFileSync(file, feed(300));
    csv = path.join(dir, 'rows.csv');
    writeFileSync(csv, 'title,start_date,end_date\nOne,2027-01-01 10:00,2027-01-01 11:00\nTwo,2027-01-02 10:00,2027-01-02 11:00\n');
  });
  afterAll(async () => env.close());

  const YEAR_2027 = { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T23:59:59Z') };
  const params = (over: Partial<IcsImportParams> = {}): IcsImportParams => ({
    location: file, site: env.site, sourceKey: 'ff', lang: 'en', window: YEAR_2027, retire: 'keep', onEdit: 'overwrite',
    status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true, ...over,
  });
  const siteAt = (url: string, password = PASSWORD) => resolveSite(url, undefined, { env: { CALSYNC_USER: USER, CALSYNC_PASSWORD: password } });

  it('regression: a dead site cost 20 minutes (17,502 requests) before exit 2', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const t0 = Date.now();
    const err = await failure(runIcsImport(params({ site: siteAt(`http://127.0.0.1:${port}/wp-json`) })));
    expect(err.code).toBe('preflight-unreachable');
    expect(err.message).toMatch(new RegExp(`nothing listens at http://127\\.0\\.0\\.1:${port}`));
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('regression: a wrong password sent one failing request per event and exited 2', async () => {
    env.sandbox.resetStats();
    const err = await failure(runIcsImport(params({ site: siteAt(env.sandbox.url, 'wrong-password-here') })));
    expect(err.code).toBe('preflight-credentials-rejected');
    expect(err.message).toMatch(/wrong user or application password/);
    expect(env.sandbox.stats().total).toBeLessThanOrEqual(1);
    expect(env.sandbox.stats().writes).toBe(0);
  });

  it('regression: a URL that is not a calendar site (a plain web server) sent one failing request per event', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>It works!</body></html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    let hits = 0;
    server.on('request', () => hits++);
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const err = await failure(runCsvImport({ location: csv, site: siteAt(url), kind: 'events', sourceKey: 'plain', lang: 'en', status: 'publish', createTerms: true, dryRun: false, chunkSize: 50, allowFiles: true }));
      expect(err.code).toBe('preflight-not-a-rest-root');
      expect(err.message).toContain('is not a WordPress REST root');
      expect(hits).toBe(1);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('regression: a site that stops answering mid-run cost one retry budget per remaining item', async () => {
    env.sandbox.resetStats();
    const err = await failure(runIcsImport(params({ sourceKey: 'dies' }), {
      // The site passes the preflight, then fails every request.
      onProgress: (p) => {
        if (p.phase === 'fetch') env.sandbox.setFaults({ errorRate: 1 });
      },
    }));
    env.sandbox.setFaults({ errorRate: 0 });
    expect(err.code).toBe('site-down');
    expect(err.message).toMatch(/stopped answering: 20 requests in a row failed/);
    // 300 items with 6 attempts each would be 1,800 requests; the breaker stops at 20 failures
    // (plus the attempts already in flight, at most the site's concurrency).
    expect(env.sandbox.stats().total).toBeLessThanOrEqual(2 + 20 + env.site.concurrency);
    // The failure carries the report so far (what --json prints).
    expect(err.report?.failure).toEqual({ code: 'site-down', message: err.message });
  });
});
