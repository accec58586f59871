import type { z } from 'zod';
import { RequestValidationError } from './errors/index.ts';
import { Id, Slug } from './schemas/common.ts';
import { compiled } from '../util/compiled.ts';

/** An answer read as a record of `schema` (throws the schema's ZodError, which the executor reports as ResponseFormatError). */
export function parsed<S extends z.ZodType>(schema: S, json: unknown): z.output<S> {
  return compiled(schema).parse(json);
}

/** Checks a body, query or path value before sending; nothing reaches the site when it fails. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, method: string, route: string, what: string): z.output<S> {
  const r = compiled(schema).safeParse(value);
  if (!r.success) throw new RequestValidationError(method, route, what, r.error.issues);
  return r.data;
}

// The accepting cases of Slug and Id, tested without zod (every call checks one); anything else
// goes through the schema, which refuses it with its issues. SLUG_CHARS is Slug's own pattern.
const SLUG_CHARS = /^[^/?#\s]+$/;

export function slugSegment(slug: string, method: string, route: string): string {
  const ok = typeof slug === 'string' && slug.length <= 200 && SLUG_CHARS.test(slug);
  return encodeURIComponent(ok ? slug : validate(Slug, slug, method, route, 'slug'));
}

export function idSegment(id: number, method: string, route: string): string {
  return String(Number.isSafeInteger(id) && id > 0 ? id : validate(Id, id, method, route, 'id'));
}
