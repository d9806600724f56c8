/**
 * Hadoop's example jobs through `yarn-sched-sidecar run` on a real cluster (bench/real-jobs/):
 * each kind alone, warm-ups, then a sparse and a dense stream with deadlines 0.6x-4x each job's
 * lone duration. `npm run bench -- real-jobs` (run only when named: it takes tens of minutes).
 * Prints the tables in markdown and writes bench/real-jobs-results.json (one result per cluster).
 *
 * Settings (environment):
 *   REAL_JOBS_NODES     overcommitted (default: the launcher's 16 vcores / 16 GB a node, the
 *                       sidecar counting them), honest (REAL_JOBS_NM_VCORES, default 2, and
 *                       REAL_JOBS_NM_MEMORY_MB, default 4096, a node, the sidecar's
 *                       admission.nodeCores set to match, the realtime queue guaranteed
 *                       REAL_JOBS_REALTIME_CAPACITY, default 100, % of the node) or both: the
 *                       same plan on each, in turn
 *   REAL_JOBS_NODE_CORES  the sidecar's admission.nodeCores on every cluster (e.g. 2 on the
 *                       overcommitted one: admission counts the cores while YARN runs 16 a node)
 *   REAL_JOBS_CLUSTER   a file holding a running cluster's ready line (JSON, as `npm run hadoop`
 *                       prints after HADOOP_READY), of the one kind REAL_JOBS_NODES names;
 *                       default: a cluster started here per kind
 *   REAL_JOBS_KINDS, _WARMUPS, _FIRST, _SPARSE, _DENSE, _SEED, _DEADLINE_FACTORS, _DENSE_GAP, _TEXT_MB,
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
import {
  clusterKinds,
  clusterOptions,
  DEFAULT_PLAN,
  measureRealJobs,
  planFromEnv,
  realJobsSidecarConfig,
  sidecarNodeCores,
  type NodesKind,
  type RealJobsPlan,
  type RealJobsResult,
} from './real-jobs/harness';
import { acceptanceViolations, jobsTable, summaryTable } from './real-jobs/report';
import { recordResult } from './results';

/** The plan on one cluster of a kind: started here (and stopped) unless REAL_JOBS_CLUSTER names one. */
async function measureOn(kind: NodesKind, plan: RealJobsPlan): Promise<RealJobsResult> {
  let hadoop: RunningHadoop | undefined;
  let info: HadoopInfo;
  const clusterFile = process.env.REAL_JOBS_CLUSTER;
  if (clusterFile) {
    info = JSON.parse(fs.readFileSync(clusterFile, 'utf8')) as HadoopInfo;
  } else {
    hadoop = await startHadoop({
      ...clusterOptions(kind, process.env),
      log: (m) => console.log(`[hadoop] ${m}`),
    });
    info = hadoop.info;
  }
  const token = randomBytes(16).toString('hex');
  const nodeCores = sidecarNodeCores(kind, info, process.env);
  try {
    const sidecar = await startSidecar(buildConfig(realJobsSidecarConfig(info, token, { nodeCores })), {
      logger: silentLogger(),
    });
    try {
      for (let i = 0; i < 120 && (await fetch(`${sidecar.url}/readyz`)).status !== 200; i++)
        await new Promise((r) => setTimeout(r, 500));
      console.log(
        `\n## ${kind}: Hadoop ${info.version}, examples ${info.examplesVersion}, ${info.nodes.length} nodes of ${info.nmVcores} vcores / ${info.nmMemoryMb} MB, sidecar nodeCores ${nodeCores ?? 'unset'}; kinds ${plan.kinds.join(', ')}; ${plan.warmups} warm-up(s) each, sparse ${plan.sparseJobs}, dense ${plan.denseJobs}, seed ${plan.seed}`,
      );
      return await measureRealJobs(
        { info, sidecarUrl: sidecar.url, token, nodes: kind, nodeCores, log: (m) => console.log(m) },
        plan,
      );
    } finally {
      await sidecar.close();
    }
  } finally {
    await hadoop?.stop();
  }
}

function report(result: RealJobsResult): string[] {
  const kind = result.cluster.kind;
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
    ...(result.summaries.first ? [{ name: 'first runs', summary: result.summaries.first }] : []),
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
      name: `real-jobs ${kind} ${g.name}: |estimate - actual| / actual over admitted`,
      unit: 'ratio',
      median: e?.median ?? NaN,
      p99: e?.max ?? NaN,
    });
    recordResult({
      name: `real-jobs ${kind} ${g.name}: missed among admitted`,
      unit: 'jobs',
      median: g.summary.missedAmongAdmitted,
      p99: g.summary.missedAmongAdmitted,
    });
  }
  const broken = acceptanceViolations(result.summaries);
  console.log(
    broken.length === 0
      ? `${kind}: acceptance thresholds kept`
      : `${kind}: acceptance thresholds broken: ${broken.join('; ')}`,
  );
  return broken;
}

export default async function (): Promise<void> {
  const plan = planFromEnv(process.env, DEFAULT_PLAN);
  const kinds = clusterKinds(process.env);
  if (process.env.REAL_JOBS_CLUSTER && kinds.length > 1)
    throw new Error('REAL_JOBS_CLUSTER names one running cluster: set REAL_JOBS_NODES to its kind, not both');
  const results: RealJobsResult[] = [];
  let broken = 0;
  for (const kind of kinds) {
    const result = await measureOn(kind, plan);
    results.push(result);
    broken += report(result).length;
    const out = path.join(__dirname, 'real-jobs-results.json');
    fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`written to bench/real-jobs-results.json`);
  }
  if (results.length > 1) {
    console.log('\n## The streams on each cluster\n');
    console.log(
      summaryTable(results.map((r) => ({ name: `${r.cluster.kind} streams`, summary: r.summaries.streams }))),
    );
  }
  if (process.env.REAL_JOBS_ENFORCE === '1' && broken > 0) process.exitCode = 1;
}
