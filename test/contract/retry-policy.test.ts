import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from '../../src/api/index.ts';
import { decideAfterNetworkError, decideAfterStatus } from '../../src/api/retry.ts';

// Pure policy decisions; the behaviour against a live server is in faults.test.ts.
describe('retry policy', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(['0'], now)).toBe(0);
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Mon, 31 Dec 2029 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('backs off exponentially with full jitter under the cap', () => {
    const policy = { maxRetries: 5, minDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(0, policy, () => 0.999)).toBeLessThan(100);
    expect(backoffDelay(2, policy, () => 0.999)).toBeLessThan(400);
    expect(backoffDelay(2, policy, () => 0.999)).toBeGreaterThanOrEqual(399);
    expect(backoffDelay(10, policy, () => 0.999)).toBeLessThan(1000);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
  });

  it('repeats safe requests on 429, 5xx and lost connections', () => {
    for (const s of [429, 500, 502, 503, 504]) expect(decideAfterStatus(s, 'safe', false)).toBe('retry');
    for (const s of [400, 401, 403, 404, 410]) expect(decideAfterStatus(s, 'safe', false)).toBe('fail');
    expect(decideAfterNetworkError('ECONNRESET', 'safe', false)).toBe('retry');
    expect(decideAfterNetworkError('UND_ERR_SOCKET', 'safe', false)).toBe('retry');
    expect(decideAfterNetworkError('UND_ERR_HEADERS_TIMEOUT', 'safe', false)).toBe('retry');
  });

  it('repeats a create only when it cannot have landed, or after looking for it', () => {
    expect(decideAfterStatus(429, 'create', false)).toBe('retry');
    expect(decideAfterNetworkError('ECONNREFUSED', 'create', false)).toBe('retry');
    expect(decideAfterNetworkError('UND_ERR_CONNECT_TIMEOUT', 'create', false)).toBe('retry');
    expect(decideAfterStatus(500, 'create', false)).toBe('fail');
    expect(decideAfterStatus(503, 'create', false)).toBe('fail');
    expect(decideAfterNetworkError('ECONNRESET', 'create', false)).toBe('fail');
    expect(decideAfterStatus(500, 'create', true)).toBe('verify');
    expect(decideAfterStatus(502, 'create', true)).toBe('verify');
    expect(decideAfterNetworkError('UND_ERR_SOCKET', 'create', true)).toBe('verify');
    expect(decideAfterStatus(400, 'create', true)).toBe('fail');
  });
});
