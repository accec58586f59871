import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { LANGUAGES, type Language } from '../model/languages.ts';
import { ArtifactWriteError, ExportAbortedError, ExportParamsError } from './errors.ts';

/**
 * Feed files on disk: `<dir>/<name>.<lang>.ics`.
 *
 * Writes are atomic (a temp file in the same directory, fsync, then rename over the old one), so
 * the feed server never serves half a file. A file is only replaced when its bytes change: the
 * mtime is the feed's Last-Modified, and rewriting identical bytes would make every subscriber's
 * conditional request miss. The ETag is a hash of the bytes, computed the same way here and in the
 * feed server.
 */

/** Feed names: what the config allows, and nothing that could leave the directory. */
export const FEED_NAME = /^[a-z0-9][a-z0-9-]{0,99}$/;
const FILE = /^([a-z0-9][a-z0-9-]{0,99})\.([a-z]{2})\.ics$/;

export function assertFeedName(name: string): void {
  if (!FEED_NAME.test(name)) throw new ExportParamsError('name', `"${name}" must be 1–100 of a-z, 0-9 and "-", starting with a letter or digit`);
}

export function isLanguage(lang: string): lang is Language {
  return (LANGUAGES as readonly string[]).includes(lang);
}

export function feedFileName(name: string, lang: Language): string {
  assertFeedName(name);
  return `${name}.${lang}.ics`;
}

/** `<name>.<lang>.ics` → its parts; undefined for anything else (temp files, other files). */
export function parseFeedFileName(file: string): { name: string; lang: Language } | undefined {
  const m = FILE.exec(file);
  if (!m || !isLanguage(m[2])) return undefined;
  return { name: m[1], lang: m[2] };
}

/** Strong ETag of a SHA-256 digest. */
export function etagOf(digest: Buffer): string {
  return `"${digest.toString('base64url')}"`;
}

export async function hashFile(path: string): Promise<Buffer> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest();
}

export interface ArtifactWrite {
  path: string;
  bytes: number;
  etag: string;
  /** False when the file already held these bytes (it was left untouched). */
  changed: boolean;
}

const FLUSH_AT = 1 << 20;

/**
 * Writes `parts` (UTF-8) to `<dir>/<file>` atomically, unless the file already holds the same bytes.
 * On any failure or abort the temp file is removed and the old file stays as it was.
 */
export async function writeArtifact(dir: string, file: string, parts: Iterable<string>, signal?: AbortSignal): Promise<ArtifactWrite> {
  const path = join(dir, file);
  const tmp = join(dir, `.${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const hash = createHash('sha256');
  let bytes = 0;
  let keepTmp = false;
  try {
    await mkdir(dir, { recursive: true });
    const fh = await open(tmp, 'wx', 0o644);
    try {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async (): Promise<void> => {
        if (!pendingBytes) return;
        const buf = Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        await fh.write(buf);
      };
      for (const part of parts) {
        if (signal?.aborted) throw new ExportAbortedError({ cause: signal.reason });
        const buf = Buffer.from(part, 'utf8');
        hash.update(buf);
        bytes += buf.length;
        pending.push(buf);
        pendingBytes += buf.length;
        if (pendingBytes >= FLUSH_AT) await flush();
      }
      await flush();
      await fh.sync();
    } finally {
      await fh.close();
    }
    const digest = hash.digest();
    const etag = etagOf(digest);
    const old = await stat(path).catch(() => undefined);
    if (old && old.size === bytes && (await hashFile(path)).equals(digest)) {
      return { path, bytes, etag, changed: false };
    }
    await rename(tmp, path);
    keepTmp = true;
    await syncDir(dir);
    return { path, bytes, etag, changed: true };
  } catch (err) {
    if (err instanceof ExportAbortedError) throw err;
    throw new ArtifactWriteError(path, { cause: err });
  } finally {
    if (!keepTmp) await unlink(tmp).catch(() => undefined);
  }
}

/** Makes the rename durable; not every platform can open a directory, which is fine. */
async function syncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // best effort
  }
}
