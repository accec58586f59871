import { compareRendered, icsParts, renderEvent, writeArtifact, type RenderedEvent } from '../../src/export/index.ts';
const n = Number(process.argv[2] ?? 50000);
const DESCRIPTION = '<p>An evening of <strong>chamber music</strong> with works by Bach, Brahms and Schumann; doors open 30 minutes before.</p><ul><li>Tickets at the door</li><li>Reduced rates for students</li></ul><p>More at <a href="https://tickets.example.org/">the box office</a>.</p>';
const mb = (b: number) => (b / 1048576).toFixed(0);
const g = (globalThis as any).gc as () => void;
g(); const base = process.memoryUsage();
console.log('base rss', mb(base.rss), 'heap', mb(base.heapUsed));
const kept: RenderedEvent[] = [];
for (let page = 0; page * 50 < n; page++) {
  const json = JSON.stringify(Array.from({ length: 50 }, (_, k) => { const i = page * 50 + k; return { id: i, status: 'publish', title: `Bench event ${i} &amp; friends`, slug: 's', description: DESCRIPTION.replace('evening', 'evening ' + i), start_date: '2032-03-05 10:00:00', end_date: '2032-03-05 11:00:00', timezone: ['Europe/Berlin','UTC','Asia/Tokyo'][i%3], modified_utc: '2031-06-02 10:00:00', categories: [{id:1,name:'Music',slug:'m'}], tags: [], venue: {id: 5, venue: 'Town Hall', city: 'X'}, organizer: [{id: 6, organizer: 'A', email: 'a@b.c'}] }; }));
  for (const rec of JSON.parse(json)) { const r = renderEvent(rec, { siteHost: "h" }); if (!process.env.DISCARD) kept.push(r); }
}
g(); const after = process.memoryUsage();
console.log('after render rss', mb(after.rss), 'heap', mb(after.heapUsed), 'ext', mb(after.external), 'maxrss', mb(process.resourceUsage().maxRSS * 1024));
let chars = 0; for (const e of kept) chars += e.text.length; console.log('text MB', mb(chars));
kept.sort(compareRendered);
const w = await writeArtifact('/tmp/exp/mem', 'm.en.ics', icsParts({ name: 'm', lang: 'en', siteHost: 'h' }, kept));
g(); const fin = process.memoryUsage();
console.log('after write rss', mb(fin.rss), 'heap', mb(fin.heapUsed), 'file', mb(w.bytes), 'maxrss', mb(process.resourceUsage().maxRSS * 1024));
