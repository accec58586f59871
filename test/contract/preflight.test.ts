import { describe, expect, it } from 'vitest';
import { PreflightError, preflight, type SiteConnection } from '../../src/api/index.ts';
import { caught, useTarget, type Target } from './harness.ts';

/**
 * What the preflight (src/api/preflight.ts) relies on, checked on the sandbox and, with
 * CALSYNC_CONTRACT_URL, on a real site: the REST index at the root lists the namespaces and
 * publishes the site's zone; wrong credentials are refused on every route; an editors-only read
 * (`status=draft`) tells a writer from an anonymous caller.
 */
describe('site preflight', () => {
  let t: Target;
  useTarget((target) => {
    t = target;
  });
  const conn = (auth?: SiteConnection['auth']): SiteConnection => ({ restRoot: t.url, namespace: t.namespace, ...(auth ? { auth } : {}) });

  it('the REST index lists the calendar namespace and publishes the site zone (timezone_string, gmt_offset)', async () => {
    const facts = await preflight(conn({ kind: 'basic', user: t.user, password: t.password }), { write: true });
    expect(facts.namespaces).toContain(t.namespace);
    expect(typeof facts.timezoneString).toBe('string');
    expect(Number.isFinite(facts.gmtOffset)).toBe(true);
  });

  it('wrong credentials are refused at the index: "wrong user or application password"', async () => {
    const err = await caught(() => preflight(conn({ kind: 'basic', user: t.user, password: 'wrongwrongwrongwrongwrong' }), { write: true }));
    expect(err).toBeInstanceOf(PreflightError);
    expect((err as PreflightError).code).toBe('preflight-credentials-rejected');
    expect((err as Error).message).toMatch(/wrong user or application password/);
  });

  it('an anonymous reader passes, an anonymous writer is told to set credentials', async () => {
    await expect(preflight(conn(), { write: false })).resolves.toMatchObject({ namespaces: expect.arrayContaining([t.namespace]) });
    const err = await caught(() => preflight(conn(), { write: true }));
    expect((err as PreflightError).code).toBe('preflight-no-credentials');
  });

  it('a namespace the site does not serve names the one it does', async () => {
    const err = await caught(() => preflight({ restRoot: t.url, namespace: 'no/such/v9', auth: { kind: 'basic', user: t.user, password: t.password } }, { write: true }));
    expect((err as PreflightError).code).toBe('preflight-namespace-missing');
    const named = /add --namespace (\S+)$/.exec((err as Error).message)?.[1];
    expect(['tribe/events/v1', 'calendar/events/v1']).toContain(named);
    expect((await preflight(conn(), { write: false })).namespaces).toContain(named);
  });
});
