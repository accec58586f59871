/**
 * A function of one string, remembered. Spreadsheet cells repeat (a file's zones, times and dates,
 * venue and organizer names): reading each distinct value once is cheaper than once per row.
 * Bounded: cleared when it holds `max` entries, and a string longer than `maxChars` is never kept,
 * so memory stays flat whatever the file. Results are shared between callers: never mutate one.
 */
export function memoized<T>(fn: (s: string) => T, max = 1024, maxChars = 200): (s: string) => T {
  return memoizedBy((s: string) => s, fn, max, maxChars);
}

/**
 * The same for a function of any argument, remembered by `keyOf(arg)`: a string that must tell apart
 * every two arguments `fn` could answer differently for (ICS properties are read by their value and
 * the parameters the reader looks at). The bounds apply to the key.
 */
export function memoizedBy<A, T>(keyOf: (a: A) => string, fn: (a: A) => T, max = 1024, maxChars = 200): (a: A) => T {
  const cache = new Map<string, T>();
  // The last key and its result, always in the cache too: a key asked twice in a row (a row's end
  // date on its start's day, the next row's venue) is compared, not hashed again.
  let lastKey: string | undefined;
  let last: T | undefined;
  return (a) => {
    const k = keyOf(a);
    if (k === lastKey) return last as T;
    if (k.length > maxChars) return fn(a);
    let out = cache.get(k);
    if (out === undefined && !cache.has(k)) {
      out = fn(a);
      if (cache.size >= max) cache.clear();
      cache.set(k, out);
    }
    lastKey = k;
    last = out;
    return out as T;
  };
}

/**
 * memoizedBy for a key of `arity` strings (a row's cells): looked up one string at a time, through
 * nested Maps, rather than joined into one string, which cost a copy and a hash of the whole key
 * on every call (profiled: joining two cells was half of a CSV row's venue lookup). `keysOf` writes
 * the strings into the array it is given. Same bounds as memoizedBy: at most `max` results (then
 * cleared), none kept when the strings are longer than `maxChars` together.
 */
export function memoizedByStrings<A, T>(arity: number, keysOf: (a: A, out: string[]) => void, fn: (a: A) => T, max = 1024, maxChars = 200): (a: A) => T {
  type Level = Map<string, unknown>; // Levels down to the last, whose values are results.
  let root: Level = new Map();
  let size = 0;
  const keys = new Array<string>(arity).fill('');
  return (a) => {
    keysOf(a, keys);
    let chars = 0;
    for (const k of keys) chars += k.length;
    if (chars > maxChars) return fn(a);
    let level = root;
    for (let i = 0; i < arity - 1; i++) {
      let next = level.get(keys[i]!) as Level | undefined;
      if (!next) level.set(keys[i]!, (next = new Map()));
      level = next;
    }
    const last = keys[arity - 1]!;
    let out = level.get(last) as T | undefined;
    if (out === undefined && !level.has(last)) {
      const path = keys.slice(); // fn may call back into this memo (its own keys array)
      out = fn(a);
      if (size >= max) {
        root = new Map();
        size = 0;
        level = root;
        for (let i = 0; i < arity - 1; i++) {
          const next: Level = new Map();
          level.set(path[i]!, next);
          level = next;
        }
      }
      level.set(path[arity - 1]!, out);
      size++;
    }
    return out as T;
  };
}
