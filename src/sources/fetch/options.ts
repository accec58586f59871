import pkg from '../../../package.json' with { type: 'json' };
import type { LookupFn } from './connector.ts';
import { compilePolicy, type AddressPolicy } from './guard.ts';

/** Options of one fetch; every field is optional and documented with its default. */
export interface FetchOptions {
  /** Cap on body bytes, counted on the wire and again after decompression. @defaultValue 50 MiB */
  maxBytes?: number;
  /**
   * connectMs: TCP/TLS connect including DNS (10s). headersMs: request sent → response headers
   * (30s). bodyMs: longest silence while the body streams in (30s). totalMs: the whole fetch,
   * redirects and body included (120s), since the others are inactivity timers a trickling
   * server can keep resetting.
   */
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number; totalMs?: number };
  /** @defaultValue 5 */
  maxRedirects?: number;
  /**
   * Hosts (`feeds.intranet`), addresses (`127.0.0.1`) or CIDRs (`10.20.0.0/16`) exempt from
   * the SSRF guard, for trusted internal feeds.
   */
  allow?: string[];
  /** Accept local paths and file: URLs (the CLI sets this; queued jobs never do). @defaultValue false */
  allowFiles?: boolean;
  /** Validators from the previous run, sent as If-None-Match / If-Modified-Since. */
  conditional?: { etag?: string; lastModified?: string };
  /** @defaultValue `calsync/<version> (+https://github.com/calsync/calsync)` */
  userAgent?: string;
  /** Caller's cancellation (e.g. the BullMQ job's signal); aborting rejects with its reason. */
  signal?: AbortSignal;
  /** DNS resolver, `dns.lookup(host, {all: true}, cb)`-shaped. @defaultValue dns.lookup */
  lookup?: LookupFn;
}

export interface ResolvedOptions {
  maxBytes: number;
  connectMs: number;
  headersMs: number;
  bodyMs: number;
  totalMs: number;
  maxRedirects: number;
  /** The allow list, compiled (and validated) up front so a bad entry fails before any I/O. */
  policy: AddressPolicy;
  allowFiles: boolean;
  conditional: { etag?: string; lastModified?: string };
  userAgent: string;
  lookup?: LookupFn;
}

export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
export const DEFAULT_USER_AGENT = `calsync/${pkg.version} (+https://github.com/calsync/calsync)`;

export function resolveOptions(opts: FetchOptions): ResolvedOptions {
  const t = opts.timeouts ?? {};
  const resolved: ResolvedOptions = {
    maxBytes: positive('maxBytes', opts.maxBytes, DEFAULT_MAX_BYTES),
    connectMs: positive('timeouts.connectMs', t.connectMs, 10_000),
    headersMs: positive('timeouts.headersMs', t.headersMs, 30_000),
    bodyMs: positive('timeouts.bodyMs', t.bodyMs, 30_000),
    totalMs: positive('timeouts.totalMs', t.totalMs, 120_000),
    maxRedirects: nonNegative('maxRedirects', opts.maxRedirects, 5),
    policy: compilePolicy(opts.allow),
    allowFiles: opts.allowFiles ?? false,
    conditional: opts.conditional ?? {},
    userAgent: opts.userAgent ?? DEFAULT_USER_AGENT,
  };
  if (opts.lookup) resolved.lookup = opts.lookup;
  return resolved;
}

// Option mistakes are programming errors, not fetch failures: a TypeError, not a FetchError.
function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`fetch option ${name} must be a positive number, got ${value}`);
  return value;
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`fetch option ${name} must be a whole number ≥ 0, got ${value}`);
  return value;
}
