import { isSet, toList } from './params.ts';

/**
 * WordPress's `_fields` query parameter, on every route (core's `rest_filter_response_fields`,
 * a `rest_post_dispatch` filter, so TEC's routes have it too: test/contract/fields.test.ts):
 * a successful answer keeps only the named keys, `a.b` naming a key inside `a`. A list answer
 * (a JSON array) is filtered item by item; any other answer, a TEC list envelope included, as one
 * object, so `_fields=id` on `/events` leaves an empty envelope, as the real site does.
 */
export type FieldTree = { [key: string]: true | FieldTree };

/** The `_fields` of a query as core reads it; undefined when absent or empty (no filtering). */
export function requestedFields(query: Record<string, unknown>): FieldTree | undefined {
  if (!isSet(query._fields)) return undefined;
  const names = toList(query._fields).map((f) => String(f).trim()).filter((f) => f !== '');
  if (names.length === 0) return undefined;
  const tree: FieldTree = {};
  for (const name of names) {
    const parts = name.split('.');
    let ref = tree;
    let skipped = false;
    while (parts.length > 1) {
      const next = parts.shift()!;
      const at = ref[next];
      // A parent already kept whole keeps every key under it.
      if (at === true) {
        skipped = true;
        break;
      }
      ref = (ref[next] = at ?? {});
    }
    if (!skipped) ref[parts[0]!] = true;
  }
  return tree;
}

function intersect(data: unknown, tree: FieldTree): unknown {
  if (!data || typeof data !== 'object') return data;
  const kept: [string, unknown][] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    const want = tree[k];
    if (want === true) kept.push([k, v]);
    else if (want) kept.push([k, intersect(v, want)]);
  }
  // A PHP array: JSON encodes it as a list when empty or numbered 0, 1, …, else as an object.
  return kept.length === 0 || (Array.isArray(data) && kept.every(([k], i) => k === String(i))) ? kept.map(([, v]) => v) : Object.fromEntries(kept);
}

/** What a PHP fatal error answers on a real site (WordPress's fatal error handler). */
export const CRITICAL_ERROR = { code: 'internal_server_error', message: '<p>There has been a critical error on this website.</p>', data: { status: 500 }, additional_errors: [] };

/** A WP_Error object a route returned as its data, serialized (TEC 6.17.1's by-slug update miss answers so, with 200). */
function isWpErrorObject(body: unknown): boolean {
  return !!body && typeof body === 'object' && !Array.isArray(body) && 'errors' in body && 'error_data' in body;
}

/**
 * A successful answer filtered by `_fields`; errors are never filtered (core skips them). A WP_Error
 * object answered with 200 is no error to core, and filtering it is a PHP fatal: on a real TEC 6.17.1
 * site a by-slug update that misses answers 500 "critical error" when `_fields` is sent
 * (test/contract/fields.test.ts), which is why the client sends it on creates only.
 */
export function filterFields(reply: { status: number; body: unknown }, fields: FieldTree | undefined): { status: number; body: unknown } {
  const { status, body } = reply;
  if (!fields || status < 200 || status >= 300) return reply;
  if (isWpErrorObject(body)) return { status: 500, body: CRITICAL_ERROR };
  return { status, body: Array.isArray(body) ? body.map((item) => intersect(item, fields)) : intersect(body, fields) };
}
