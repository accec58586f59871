import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { testSite } from '../support/site.ts';

/**
 * Found with `sync --dry-run` against a real site: the dry run said "60 updated" of venues the real
 * run then linked and left alone ("linked existing venue …: its fields were left as they are"),
 * so the preview promised writes over the site's own venues that never come.
 */

const feed = [
  'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN',
  'BEGIN:VEVENT', 'UID:dry-linked-1@example.org', 'SUMMARY:Talk', 'LOCATION:Their Hall', 'ORGANIZER;CN=Their Org:mailto:org@example.org',
  'DTSTART:20310310T190000Z', 'DTEND:20310310T200000Z', 'DTSTAMP:20260101T000000Z', 'END:VEVENT',
  'END:VCALENDAR', '',
].join('\r\n');

describe('regression: a dry run said "would be updated" of the site\'s own venues and organizers, which the run links and leaves alone', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let params: IcsImportParams;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-dry-linked-')), 'talks.ics');
    writeFileSync(file, feed);
    params = {
      location: file, site: env.site, sourceKey: 'talks', lang: 'en', window: { from: new Date('2031-01-01T00:00:00Z'), to: new Date('2031-12-31T23:59:59Z') },
      retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: true, allowFiles: true,
    };
    await env.client.venues.create({ venue: 'Their Hall', city: 'Their town' });
    await env.client.organizers.create({ organizer: 'Their Org', email: 'their@example.org' });
  });
  afterAll(async () => {
    redis.disconnect();
    await env.close();
  });

  it('the dry run reports them linked, as the run then does', async () => {
    const prefix = testPrefix();
    const dry = await runIcsImport(params, { redis, prefix });
    const real = await runIcsImport({ ...params, dryRun: false }, { redis, prefix });
    for (const r of [dry, real]) {
      expect(r.counts.venues).toMatchObject({ read: 1, created: 0, updated: 0, unchanged: 1 });
      expect(r.counts.organizers).toMatchObject({ read: 1, created: 0, updated: 0, unchanged: 1 });
      expect(r.items.filter((i) => i.kind === 'venues' || i.kind === 'organizers').map((i) => i.reason)).toEqual([
        expect.stringMatching(/^linked to the site's own (venue|organizer) "Their (Hall|Org)"/),
        expect.stringMatching(/^linked to the site's own (venue|organizer) "Their (Hall|Org)"/),
      ]);
    }
  });
});
