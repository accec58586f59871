import { describe, expect, it } from 'vitest';
import { ApiError, isNotFound, type CalendarClient } from '../../src/api/index.ts';
import { caught, useTarget, type Target } from './harness.ts';

describe('overview routes', () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });

  it('root() returns the namespace index with the calendar routes', async () => {
    const index = (await c.root()) as { namespace: string; routes: Record<string, unknown> };
    expect(index.namespace).toBe(t.namespace);
    const routes = Object.keys(index.routes);
    expect(routes.some((r) => r.endsWith('/events'))).toBe(true);
    expect(routes.some((r) => r.includes('/events/by-slug/'))).toBe(true);
  });

  it('root() passes namespace and context through', async () => {
    const index = (await c.root({ namespace: t.namespace, context: 'help' })) as { namespace: string };
    expect(index.namespace).toBe(t.namespace);
  });

  it('root() with an unknown namespace is a 404 ApiError, not a not-found record', async () => {
    const err = await caught(() => c.root({ namespace: 'no/such/v9' }));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
    expect(isNotFound(err)).toBe(false);
  });

  it('doc() returns the OpenAPI document', async () => {
    const doc = (await c.doc()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/events', '/events/{id}', '/events/by-slug/{slug}']));
  });

  it('doc() answers anonymous clients too', async () => {
    const doc = (await t.anonymous().doc()) as { openapi: string };
    expect(doc.openapi).toMatch(/^3\./);
  });
});
