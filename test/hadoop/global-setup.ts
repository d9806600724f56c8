/**
 * Starts the real Hadoop cluster the test files share, once per `npm run test:hadoop`, and hands
 * its ready line to them through a JSON file named by $YSS_HADOOP_CLUSTER (see cluster.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHadoop } from '../../hadoop/launch';
import { CLUSTER_ENV, type SharedCluster } from './cluster';

export default async function globalSetup(): Promise<void> {
  const log = (m: string): void => void process.stderr.write(`[hadoop] ${m}\n`);
  process.stderr.write('\n');
  const hadoop = await startHadoop({ log });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'yss-hadoop-tests-'));
  const file = path.join(dir, 'cluster.json');
  fs.writeFileSync(file, JSON.stringify(hadoop.info, null, 2));
  process.env[CLUSTER_ENV] = file;
  // Read back by global-teardown.ts, which runs in this same process.
  (globalThis as SharedCluster).__yssHadoop = { hadoop, dir };
}
