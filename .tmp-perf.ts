import { Readable } from 'node:stream';
import { openRecords } from './src/sources/csv/parse.ts';
let text = 'Title,Start Date\n';
for (let i = 0; i < 20000; i++) text += `E${i},2024-01-05\n`;
const buf = Buffer.from(text);
for (const chunk of [65536, 1024]) {
  const t0 = performance.now();
  const rs = await openRecords(Readable.from((function* () { for (let i = 0; i < buf.length; i += chunk) yield buf.subarray(i, i + chunk); })(), { objectMode: false }));
  let n = 0;
  for await (const r of rs.records) n++;
  console.log(chunk, n, (performance.now() - t0).toFixed(0), 'ms');
}
