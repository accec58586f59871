import { InvalidArgumentError } from 'commander';

export function intOption(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError(`"${v}" is not a whole number`);
  return n;
}

export function floatOption(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError(`"${v}" is not a number`);
  return n;
}

export function splitList(v: string, prev: string[] = []): string[] {
  return [...prev, ...v.split(',').map((s) => s.trim()).filter(Boolean)];
}
