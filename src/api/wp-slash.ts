import { hasBackslash } from '../util/backslash.ts';

/**
 * The Events Calendar's v1 routes unslash what they store for an event, venue or organizer
 * (`wp_insert_post` and the meta writes run `wp_unslash`, PHP `stripslashes`): a title sent as
 * `C:\Temp` is stored as `C:Temp`, `\\` as `\`. So every string of such a body is sent with its
 * backslashes doubled (WordPress's `wp_slash`), and the site stores the text as given. The
 * category and tag routes keep backslashes and get bodies as they are. The sandbox unslashes the
 * same way (src/sandbox/slashes.ts); test/contract/backslashes.test.ts checks both.
 */
export function wpSlash<T>(value: T): T {
  return slashed(value) as T;
}

function slashed(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('\\') ? value.replace(/\\/g, '\\\\') : value;
  if (Array.isArray(value)) return value.some(hasBackslash) ? value.map(slashed) : value;
  if (value && typeof value === 'object') return hasBackslash(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, slashed(v)])) : value;
  return value;
}
