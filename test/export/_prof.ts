import { renderEvent } from '../../src/export/render.ts';
import { plainText, plainTitle } from '../../src/export/text.ts';
import { eventTiming } from '../../src/export/timing.ts';
import { ICalEvent } from 'ical-generator';
import ical from 'ical-generator';
const DESCRIPTION =
  '<p>An evening of <strong>chamber music</strong> with works by Bach, Brahms and Schumann; doors open 30 minutes before.</p>' +
  '<ul><li>Tickets at the door</li><li>Reduced rates for students</li></ul><p>More at <a href="https://tickets.example.org/">the box office</a>.</p>';
const rec = (i: number) => ({ id: i, status: 'publish', title: `Bench event ${i} &amp; friends`, slug: 's', description: DESCRIPTION, start_date: '2032-03-05 10:00:00', end_date: '2032-03-05 11:00:00', timezone: ['Europe/Berlin','UTC','Asia/Tokyo'][i%3], modified_utc: '2031-06-02 10:00:00', categories: [{id:1,name:'Music',slug:'m'}], tags: [], venue: {id: 5, venue: 'Town Hall', city: 'X'}, organizer: [{id: 6, organizer: 'A', email: 'a@b.c'}] } as any);
const N = 5000;
const bench = (name: string, f: (i: number) => unknown) => { for (let i = 0; i < 500; i++) f(i); const t = performance.now(); for (let i = 0; i < N; i++) f(i); console.log(name.padEnd(14), ((performance.now()-t)/N*1000).toFixed(1), 'µs'); };
const cal = ical();
bench('plainText', () => plainText(DESCRIPTION));
bench('plainTitle', (i) => plainTitle(`Bench ${i} &amp; x`));
bench('timing', (i) => eventTiming(rec(i)));
bench('renderEvent', (i) => renderEvent(rec(i), { siteHost: 'h' }));
