import type { z } from 'zod';
import { CalsyncError } from '../errors/calsync-error.ts';

/**
 * Bad option values, one line per problem naming the flag and what it accepts
 * (`--retire: "burn" is not one of keep, draft, trash, delete`). Exit 1, before any work.
 */
export class OptionsError extends CalsyncError {
  readonly code = 'bad-options';
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.name = 'OptionsError';
    this.problems = problems;
  }
}

const kebab = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/**
 * Parses a command's options with its schema (the job payload schema, so CLI and queue accept
 * the same values). `flags` names the flag of each key where it is not the key in kebab case
 * (`defaultTimezone` → `--default-tz`).
 */
export function parseOptions<S extends z.ZodType>(schema: S, input: Record<string, unknown>, flags: Record<string, string> = {}): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const problems = r.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    const flag = key ? (flags[key] ?? kebab(key)) : 'options';
    const given = key ? input[key] : undefined;
    return `${flag}: ${describe(issue, given)}`;
  });
  throw new OptionsError([...new Set(problems)]);
}

function describe(issue: z.core.$ZodIssue, given: unknown): string {
  const shown = given === undefined ? 'nothing' : JSON.stringify(Array.isArray(given) ? given.join(',') : given);
  switch (issue.code) {
    case 'invalid_value':
      return `${shown} is not one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_union': {
      // `all` or a list of languages: the allowed values of every branch, as one list.
      const values = issue.errors.flat().flatMap((i) => (i.code === 'invalid_value' ? i.values.map(String) : []));
      return values.length ? `${shown} is not one of ${[...new Set(values)].join(', ')}` : issue.message;
    }
    case 'too_small':
      return `${shown} is too small: at least ${String(issue.minimum)}`;
    case 'too_big':
      return `${shown} is too big: at most ${String(issue.maximum)}`;
    case 'invalid_type':
      return given === undefined ? 'is required' : `${shown} is not a ${issue.expected}`;
    default:
      return issue.message;
  }
}
