import { describe, expect, it } from 'vitest';
import {
  ApiError,
  CalendarClient,
  NotFoundError,
  RequestValidationError,
  isNotFound,
} from '../../src/api/index.ts';
import { WINDOW, caught, eventBody, useTarget, type Target } from './harness.ts';

/** Everything a user might log or print about an error. */
function surfaces(err: unknown): string {
  const e = err as Error;
  return [e.message, e.stack ?? '', JSON.stringify(e), String((e as { url?: string }).url ?? ''), JSON.stringify((e as { body?: unknown }).body ?? null)].join('\n');
}

describe('errors', () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });

  it('missing parameters: 400 rest_missing_callback_param with an array of names', async () => {
    const err = await caught(() => c.request({ method: 'POST', path: '/events', route: '/events', body: {} }));
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.status).toBe(400);
    expect(e.code).toBe('rest_missing_callback_param');
    expect(e.params).toEqual(expect.arrayContaining(['title', 'start_date', 'end_date']));
    expect(e.paramNames.sort()).toEqual(['end_date', 'start_date', 'title']);
    expect(e.message).toMatch(/^POST \/events → 400 rest_missing_callback_param: .+ \(params: .*title.*\)$/);
    expect(e.attempts).toBe(1);
  });

  it('invalid parameters: 400 rest_invalid_param with an object of names', async () => {
    const err = await caught(() => c.request({ method: 'POST', path: '/events', route: '/events', body: { ...eventBody('x'), start_date: 'not a date at all' } }));
    const e = err as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(400);
    expect(e.code).toBe('rest_invalid_param');
    expect(Object.keys(e.params as object)).toContain('start_date');
    expect(e.message).toContain('→ 400 rest_invalid_param');
    expect(e.message).toContain('(params: start_date)');
  });

  it('an invalid field in a valid-looking body is reported with its name (unknown venue id)', async () => {
    const err = await caught(() => c.events.create(eventBody(`${t.prefix} bad venue`, 1, { venue: 987654321 })));
    expect(err).toBeInstanceOf(ApiError);
    expect(isNotFound(err)).toBe(false);
    expect((err as ApiError).paramNames).toEqual(['venue']);
  });

  it('an invalid list filter is a 400 (unknown category slug)', async () => {
    const err = await caught(() => c.events.list({ ...WINDOW, categories: [`${t.prefix}-no-such-cat`] }));
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).paramNames).toEqual(['categories']);
    expect(isNotFound(err)).toBe(false);
  });

  it('bodies the site would misread are refused before sending', async () => {
    const before = c.stats().requests;
    const cases: Array<() => Promise<unknown>> = [
      () => c.events.create({ title: 'x' } as never),
      () => c.events.create(eventBody('x', 1, { start_date: '2031-01-01T10:00:00+02:00' }) as never),
      () => c.events.create(eventBody('x', 1, { end_date: '2030-12-31 10:00:00' })),
      () => c.events.create(eventBody('x', 1, { hide_from_listing: true }) as never),
      () => c.events.create(eventBody('x', 1, { description: '' })),
      () => c.events.getBySlug('a/b'),
      () => c.events.get(0),
      () => c.events.list({ per_page: 0 }),
      () => c.events.list({ start_date: '2031-01-01T00:00:00Z' }),
      () => c.events.upsertBySlug('one', eventBody('x', 1, { slug: 'two' })),
    ];
    for (const run of cases) expect(await caught(run)).toBeInstanceOf(RequestValidationError);
    expect(c.stats().requests).toBe(before);
  });

  it('401 rest_forbidden for anonymous writes', async () => {
    const anon = t.anonymous();
    const err = await caught(() => anon.events.create(eventBody(`${t.prefix} anon`)));
    expect((err as ApiError).status).toBe(401);
    expect((err as ApiError).code).toBe('rest_forbidden');
    expect(((await caught(() => anon.events.upsertBySlug(`${t.prefix}-anon`, eventBody('x')))) as ApiError).status).toBe(401);
  });

  it('401 incorrect_password for a wrong application password, with no credential anywhere in the error', async () => {
    const secret = 'wrong Pass 1234 abcd';
    const bad = t.client({ auth: { kind: 'basic', user: t.user, password: secret } });
    const err = await caught(() => bad.events.create(eventBody(`${t.prefix} wrong`)));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect((err as ApiError).code).toBe('incorrect_password');
    const text = surfaces(err);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(Buffer.from(`${t.user}:${secret}`).toString('base64'));
    expect(text.toLowerCase()).not.toContain('authorization');
  });

  it('credentials in the REST root URL never appear in errors', async () => {
    const u = new URL(t.url);
    u.username = encodeURIComponent(t.user);
    u.password = encodeURIComponent('url-secret-98765');
    const viaUrl = new CalendarClient({ restRoot: u.toString(), namespace: t.namespace, retry: { maxRetries: 0 } });
    try {
      const err = await caught(() => viaUrl.events.create(eventBody(`${t.prefix} url`)));
      expect((err as ApiError).status).toBe(401);
      expect((err as ApiError).url.startsWith(`${u.protocol}//${u.host}/`)).toBe(true);
      const text = surfaces(err);
      expect(text).not.toContain('url-secret-98765');
      expect(text).not.toContain('@');
    } finally {
      await viaUrl.close();
    }
  });

  it('a bearer token never appears in errors', async () => {
    const token = 'tok_SECRET_abcdef123456';
    const bearer = t.client({ auth: { kind: 'bearer', token } });
    const err = await caught(() => bearer.events.create(eventBody(`${t.prefix} bearer`)));
    expect(err).toBeInstanceOf(ApiError);
    expect(surfaces(err)).not.toContain(token);
  });

  it('403 for a draft read anonymously is an ApiError, not a not-found', async () => {
    const draft = await c.events.create(eventBody(`${t.prefix} draft`, 2, { status: 'draft' }));
    t.track('events', draft.id);
    const err = await caught(() => t.anonymous().events.get(draft.id));
    expect((err as ApiError).status).toBe(403);
    expect((err as ApiError).code).toBe('event-not-accessible');
    expect(isNotFound(err)).toBe(false);
  });

  it('a wrong namespace is 404 rest_no_route, not a not-found record', async () => {
    const wrong = t.client({ namespace: 'calendar/events/v9' });
    const err = await caught(() => wrong.events.get(1));
    expect((err as ApiError).status).toBe(404);
    expect((err as ApiError).code).toBe('rest_no_route');
    expect(isNotFound(err)).toBe(false);
    // …so an upsert through a wrong namespace fails loudly instead of creating anything.
    expect(((await caught(() => wrong.events.upsertBySlug(`${t.prefix}-ns`, eventBody('x')))) as ApiError).code).toBe('rest_no_route');
  });

  it('the event password is masked in error URLs', async () => {
    const err = await caught(() => c.events.get(987654321, { password: 'event-pw-777' }));
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as ApiError).url).toContain('password=***');
    expect(surfaces(err)).not.toContain('event-pw-777');
  });
});
