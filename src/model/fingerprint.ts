import { hash } from 'node:crypto';

/**
 * JSON with keys sorted at every level, so equal values always serialize the same. Written as a
 * loop (no entries/filter/sort-of-pairs/map arrays per object): a re-import fingerprints every
 * event of the feed, and the output must stay byte for byte what ledgers already hold.
 */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + stableStringify(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(k)}:${stableStringify(v)}`;
    first = false;
  }
  return `${out}}`;
}

/** Fingerprint of a full write body (term ids resolved): equal fingerprints mean no write is needed. */
export function fingerprint(body: unknown): string {
  return hash('sha256', stableStringify(body), 'hex').slice(0, 32);
}
