import Papa from 'papaparse';
import { Readable, Writable, pipeline } from 'node:stream';
let text = 'Title,Start Date\n';
for (let i = 0; i < 100000; i++) text += `E${i},2024-01-05\n`;
const buf = Buffer.from(text);
const src = (chunk: number) => Readable.from((function* () { for (let i = 0; i < buf.length; i += chunk) yield buf.subarray(i, i + chunk).toString('latin1'); })(), { objectMode: true });

async function* bridge(input: Readable) {
  const papa = Papa.parse(Papa.NODE_STREAM_INPUT, { delimiter: ',', newline: '\n' });
  let queue: string[][] = []; let head = 0;
  let wake: (() => void) | null = null; let done = false; let error: unknown;
  let release: (() => void) | null = null;
  const HIGH = 512;
  const sink = new Writable({ objectMode: true, highWaterMark: HIGH, write(row, _e, cb) { queue.push(row); if (queue.length - head >= HIGH) release = cb; else cb(); const w = wake; wake = null; w?.(); } });
  pipeline(input, papa, sink, (err) => { error = err; done = true; const w = wake; wake = null; w?.(); });
  for (;;) {
    if (head < queue.length) {
      const row = queue[head++]!;
      if (head > 1024 && head * 2 > queue.length) { queue = queue.slice(head); head = 0; }
      if (release && queue.length - head < HIGH / 2) { const r = release; release = null; r(); }
      yield row; continue;
    }
    if (error) throw error;
    if (done) return;
    await new Promise<void>((r) => (wake = r));
  }
}
async function* parser(input: AsyncIterable<string>) {
  const p = new Papa.Parser({ delimiter: ',', newline: '\n', quoteChar: '"' });
  let partial = '';
  for await (const chunk of input) {
    const agg = partial + chunk;
    const res = p.parse(agg, 0, true);
    partial = agg.slice(res.meta.cursor);
    for (const row of res.data) yield row as string[];
  }
  if (partial) { const res = p.parse(partial, 0, false); for (const row of res.data) yield row as string[]; }
}
for (const chunk of [65536, 1024, 7]) {
  for (const [name, f] of [['bridge', bridge], ['parser', parser]] as const) {
    const t0 = performance.now(); let n = 0;
    for await (const r of (f as any)(src(chunk))) n++;
    console.log(name, chunk, n, (performance.now() - t0).toFixed(0), 'ms');
  }
}
