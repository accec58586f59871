// Keeps the import graph of src/ and jobs/ acyclic (`npm run check:imports`, run by .ci/run): a
// cycle means two modules each need the other, so neither can be understood or tested alone.
// Reads relative `.ts` import specifiers, static and dynamic, and prints every cycle it finds.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOTS = ['src', 'jobs'];
const SPEC = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+\.ts)['"]/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Edges of the graph; `import type` is left out: it is erased and cannot form a run-time cycle. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/^import type[^;]*;/gm, '');
  return [...text.matchAll(SPEC)].map((m) => path.normalize(path.join(path.dirname(file), m[1]!)));
}

const graph = new Map(ROOTS.flatMap(tsFiles).map((f) => [path.normalize(f), importsOf(f)]));
const cycles: string[][] = [];
const state = new Map<string, 'visiting' | 'done'>();
const stack: string[] = [];

function visit(file: string): void {
  state.set(file, 'visiting');
  stack.push(file);
  for (const next of graph.get(file) ?? []) {
    if (!graph.has(next)) continue;
    if (state.get(next) === 'visiting') cycles.push([...stack.slice(stack.indexOf(next)), next]);
    else if (!state.has(next)) visit(next);
  }
  stack.pop();
  state.set(file, 'done');
}

for (const file of graph.keys()) if (!state.has(file)) visit(file);
if (cycles.length) {
  for (const c of cycles) process.stderr.write(`import cycle: ${c.join(' → ')}\n`);
  process.exit(1);
}
process.stdout.write(`import graph acyclic: ${graph.size} modules in ${ROOTS.join(', ')}\n`);
