// `npm run test:real`: the end-to-end suite (vitest.real.config.ts) and then the REST contract
// suite (test/contract) against each real site, with one pair of sites for both: the ones the
// environment names (README "Tests against real sites"), else a TEC 6.17.2 and a 6.17.1 site
// started through the kit and stopped at the end.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { kitAvailable, kitScratchDir, kitScript, sitesFromEnv, sitesToEnv, startKitSite, stopKit, type RealSite } from './support/kit.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
const log = (m: string) => process.stderr.write(`test:real: ${m}\n`);

function vitest(args: string[], env: Record<string, string>): number {
  const r = spawnSync(process.execPath, [VITEST, 'run', ...args], { cwd: REPO, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

let dir: string | undefined;
let sites = sitesFromEnv();
if (!sites) {
  if (!kitAvailable()) {
    log(`no real sites: set CALSYNC_REAL_A_… / CALSYNC_REAL_B_… or provide the kit at ${kitScript()} (CALSYNC_REALSITE_KIT)`);
    process.exit(1);
  }
  dir = kitScratchDir();
  log(`starting TEC 6.17.2 and 6.17.1 sites with the kit in ${dir}`);
  try {
    sites = { a: await startKitSite(dir, '6.17.2'), b: await startKitSite(dir, '6.17.1') };
  } catch (err) {
    log(String(err));
    await stopKit(dir).catch(() => undefined);
    process.exit(1);
  }
}
const stop = async () => {
  if (dir) await stopKit(dir).catch((err) => log(`realsite.sh stop failed: ${String(err)}`));
};
process.once('SIGINT', () => void stop().then(() => process.exit(130)));

const failed: string[] = [];
const started = Date.now();
if (vitest(['--config', 'vitest.real.config.ts', ...process.argv.slice(2)], sitesToEnv(sites)) !== 0) failed.push('end-to-end suite (test/real)');
for (const site of [sites.a, sites.b] as RealSite[]) {
  // The contract suite reads CALSYNC_CONTRACT_*; it tags and trashes its own records, so no reset.
  log(`contract suite against ${site.url} (TEC ${site.version})`);
  const env = { CALSYNC_CONTRACT_URL: site.url, CALSYNC_CONTRACT_NAMESPACE: site.namespace, CALSYNC_CONTRACT_USER: site.user, CALSYNC_CONTRACT_PASSWORD: site.password };
  if (vitest(['test/contract'], env) !== 0) failed.push(`contract suite on TEC ${site.version}`);
}
await stop();
log(`${failed.length ? `FAILED: ${failed.join('; ')}` : 'all passed'} in ${Math.round((Date.now() - started) / 1000)} s`);
process.exit(failed.length ? 1 : 0);
