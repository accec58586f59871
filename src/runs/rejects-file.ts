import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import { rejectsWidth, writeRejectsCsv } from '../sources/csv/index.ts';

/** A rejected row: the input's cells as they were, where it was, and why it was rejected. */
export interface RejectRow {
  line: number;
  raw: string[];
  reason: string;
}

/**
 * A CSV run's rejects file, for the inline run (src/runs/import-csv.ts) and the queued one
 * (jobs/csv-rejects.ts) alike. Each chunk's rejected rows are spooled to disk as the chunk ends,
 * as a part of their own (so chunk jobs on several workers, retried or not, each replace only their
 * own part), never kept in memory for the whole run; the file is written from the parts, one
 * chunk in memory at a time, once the widest row of the run is known, and renamed into place.
 */
export class RejectsFile {
  readonly file: string;
  private readonly partsDir: string;

  /**
   * `file` is the rejects file; `partsDir` the folder the parts are spooled to, beside it by
   * default. It must be the same for every process that spools or writes the run's parts.
   */
  constructor(file: string, partsDir = `${file}.${process.pid}.parts`) {
    this.file = file;
    this.partsDir = partsDir;
  }

  private partOf(chunk: number): string {
    return path.join(this.partsDir, `chunk-${chunk}.json`);
  }

  /** Spools one chunk's rejected rows (atomically: a retried chunk replaces its own part). */
  async spool(chunk: number, rows: RejectRow[]): Promise<void> {
    const file = this.partOf(chunk);
    if (rows.length === 0) return void (await rm(file, { force: true }));
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    // The part's width on a line of its own ahead of its rows: write() needs every part's width
    // before it writes the header, and reads it without parsing the rows.
    await writeFile(tmp, `${JSON.stringify({ width: rejectsWidth(rows) })}\n${JSON.stringify(rows)}`);
    await rename(tmp, file);
  }

  /**
   * Writes the rejects file from the parts of chunks 0 to `chunks - 1`, then removes the parts.
   * `fallback` gives the rows of a chunk with no part (a queued chunk that failed every attempt).
   * Returns the file, or undefined (and no file) when no row was rejected.
   */
  async write(chunks: number, csv: { headers: string[]; delimiter: string }, fallback: (chunk: number) => Promise<RejectRow[]> = async () => []): Promise<string | undefined> {
    // Every row is padded to the widest row of the whole run, so `line` and `reason` sit under
    // their header in every chunk (padding each chunk to its own widest row shifted them).
    let width = 0;
    for (let i = 0; i < chunks; i++) width = Math.max(width, (await partWidth(this.partOf(i))) ?? rejectsWidth(await fallback(i)));
    const tmp = `${this.file}.${process.pid}.tmp`;
    let out: WriteStream | undefined;
    try {
      for (let i = 0; i < chunks; i++) {
        const rows = (await readPart(this.partOf(i))) ?? (await fallback(i));
        if (rows.length === 0) continue;
        rows.sort((a, b) => a.line - b.line);
        const body = writeRejectsCsv(rows, csv.headers, csv.delimiter, { width, header: !out });
        out ??= await createOutput(tmp);
        if (!out.write(body)) await once(out, 'drain');
      }
    } finally {
      out?.end();
      if (out) await once(out, 'close');
    }
    await this.discard();
    if (!out) return undefined;
    await rename(tmp, this.file);
    return this.file;
  }

  /** Removes the parts (a run that failed or was cancelled writes no rejects file). */
  async discard(): Promise<void> {
    await rm(this.partsDir, { recursive: true, force: true });
  }
}

async function createOutput(file: string): Promise<WriteStream> {
  await mkdir(path.dirname(file), { recursive: true });
  return createWriteStream(file);
}

async function readPart(file: string): Promise<RejectRow[] | undefined> {
  try {
    const text = await readFile(file, 'utf8');
    // `{"width":N}` then the rows; a part spooled before widths were recorded is the rows alone.
    return JSON.parse(text.startsWith('{') ? text.slice(text.indexOf('\n') + 1) : text) as RejectRow[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A part's width from its first line (a few bytes read), or undefined when there is no part. */
async function partWidth(file: string): Promise<number | undefined> {
  const fh = await open(file, 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!fh) return undefined;
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(64), 0, 64, 0);
    const head = buffer.toString('latin1', 0, bytesRead);
    const end = head.indexOf('\n');
    if (head.startsWith('{') && end > 0) return (JSON.parse(head.slice(0, end)) as { width: number }).width;
  } finally {
    await fh.close();
  }
  return rejectsWidth((await readPart(file)) ?? []);
}
