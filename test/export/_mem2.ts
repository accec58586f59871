import { plainText } from '../../src/export/text.ts';
import { renderEvent } from '../../src/export/render.ts';
const mb = (b: number) => (b / 1048576).toFixed(0);
const g = (globalThis as any).gc as () => void;
const what = process.argv[2];
g(); console.log(what, 'base', mb(process.memoryUsage().rss));
const D = '<p>An evening of <strong>chamber music</strong> with works by Bach; doors open.</p><ul><li>Tickets</li></ul><p>More at <a href="https://t.example.org/">the box office</a>.</p>';
for (let i = 0; i < Number(process.argv[3] ?? 50000); i++) {
  if (what === 'text') plainText(D.replace('evening', 'evening ' + i));
  if (what === 'json') JSON.parse(JSON.stringify({ a: D + i, b: [1, 2, 3] }));
  if (what === 'render') renderEvent({ id: i, status: 'publish', title: 'x', slug: 's', start_date: '2032-03-05 10:00:00', end_date: '2032-03-05 11:00:00', timezone: 'Europe/Berlin', categories: [], tags: [], venue: [], organizer: [] } as any, { siteHost: 'h' });
}
g(); console.log(JSON.stringify(process.memoryUsage())); console.log(what, 'after', mb(process.memoryUsage().rss), 'heap', mb(process.memoryUsage().heapUsed), 'max', mb(process.resourceUsage().maxRSS * 1024));
