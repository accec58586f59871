import fs from 'node:fs';
import { Readable } from 'node:stream';
import { openRecords } from './src/sources/csv/parse.ts';
const dir = '/work/shared/corpus/csv/';
for (const f of fs.readdirSync(dir)) {
  const r = await openRecords(fs.createReadStream(dir + f));
  const recs = [];
  for await (const x of r.records) recs.push(x);
  console.log(f, r.encoding, JSON.stringify(r.delimiter), JSON.stringify(r.newline), recs.length, recs.slice(0, 3).map(x => x.line + ':' + x.fields.length + ':' + x.fields[0]).join(' | '), 'last', recs.at(-1)!.line, JSON.stringify(recs.at(-1)!.fields).slice(0, 60));
}
// byte at a time
const buf = fs.readFileSync(dir + 'norwegian-cycling-semicolon-windows1252-crlf-html.csv');
const r = await openRecords(Readable.from((function* () { for (const b of buf) yield Buffer.from([b]); })()));
for await (const x of r.records) console.log(x.line, x.fields);
const u = Buffer.from('a,b\r\n"x\r\ny",Fran\u00e7ois\r\n\r\nz,"q""q"\r\n', 'utf8');
const r2 = await openRecords(Readable.from((function* () { for (const b of u) yield Buffer.from([b]); })()));
for await (const x of r2.records) console.log(x.line, x.fields);
// big
let n = 200000;
function* gen() { let s = 'id,text\n'; for (let i = 0; i < n; i++) { s += `${i},"line ${i}\nmore é ""q"""\n`; if (s.length > 65536) { yield Buffer.from(s); s = ''; } } yield Buffer.from(s); }
const r3 = await openRecords(Readable.from(gen()));
let k = -1, ok = true, last = 0;
for await (const x of r3.records) { if (k >= 0 && (x.fields[0] !== String(k) || x.line !== 2 + 2 * k)) { ok = false; console.log('bad', k, x); break; } k++; last = x.line; }
console.log('big', k, ok, last, process.memoryUsage().heapUsed / 1e6);
