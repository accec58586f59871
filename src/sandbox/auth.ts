import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.ts';

export interface Credentials {
  user: string;
  password: string;
  token?: string;
}

/** WordPress ignores the spaces it prints inside application passwords. */
function squash(s: string): string {
  return s.replace(/\s+/g, '');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** An application password the way WordPress shows one: six groups of four. */
export function generatePassword(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const bytes = randomBytes(24);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]).join('');
  return chars.match(/.{4}/g)!.join(' ');
}

/**
 * Who is calling: true with valid Basic (application password) or Bearer credentials, false when
 * anonymous. Bad Basic credentials fail the whole request with 401 before any routing, as
 * WordPress's authentication errors do; unknown schemes are ignored (anonymous).
 */
export function authenticate(header: string | undefined, creds: Credentials): boolean | ApiError {
  if (!header) return false;
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    const user = i < 0 ? decoded : decoded.slice(0, i);
    const password = i < 0 ? '' : decoded.slice(i + 1);
    if (user !== creds.user) {
      return new ApiError(401, 'invalid_username', 'Unknown username. Check again or try your email address.');
    }
    if (!same(squash(password), squash(creds.password))) {
      return new ApiError(401, 'incorrect_password', 'The provided password is an invalid application password.');
    }
    return true;
  }
  if (/^bearer$/i.test(scheme) && creds.token !== undefined) {
    if (same(value, creds.token)) return true;
    return new ApiError(401, 'invalid_token', 'The provided bearer token is invalid.');
  }
  return false;
}
