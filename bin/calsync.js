#!/usr/bin/env node
// The sources are TypeScript run through Node's built-in type stripping (Node >= 22.18),
// so there is no build step between a checkout and a working CLI.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(`calsync needs Node >= 22.18 (this is ${process.version}). Run it through "npm run calsync --" to use the Node 24 pinned in devDependencies.`);
  process.exit(1);
}
await import('../src/cli/main.ts');
