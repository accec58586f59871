/**
 * Safe fetch for user-supplied feed locations: http(s) and webcal URLs (and local files from the
 * CLI), with an SSRF guard, timeouts, a byte cap that survives decompression, bounded redirects
 * and conditional GET. See DESIGN.md rule 5.
 */
import { startDeadline } from './deadline.ts';
import { readFileSource } from './file.ts';
import { fetchHttp } from './fetch.ts';
import { resolveLocation } from './location.ts';
import { resolveOptions, type FetchOptions } from './options.ts';
import type { FetchResult } from './result.ts';

export { FetchError, type FetchErrorCode } from './errors.ts';
export { openFileCapped } from './file.ts';
export { isPublicAddress } from './guard.ts';
export { mapWebcal, resolveLocation } from './location.ts';
export { DEFAULT_MAX_BYTES, DEFAULT_USER_AGENT, type FetchOptions } from './options.ts';
export type { LookupAddress, LookupFn } from './connector.ts';
export type { FetchResult } from './result.ts';

/**
 * Fetch a feed. Resolves with the body (or `notModified`), rejects with a FetchError, or with the
 * caller's abort reason if `opts.signal` fires.
 */
export async function fetchSource(location: string, opts: FetchOptions = {}): Promise<FetchResult> {
  const o = resolveOptions(opts);
  opts.signal?.throwIfAborted();
  const target = resolveLocation(location, o.allowFiles);
  const deadline = startDeadline(o.totalMs, opts.signal);
  return target.kind === 'file' ? readFileSource(target, o, deadline) : fetchHttp(target.url, o, deadline);
}
