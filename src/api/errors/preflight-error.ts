import { CalsyncError } from '../../errors/calsync-error.ts';
import type { PreflightCode } from '../../errors/codes.ts';

/** Why a site was refused before any item was read; each names what the user has to fix. */
export type PreflightProblem = PreflightCode extends `preflight-${infer P}` ? P : never;

/** The preflight check of a site failed (exit 1): the message is the one line a user acts on. */
export class PreflightError extends CalsyncError {
  override name = 'PreflightError';
  readonly code: `preflight-${PreflightProblem}`;
  readonly problem: PreflightProblem;
  readonly url: string;

  constructor(problem: PreflightProblem, url: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.problem = problem;
    this.code = `preflight-${problem}`;
    this.url = url;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message, url: this.url };
  }
}
