import type { TestProject } from 'vitest/node';
import * as redis from '../../support/global-setup.ts';
import { kitAvailable, kitScratchDir, kitScript, sitesFromEnv, startKitSite, stopKit, type RealSite } from './kit.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    realSites: { a: RealSite; b: RealSite };
  }
}

let startedDir: string | undefined;

/**
 * The real suite's sites: the ones named by the environment (CALSYNC_REAL_A_… / _B_…, see kit.ts),
 * else a TEC 6.17.2 site (A, the sync source) and a 6.17.1 site (B) started through the kit, stopped
 * at the end. Plus the run's throwaway redis-server, as in `npm test`.
 */
export async function setup(project: TestProject): Promise<void> {
  await redis.setup(project);
  let sites = sitesFromEnv();
  if (!sites) {
    if (!kitAvailable()) throw new Error(`no real sites: set CALSYNC_REAL_A_… / CALSYNC_REAL_B_… (README "Tests against real sites") or provide the kit at ${kitScript()} (CALSYNC_REALSITE_KIT)`);
    startedDir = kitScratchDir();
    const a = await startKitSite(startedDir, '6.17.2');
    const b = await startKitSite(startedDir, '6.17.1');
    sites = { a, b };
  }
  project.provide('realSites', sites);
}

export async function teardown(): Promise<void> {
  if (startedDir) await stopKit(startedDir).catch((err) => console.error(`realsite.sh stop failed: ${String(err)}`));
  await redis.teardown();
}
