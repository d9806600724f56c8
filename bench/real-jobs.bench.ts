/**
 * Hadoop's example jobs through `yarn-sched-sidecar run` on a real cluster (bench/real-jobs/):
 * each kind alone, warm-ups, then a sparse and a dense stream with deadlines 0.6x-4x each job's
 * lone duration. `npm run bench -- real-jobs` (run only when named: it takes tens of minutes).
 * Prints the tables in markdown and writes bench/real-jobs-results.json.
 *
 * Settings (environment):
 *   REAL_JOBS_CLUSTER   a file holding a running cluster's ready line (JSON, as `npm run hadoop`
 *                       prints after HADOOP_READY); default: a cluster started here, with
 *   REAL_JOBS_NM_VCORES, REAL_JOBS_NM_MEMORY_MB   its nodes (default: the launcher's 16 / 16384)
 *   REAL_JOBS_KINDS, _WARMUPS, _SPARSE, _DENSE, _SEED, _DEADLINE_FACTORS, _DENSE_GAP, _TEXT_MB,
 *   _TERA_ROWS, _JOB_TIMEOUT   the plan (bench/real-jobs/harness.ts, planFromEnv)
 *   REAL_JOBS_ENFORCE=1  fail the bench when the streams break the acceptance thresholds
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startHadoop, type HadoopInfo, type RunningHadoop } from '../hadoop/launch';
import { buildConfig } from '../src/config/load';
import { silentLogger } from '../src/log';
import { startSidecar } from '../src/loop/service';
import { DEFAULT_PLAN, measureRealJobs, planFromEnv, realJobsSidecarConfig } from './real-jobs/harness';
import { ACCEPTANCE, jobsTable, summaryTable, thresholdViolations } from './real-jobs/report';
import { recordResult } from './results';

function positive(name: string): number | undefined {
  const v = process.env[name];
  if (v === undefined || v === '') return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new Error(`${name} must be a positive integer, not "${v}"`);
  return Number(v);
}

export default async function (): Promise<void> {
  const plan = planFromEnv(process.env, DEFAULT_PLAN);
  let hadoop: RunningHadoop | undefined;
  let info: HadoopInfo;
  const clusterFile = process.env.REAL_JOBS_CLUSTER;
  if (clusterFile) {
    info = JSON.parse(fs.readFileSync(clusterFile, 'utf8')) as HadoopInfo;
  } else {
    hadoop = await startHadoop({
      nmVcores: positive('REAL_JOBS_NM_VCORES'),
      nmMemoryMb: positive('REAL_JOBS_NM_MEMORY_MB'),
      log: (m) => console.log(`[hadoop] ${m}`),
    });
    info = hadoop.info;
  }
  const token = randomBytes(16).toString('hex');
  const sidecar = await startSidecar(buildConfig(realJobsSidecarConfig(info, token)), {
    logger: silentLogger(),
  });
  try {
    for (let i = 0; i < 120 && (await fetch(`${sidecar.url}/readyz`)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 500));
    console.log(
      `Hadoop ${info.version}, examples ${info.examplesVersion}, ${info.nodes.length} nodes of ${info.nmVcores} vcores / ${info.nmMemoryMb} MB; kinds ${plan.kinds.join(', ')}; ${plan.warmups} warm-up(s) each, sparse ${plan.sparseJobs}, dense ${plan.denseJobs}, seed ${plan.seed}`,
    );
    const result = await measureRealJobs(
      { info, sidecarUrl: sidecar.url, token, log: (m) => console.log(m) },
      plan,
    );
    console.log(
      `\nLone durations: ${result.lone.map((l) => `${l.kind} ${l.seconds.toFixed(1)} s`).join(', ')}`,
    );
    console.log(
      `Load average (1 min): ${Object.entries(result.load)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')}`,
    );
    console.log(`\n${jobsTable(result.jobs)}\n`);
    const groups = [
      { name: 'warm-ups', summary: result.summaries.warmups },
      { name: 'sparse', summary: result.summaries.sparse },
      { name: 'dense', summary: result.summaries.dense },
      { name: 'streams', summary: result.summaries.streams },
    ];
    console.log(`${summaryTable(groups)}\n`);
    console.log(`${result.seconds.toFixed(0)} s in all`);
    for (const g of groups.slice(1)) {
      const e = g.summary.relError;
      recordResult({
        name: `real-jobs ${g.name}: |estimate - actual| / actual over admitted`,
        unit: 'ratio',
        median: e?.median ?? NaN,
        p99: e?.max ?? NaN,
      });
      recordResult({
        name: `real-jobs ${g.name}: missed among admitted`,
        unit: 'jobs',
        median: g.summary.missedAmongAdmitted,
        p99: g.summary.missedAmongAdmitted,
      });
    }
    const out = path.join(__dirname, 'real-jobs-results.json');
    fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`written to bench/real-jobs-results.json`);
    const broken = thresholdViolations(result.summaries.streams, ACCEPTANCE);
    console.log(
      broken.length === 0
        ? 'acceptance thresholds: kept'
        : `acceptance thresholds broken: ${broken.join('; ')}`,
    );
    if (process.env.REAL_JOBS_ENFORCE === '1' && broken.length > 0) process.exitCode = 1;
  } finally {
    await sidecar.close();
    await hadoop?.stop();
  }
}
