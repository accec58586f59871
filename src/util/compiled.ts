import { z } from 'zod';

/**
 * A schema's compiled copy (z.compile), made on first use and shared by the whole process. The
 * copy runs generated code first and the schema's own parser where that code refuses a value, so
 * it accepts, refuses and outputs exactly what the schema does, refusals with the same issues
 * (test/contract/compiled-schemas.test.ts). The runtime parsers were the largest part of a by-slug
 * update's own CPU (bench/api.ts), of a CSV row's (bench/csv-read-child.ts) and of reading the
 * ledger back on a re-import; the compiled copies a tenth to a twentieth of that.
 */
const copies = new WeakMap<z.ZodType, z.ZodType>();

export function compiled<S extends z.ZodType>(schema: S): S {
  let copy = copies.get(schema);
  if (copy === undefined) copies.set(schema, (copy = z.compile(schema)));
  return copy as S;
}
