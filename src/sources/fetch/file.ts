import fs from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { Deadline } from './deadline.ts';
import { readCapped } from './decode.ts';
import { BodyTooLarge, FetchError } from './errors.ts';
import { tooLargeError } from './failures.ts';
import { DEFAULT_MAX_BYTES, type ResolvedOptions } from './options.ts';
import type { FetchResult } from './result.ts';

/**
 * Read a local file (CLI imports only) under the same byte cap and deadline as a download.
 * The cap is enforced on bytes read, not on the size stat reports: /dev/zero, a FIFO or a file
 * still being written all report sizes that mean nothing.
 */
export async function readFileSource(target: { path: string; url: string }, o: ResolvedOptions, deadline: Deadline): Promise<FetchResult> {
  const { path, url } = target;
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(path);
  } catch (err) {
    throw fileError(path, url, err);
  }
  if (stat.isDirectory()) {
    throw new FetchError('file-error', url, `Could not read ${path}: it is a directory. Give the path of an .ics or .csv file.`);
  }
  if (stat.isFile() && stat.size > o.maxBytes) throw tooLargeError(url, o.maxBytes, 'file');

  // Validators in the shape HTTP uses, so the caller stores and passes them back the same way.
  // The ETag (size + mtime in ms) decides; Last-Modified alone is too coarse (1 s).
  const etag = `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
  const lastModified = stat.mtime.toUTCString();
  const base = { url, finalUrl: url, status: 200, etag, lastModified };
  if (stat.isFile() && o.conditional.etag === etag) return { ...base, notModified: true, bytes: 0 };

  try {
    const body = await readCapped(fs.createReadStream(path, { signal: deadline.signal }), undefined, o.maxBytes);
    return { ...base, notModified: false, body, bytes: body.length };
  } catch (err) {
    const aborted = deadline.explain(err, url);
    if (aborted !== undefined) throw aborted;
    if (err instanceof BodyTooLarge) throw tooLargeError(url, o.maxBytes, 'file');
    throw fileError(path, url, err);
  }
}

/**
 * A local file as a stream, under the same byte cap as a download (the CSV reader streams a file twice
 * and must not buffer it, so the cap is counted as bytes pass): past `maxBytes` the stream fails with
 * FetchError `too-large`. Local CSV files were read with no cap at all while ICS files were capped.
 */
export function openFileCapped(path: string, maxBytes = DEFAULT_MAX_BYTES): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(tooLargeError(pathToFileURL(path).href, maxBytes, 'file'));
      else done(null, chunk);
    },
  });
  const file = fs.createReadStream(path);
  file.on('error', (err) => counter.destroy(fileError(path, pathToFileURL(path).href, err)));
  counter.on('close', () => file.destroy());
  return file.pipe(counter);
}

function fileError(path: string, url: string, err: unknown): FetchError {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const what =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a directory'
          : err instanceof Error
            ? err.message
            : String(err);
  return new FetchError('file-error', url, `Could not read ${path}: ${what}.`, { cause: err });
}
