import fs from 'node:fs';
import { inspectCsv, readCsv, CsvRefusedError, type CsvOptions } from './src/sources/csv/index.ts';
const dir = '/work/shared/corpus/csv/';
const maps: Record<string, Record<string,string>> = {
  'cruise-schedule-headerless-iso-datetimes.csv': { '1': 'title', '2': 'start_date', '3': 'end_date', '4': 'description', '5': 'venue' },
  'massport-cruise-schedule-excel-title-row-crlf.csv': { Vessel: 'title', Date: 'start_date', ETA: 'start_time', ETD: 'end_time', Berth: 'venue', Remarks: 'description', 'Cruise Line': 'organizer' },
  'norwegian-cycling-semicolon-windows1252-crlf-html.csv': { Navn: 'title', Dato: 'start_date', Gren: 'categories', Sted: 'venue', 'Arrangør': 'organizer' },
};
for (const f of fs.readdirSync(dir)) {
  for (const mapping of [undefined, maps[f]]) {
    if (mapping === undefined && maps[f] === undefined && false) continue;
    if (mapping === undefined && !maps[f]) {} 
    const opts: CsvOptions = { kind: 'events', sourceKey: 'k', sourceName: f, ...(mapping ? { mapping } : {}) };
    const open = () => fs.createReadStream(dir + f);
    try {
      const ins = await inspectCsv(open, opts);
      console.log('==', f, mapping ? '(mapped)' : '', JSON.stringify({ ...ins, headers: undefined, fields: undefined }));
      for await (const it of readCsv(open, opts, ins)) {
        if (it.result.ok) { const d: any = it.result.draft; console.log(' ', it.line, 'OK', d.title, d.start_date, d.end_date, d.timezone, d.all_day, JSON.stringify({c: d.categories?.map((x:any)=>x.name), v: d.venue?.venue, o: d.organizers?.map((x:any)=>x.organizer), cost: d.cost, sm: d.show_map, st: d.status}).slice(0,200)); }
        else console.log(' ', it.line, 'FAIL', it.result.failure.reason);
      }
    } catch (e) { if (e instanceof CsvRefusedError) console.log('==', f, mapping ? '(mapped)' : '', 'REFUSED', e.message); else throw e; }
    if (!maps[f]) break;
  }
}
