/**
 * Query strings as the site reads them: arrays as CSV (`include=1,2,3`, the documented form; src/sandbox/params.ts reads both),
 * booleans as `true`/`false`, undefined left out. Order follows the object, so URLs are stable.
 */
export function toQuery(params: object | undefined): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (!params) return out;
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) out.push([key, value.map(String).join(',')]);
    else if (typeof value === 'boolean') out.push([key, value ? 'true' : 'false']);
    else out.push([key, String(value)]);
  }
  return out;
}
