import type { ErrorCode } from './codes.ts';

/**
 * The base of every error calsync throws on purpose: a stable `code` from the registry
 * (src/errors/codes.ts) to branch on, and a message that says what the user can do about it.
 * Catch sites match on `code` or on the class, never on the message text.
 */
export abstract class CalsyncError extends Error {
  abstract readonly code: ErrorCode;
}

export function isCalsyncError(err: unknown): err is CalsyncError {
  return err instanceof CalsyncError;
}
