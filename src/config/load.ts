import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { z } from 'zod';
import { CalsyncConfig } from './schema.ts';
import { CalsyncError } from '../errors/calsync-error.ts';

/** An invalid config file: every problem with its key path and reason, so all can be fixed at once. */
export class ConfigError extends CalsyncError {
  readonly code = 'config-invalid';
  readonly file: string;
  readonly problems: string[];
  constructor(file: string, problems: string[]) {
    super(`${file} is not a valid calsync config:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.file = file;
    this.problems = problems;
  }
}

export function formatPath(p: readonly PropertyKey[]): string {
  let out = '';
  for (const k of p) out += typeof k === 'number' ? `[${k}]` : out ? `.${String(k)}` : String(k);
  return out || '(root)';
}

export function issuesToProblems(issues: readonly z.core.$ZodIssue[]): string[] {
  const out: string[] = [];
  for (const i of issues) {
    if (i.code === 'invalid_union' && 'errors' in i && Array.isArray(i.errors)) {
      // Report the branch that got furthest instead of "invalid input".
      const best = (i.errors as z.core.$ZodIssue[][]).sort((a, b) => a.length - b.length)[0];
      if (best?.length) {
        out.push(...issuesToProblems(best.map((b) => ({ ...b, path: [...i.path, ...b.path] }))));
        continue;
      }
    }
    if (i.code === 'unrecognized_keys') {
      for (const k of i.keys) {
        const secret = /password|token|secret/i.test(k);
        out.push(`${formatPath([...i.path, k])}: ${secret ? 'secrets are not allowed inline; put it in an environment variable and reference it (e.g. passwordEnv)' : 'unknown key'}`);
      }
      continue;
    }
    out.push(`${formatPath(i.path)}: ${i.message}`);
  }
  return out;
}

export function parseConfig(raw: unknown, file = 'config'): CalsyncConfig {
  const r = CalsyncConfig.safeParse(raw ?? {});
  if (!r.success) throw new ConfigError(file, issuesToProblems(r.error.issues));
  return r.data;
}

/** Reads `calsync.config.json|yaml` (or the given path); JSON and YAML both accepted. */
export function loadConfig(file: string): CalsyncConfig {
  const text = readFileSync(file, 'utf8');
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(file) ? YAML.parse(text) : JSON.parse(text);
  } catch (err) {
    throw new ConfigError(file, [`(file): cannot be parsed: ${(err as Error).message}`]);
  }
  const cfg = parseConfig(raw, file);
  // Relative paths in the file are relative to the file.
  const dir = path.dirname(path.resolve(file));
  for (const s of cfg.sources) if (!/^[a-z]+:\/\//i.test(s.url) && !path.isAbsolute(s.url)) s.url = path.join(dir, s.url);
  if (!path.isAbsolute(cfg.dataDir)) cfg.dataDir = path.join(dir, cfg.dataDir);
  for (const e of cfg.exports) if (!path.isAbsolute(e.outDir)) e.outDir = path.join(dir, e.outDir);
  return cfg;
}

export type { CalsyncConfig };
