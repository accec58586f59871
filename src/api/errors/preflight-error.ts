/** Why a site was refused before any item was read; each names what the user has to fix. */
export type PreflightProblem = 'unreachable' | 'not-a-rest-root' | 'namespace-missing' | 'credentials-rejected' | 'no-credentials' | 'not-allowed';

/** The preflight check of a site failed (exit 1): the message is the one line a user acts on. */
export class PreflightError extends Error {
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
