import type { z } from 'zod';
import { RequestValidationError } from './errors/index.ts';
import { Id, Slug } from './schemas/common.ts';

/** Checks a body, query or path value before sending; nothing reaches the site when it fails. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, method: string, route: string, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new RequestValidationError(method, route, what, r.error.issues);
  return r.data;
}

export function slugSegment(slug: string, method: string, route: string): string {
  return encodeURIComponent(validate(Slug, slug, method, route, 'slug'));
}

export function idSegment(id: number, method: string, route: string): string {
  return String(validate(Id, id, method, route, 'id'));
}
