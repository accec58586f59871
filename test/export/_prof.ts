import { renderEvent } from '/work/main/src/export/render.ts';
import { plainText, plainTitle } from '/work/main/src/export/text.ts';
import { eventTiming } from '/work/main/src/export/timing.ts';
const DESCRIPTION =
  '<p>An evening of <strong>chamber music</strong> with works by Bach, Brahms and Schumann; doors open 30 minutes before.</p>' +
  '<ul><li>Tickets at the door</li><li>Reduced rates for students</li></ul><p>More at <a href="https://tickets.example.org/">the box office</a>.</p>';
const rec = (i: number) => ({ id: i, status: 'publish', title: `Bench event ${i} &amp; friends`, slug: 's', description: DESCRIPTION, start_date: '2032-03-05 10:00:00', end_date: '2032-03-05 11:00:00', timezone: ['Europe/Berlin','UTC','Asia/Tokyo'][i%3], modified_utc: '2031-06-02 10:00:00', categories: [{id:1,name:'Music',slug:'m'}], tags: [], venue: {id: 5, venue: 'Town Hall', city: 'X'}, organizer: [{id: 6, organizer: 'A', email: 'a@b.c'}] } as any);
const N = 3000;
let t = performance.now(); for (let i = 0; i < N; i++) plainText(DESCRIPTION); console.log('plainText', (performance.now()-t)/N*1000, 'µs');
t = performance.now(); for (let i = 0; i < N; i++) plainTitle(`Bench ${i} &amp; x`); console.log('plainTitle', (performance.now()-t)/N*1000, 'µs');
t = performance.now(); for (let i = 0; i < N; i++) eventTiming(rec(i)); console.log('timing', (performance.now()-t)/N*1000, 'µs');
t = performance.now(); for (let i = 0; i < N; i++) renderEvent(rec(i), { siteHost: 'h' }); console.log('renderEvent', (performance.now()-t)/N*1000, 'µs');
