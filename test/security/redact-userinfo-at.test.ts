import { describe, expect, it } from 'vitest';
import { fetchSource } from '../../src/sources/fetch/index.ts';
import { redactText, redactUrl } from '../../src/util/redact.ts';

/**
 * Regression: the free-text redaction (src/util/redact.ts, also the backstop on every job's
 * failedReason and the run history) cut userinfo at its FIRST `@`. With an e-mail address as user
 * name the password stayed: `calsync import ics 'https://john@example.com:s3cret@cal.example:99999/feed.ics'`
 * printed "https://example.com:s3cret@cal.example:99999/feed.ics is not a valid URL".
 */

const SECRET = 's3cret';

describe('regression: a URL whose user name or password holds an @ kept its password when redacted as text', () => {
  it.each([
    [`https://john@example.com:${SECRET}@cal.example:99999/feed.ics`, 'https://cal.example:99999/feed.ics'],
    [`https://john:pa@${SECRET}@cal.example/feed.ics?token=x`, 'https://cal.example/feed.ics?token=REDACTED'],
    [`failed: webcal://a@b:${SECRET}@cal.example then https://ok.example/x?y=1`, 'failed: webcal://cal.example then https://ok.example/x?y=REDACTED'],
  ])('redactText(%j)', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it('redactUrl (parsed) agrees', () => {
    expect(redactUrl(`https://john@example.com:${SECRET}@cal.example/feed.ics`)).toBe('https://cal.example/feed.ics');
  });

  it('an @ after the host (path, query) is not userinfo', () => {
    expect(redactText('https://cal.example/users/@me/feed.ics')).toBe('https://cal.example/users/@me/feed.ics');
    expect(redactText('https://cal.example?mail=a@b.example')).toBe('https://cal.example?mail=REDACTED');
    expect(redactText('https://cal.example#a@b')).toBe('https://cal.example#a@b');
  });

  it('the error of an unparsable feed URL does not show the password', async () => {
    const err = await fetchSource(`https://john@example.com:${SECRET}@cal.example:99999/feed.ics`).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain('is not a valid URL');
    expect((err as Error).message).not.toContain(SECRET);
  });
});
