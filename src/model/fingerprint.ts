import { hash } from 'node:crypto';

/**
 * JSON with keys sorted at every level, so equal values always serialize the same. A re-import
 * fingerprints every event of its feed, so the value is copied with its keys in order and the
 * native JSON.stringify writes it; the output stays byte for byte what ledgers already hold
 * (test/model/fingerprint.test.ts pins it). For JSON data: functions and symbols are not
 * expected, and `toJSON` is never called (objects are copied key by key, as before).
 */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  const copy = sortedCopy(value);
  return copy === REORDERED ? slowStringify(value) : JSON.stringify(copy);
}

/** Integer-like keys, which the engine puts first whatever the insertion order (and `__proto__`): written by hand. */
const REORDERED = Symbol('reordered');
const isIndexKey = (k: string) => k.length > 0 && k.charCodeAt(0) >= 48 && k.charCodeAt(0) <= 57;

function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const v = value[i] === undefined ? null : sortedCopy(value[i]);
      if (v === REORDERED) return REORDERED;
      out[i] = v;
    }
    return out;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  // A plain object literal, not Object.create(null): V8 makes a prototype-less object a dictionary,
  // which took a re-import's 17k event bodies twice as long to copy and write. `__proto__` is the one
  // key a literal cannot hold as data: that value is written by hand, like integer-like keys.
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    if (isIndexKey(k) || k === '__proto__') return REORDERED;
    const c = sortedCopy(v);
    if (c === REORDERED) return REORDERED;
    out[k] = c;
  }
  return out;
}

function slowStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(slowStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${slowStringify(v)}`).join(',')}}`;
}

/** Fingerprint of a full write body (term ids resolved): equal fingerprints mean no write is needed. */
export function fingerprint(body: unknown): string {
  return hashOf(stableStringify(body));
}

/** The fingerprint of a value already written as stableStringify writes it (see eventFingerprint in src/write/body.ts). */
export function hashOf(stable: string): string {
  return hash('sha256', stable, 'hex').slice(0, 32);
}
