/** Stops the shared real Hadoop cluster started by global-setup.ts. */
import * as fs from 'node:fs';
import type { SharedCluster } from './cluster';

export default async function globalTeardown(): Promise<void> {
  const shared = (globalThis as SharedCluster).__yssHadoop;
  if (!shared) return;
  await shared.hadoop.stop();
  fs.rmSync(shared.dir, { recursive: true, force: true });
}
