/**
 * Request parameter parsing with WordPress's rules: PHP-style bracket keys in query strings and
 * form bodies, its boolean spellings, CSV-or-array lists.
 */

export type Params = Record<string, unknown>;

/** `a[b][]=1&a[b][]=2` → `{a: {b: ['1', '2']}}`; objects with only numeric keys become arrays. */
export function parsePhpQuery(search: URLSearchParams): Params {
  const root: Params = {};
  for (const [rawKey, value] of search) {
    const m = /^([^[\]]+)((?:\[[^\]]*\])*)$/.exec(rawKey);
    if (!m) {
      root[rawKey] = value;
      continue;
    }
    const path = [m[1], ...[...m[2].matchAll(/\[([^\]]*)\]/g)].map((x) => x[1])];
    let node: Params = root;
    for (let i = 0; i < path.length; i++) {
      const last = i === path.length - 1;
      let key = path[i];
      if (key === '') key = String(Object.keys(node).length); // `[]` appends
      if (last) node[key] = value;
      else {
        const next = node[key];
        if (typeof next !== 'object' || next === null) node[key] = {};
        node = node[key] as Params;
      }
    }
  }
  return arrayify(root) as Params;
}

function arrayify(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const obj = v as Params;
  for (const k of Object.keys(obj)) obj[k] = arrayify(obj[k]);
  const keys = Object.keys(obj);
  if (keys.length && keys.every((k) => /^\d+$/.test(k))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => obj[k]);
  }
  return obj;
}

export function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** rest_sanitize_boolean plus the yes/no TEC also takes; undefined when not a boolean at all. */
export function toBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(s)) return true;
    if (['false', '0', 'no', 'off', ''].includes(s)) return false;
  }
  return undefined;
}

/** A positive integer (number or digit string); undefined otherwise. */
export function toPositiveInt(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) {
    const n = Number(v);
    return n > 0 ? n : undefined;
  }
  return undefined;
}

/** An array as given, or a CSV string split; scalars become one-element lists. */
export function toList(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (v === undefined || v === null) return [];
  return [v];
}

/** A numeric id in any spelling (`12`, `"12"`); undefined for anything else. */
export function toId(v: unknown): number | undefined {
  return toPositiveInt(v);
}

export function isNonEmptyString(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

/**
 * TEC's `is_string` validator: `! empty( $value ) && is_string( $value )`. PHP's empty() also
 * holds for `"0"`, and a JSON null fails too; whitespace passes.
 */
export function isPhpNonEmptyString(v: unknown): v is string {
  return typeof v === 'string' && v !== '' && v !== '0';
}

/** FILTER_VALIDATE_URL, roughly: a scheme and a host. */
export function isUrl(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return /^[a-z][a-z0-9+.-]*:$/i.test(u.protocol) && u.host !== '';
  } catch {
    return false;
  }
}

export function isEmail(v: unknown): v is string {
  return typeof v === 'string' && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v);
}

/** Plain scalar to string (numbers are common in JSON bodies for text fields like zip). */
export function asText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** WordPress sanitize_title for slugs: ASCII lowercase, digits, `-` and `_`, at most 200 chars. */
export function sanitizeSlug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&[a-z0-9#]+;/g, '')
    .replace(/[./]/g, '-')
    .replace(/[^a-z0-9_\s-]+/g, '')
    .replace(/[\s-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200)
    .replace(/-+$/g, '');
}
