import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, CountingProxy, credentials, globals, NO_WRITES, report, writesIn } from './support/cli.ts';
import { wallTime } from './support/feed.ts';
import { realSites, SiteApi, siteUtc } from './support/site.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

// Onboarding on site B (TEC 6.17.1): venues, then organizers, then the events that name them.
describe('CSV onboarding of venues, organizers and events, with a rejects file', () => {
  const site = realSites().b;
  const api = new SiteApi(site);
  const proxy = new CountingProxy(site.url);
  const env = credentials(site);
  let url = '';
  let g: string[] = [];
  const rejects = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-real-')), 'rejects.csv');
  beforeAll(async () => {
    await api.reset();
    url = await proxy.start();
    g = globals();
  });
  afterAll(() => proxy.stop());
  const steps = [
    ['venues.csv', '--kind', 'venues'],
    ['organizers.csv', '--kind', 'organizers'],
    ['events.csv', '--key', 'Event ID', '--rejects', rejects],
  ];
  const run = (step: string[]) => cli([...g, 'import', 'csv', fixture(step[0]), '--site', url, '--namespace', site.namespace, '--json', ...step.slice(1)], env);

  it('creates the venues and organizers with every column', async () => {
    for (const step of steps.slice(0, 2)) expect((await run(step)).code).toBe(0);
    const venues = await api.all('venues');
    expect(venues.map((v) => [v.venue, v.address, v.city, v.zip, v.country, v.phone ?? undefined, v.website ?? undefined]).sort()).toEqual([
      ['Alte Feuerwache', 'Marchlewskistraße 6', 'Berlin', '10243', 'Germany', '+49 30 1234567', 'https://feuerwache.example.org'],
      ['Kulturhaus Nord', 'Nordring 12', 'Hamburg', '20095', 'Germany', '+49 40 7654321', undefined],
      ['Scheune', 'Dorfstraße 2', 'Potsdam', '14467', 'Germany', undefined, undefined],
    ]);
    const organizers = await api.all('organizers');
    expect(organizers.map((o) => [o.organizer, o.email, o.phone ?? undefined, o.website ?? undefined]).sort()).toEqual([
      ['Lesekreis Nord', 'lesen@example.org', undefined, undefined],
      ['Verein Klangraum', 'info@klangraum.example.org', '+49 30 555000', 'https://klangraum.example.org'],
    ]);
  });

  it('imports the good event rows linked to those records, and writes the bad rows to the rejects file with line and reason', async () => {
    const r = await run(steps[2]);
    expect(r.code, r.stderr).toBe(2); // some rows failed
    const rep = report(r);
    expect(rep.counts.events).toMatchObject({ read: 7, created: 4, failed: 3 });
    const rejected = readFileSync(rejects, 'utf8').replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    expect(rejected[0]).toMatch(/^Event ID,Event Name,.*,line,reason$/);
    expect(rejected.slice(1).map((l) => l.split(',')[0])).toEqual(['csv-5', 'csv-6', 'csv-7']);
    expect(rejected[1]).toMatch(/,6,.*not a real date/);

    const events = await api.events('2030-01-01', '2030-12-31');
    expect(events.map((e) => e.title).sort()).toEqual(['Herbstfest', 'Kammerkonzert', 'Lesung: Neue Stimmen', 'Workshop New York time']);
    const by = (t: string) => events.find((e) => e.title === t)!;
    const k = by('Kammerkonzert');
    expect([k.start_date, k.end_date, k.timezone, k.all_day]).toEqual(['2030-09-05 19:30:00', '2030-09-05 21:00:00', 'Europe/Berlin', false]);
    expect(wallTime(new Date(siteUtc(k.utc_start_date)), 'Europe/Berlin')).toBe('2030-09-05 19:30:00');
    expect(k.venue.venue).toBe('Alte Feuerwache');
    expect(k.organizer.map((o: { organizer: string }) => o.organizer)).toEqual(['Verein Klangraum']);
    expect(k.categories.map((c: { name: string }) => c.name)).toEqual(['Music']);
    expect(k.tags.map((c: { name: string }) => c.name)).toEqual(['strings']);
    expect(by('Lesung: Neue Stimmen').tags.map((c: { name: string }) => c.name).sort()).toEqual(['free', 'reading']);
    const w = by('Workshop New York time');
    expect([w.timezone, w.utc_start_date]).toEqual(['America/New_York', '2030-09-10 13:00:00']);
    const h = by('Herbstfest');
    expect([h.all_day, h.start_date.slice(0, 10), h.end_date.slice(0, 10), h.venue.venue]).toEqual([true, '2030-09-20', '2030-09-21', 'Scheune']);
    // Linking an onboarded venue keeps the fields its own file gave it.
    const venue = (await api.all('venues')).find((v) => v.venue === 'Alte Feuerwache')!;
    expect([venue.address, venue.phone, venue.website]).toEqual(['Marchlewskistraße 6', '+49 30 1234567', 'https://feuerwache.example.org']);
  });

  it('the rerun of all three files sends no writes', async () => {
    const before = await api.events('2030-01-01', '2030-12-31');
    proxy.clear();
    for (const step of steps) {
      const r = await run(step);
      expect([0, 2]).toContain(r.code);
      expect(writesIn(report(r)), step[0]).toEqual({ ...NO_WRITES, events: step[0] === 'events.csv' ? 3 : 0 }); // the 3 rejected rows fail again
    }
    expect(proxy.writes()).toEqual([]);
    const after = await api.events('2030-01-01', '2030-12-31');
    expect(after.map((e) => [e.id, e.modified_utc])).toEqual(before.map((e) => [e.id, e.modified_utc]));
  });
});
