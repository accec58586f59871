import { FetchError } from './errors.ts';
import { checkHttpUrl, redactText, redactUrl } from './location.ts';

/**
 * Redirects are followed by hand rather than by undici's redirect interceptor so that each hop
 * goes through the same checks as the first URL (scheme, literal-address guard, credential
 * handling) and the final URL is known for the result.
 */

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function isRedirect(status: number, location: string | undefined): location is string {
  return REDIRECT_STATUSES.has(status) && location !== undefined && location !== '';
}

/**
 * Where a redirect points, resolved against the current URL. `followed` is how many redirects
 * were already taken; taking one more than `maxRedirects` is refused.
 */
export function redirectTarget(from: URL, location: string, followed: number, maxRedirects: number): URL {
  if (followed >= maxRedirects) {
    throw new FetchError(
      'too-many-redirects',
      redactUrl(from),
      `Gave up on ${redactUrl(from)}: more than ${maxRedirects} redirects. The feed URL may be outdated; ` +
        'open it in a browser to find where it lives now.',
    );
  }
  let next: URL;
  try {
    next = new URL(location, from);
  } catch (err) {
    throw new FetchError(
      'bad-url',
      redactUrl(from),
      `${redactUrl(from)} redirected to an invalid URL (${redactText(location)}).`,
      { cause: err },
    );
  }
  return checkHttpUrl(next);
}

/** Credentials (an Authorization header from userinfo) only follow redirects within one origin. */
export function sameOrigin(a: URL, b: URL): boolean {
  return a.origin === b.origin;
}
