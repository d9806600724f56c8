/**
 * The promise on a shared cluster (issue: other tenants cannot take an admitted job's
 * containers). A cluster of its own per case (`--preemption on|off`): a long SleepJob in
 * `default` fills the default partition, borrowing the real-time queue's idle guarantee; then 20
 * deadline SleepJobs arrive through `yarn-sched-sidecar run`. Never admitted and missed: with
 * preemption on, the sidecar admits with the preemption delay in its estimates and every
 * admitted job meets its deadline; with preemption off, each job is rejected with the reason
 * (the guarantee is lent, nothing takes it back) or admitted and meets its deadline. The
 * preemption delay the RM really took (an app's start to its AM's container) is measured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { startHadoop, type RunningHadoop } from '../../hadoop/launch';
import { buildConfig } from '../../src/config/load';
import { silentLogger } from '../../src/log';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { spawnCli, type Proc } from '../e2e/support/procs';
import { at, list, read, waitFor } from './cluster';
import { sidecarConfig, TOKEN } from './sidecar-support';

const SLEEP_JOB = 'org.apache.hadoop.mapreduce.SleepJob';
const MB = 1024 * 1024;
const JOBS = 20;
/** Each job's deadline from its arrival: room for 2 AMs at a time (the queue's AM limit) on a busy machine. */
const DEADLINE = '15m';

interface JobView {
  id: string;
  decision: 'admitted' | 'rejected';
  state: string;
  outcome: 'met' | 'missed' | null;
  appId: string | null;
  estimatedFinish: string | null;
  arrival: string;
  reason: { kind: string; message: string; sharing?: { mode: string; held: number } } | null;
}

function note(text: string): void {
  process.stderr.write(`[shared-cluster] ${text}\n`);
}

async function jobs(s: RunningSidecar): Promise<JobView[]> {
  const res = await fetch(`${s.url}/api/v1/jobs?limit=100`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  if (res.status !== 200) throw new Error(`GET /api/v1/jobs: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { jobs: JobView[] }).jobs;
}

/** The default queue's absolute used share of the default partition, in percent. */
async function defaultQueueUsed(rm: string): Promise<number> {
  const s = await read(`${rm}/ws/v1/cluster/scheduler`);
  const queues = list(at(s, 'scheduler.schedulerInfo.queues.queue'));
  const d = queues.find((q) => at(q, 'queueName') === 'default');
  return Number(at(d, 'absoluteUsedCapacity') ?? 0);
}

describe.each(['on', 'off'] as const)('a shared cluster, preemption %s', (preemption) => {
  let hadoop: RunningHadoop;
  let sidecar: RunningSidecar;
  let tenant: ChildProcess;
  const runs: Proc[] = [];

  beforeAll(async () => {
    hadoop = await startHadoop({ preemption });
    const info = hadoop.info;
    // The other tenant: a SleepJob in `default` whose maps sleep longer than the test runs.
    tenant = spawn(
      'java',
      [
        '-Xmx256m',
        ...info.javaOpts,
        '-cp',
        info.clientClasspath,
        SLEEP_JOB,
        '-Dmapreduce.job.queuename=default',
        ...['-m', '30', '-r', '0', '-mt', '1800000'],
      ],
      { stdio: 'ignore' },
    );
    await waitFor(
      'the tenant to fill the default partition',
      async () => ((await defaultQueueUsed(info.rm)) >= 80 ? true : undefined),
      180_000,
    );
    sidecar = await startSidecar(
      buildConfig(
        sidecarConfig(info, {
          user: 'alice',
          extra: { loop: { pollCron: '* * * * * *', capacityReadEvery: 1 }, tickets: { ttlSeconds: 1200 } },
        }),
      ),
      { logger: silentLogger() },
    );
    await waitFor('the sidecar to be ready', async () =>
      (await fetch(`${sidecar.url}/readyz`)).status === 200 ? true : undefined,
    );
  }, 420_000);

  afterAll(async () => {
    for (const p of runs) p.child.kill('SIGKILL');
    tenant?.kill('SIGKILL');
    await sidecar?.close();
    await hadoop?.stop();
  }, 120_000);

  it(`${JOBS} deadline SleepJobs: never admitted and missed`, async () => {
    // Arrivals 2 s apart, as users would submit them, each a run of its own.
    for (let i = 0; i < JOBS; i++) {
      runs.push(
        spawnCli(
          `run-${i}`,
          [
            'run',
            ...['--deadline', DEADLINE, '--maps', '1', '--reduces', '1', '--input-bytes', String(64 * MB)],
            '--',
            ...['java', '-Xmx256m', '-cp', hadoop.info.clientClasspath, SLEEP_JOB],
            ...['-m', '1', '-r', '1', '-mt', '2000', '-rt', '1000'],
          ],
          { YSS_URL: sidecar.url, YSS_TOKEN: TOKEN },
        ),
      );
      await new Promise((r) => setTimeout(r, 2000));
    }
    const codes = await Promise.all(runs.map((p) => p.exited));
    // Every run either ran its job (0) or was rejected before anything ran (75).
    expect(codes.every((c) => c === 0 || c === 75)).toBe(true);
    // The sidecar records each admitted job's end from the RM.
    const all = await waitFor(
      'the sidecar to record every admitted job',
      async () => {
        const js = await jobs(sidecar);
        return js.length >= JOBS && js.every((j) => j.decision === 'rejected' || j.outcome !== null)
          ? js
          : undefined;
      },
      300_000,
    );
    const admitted = all.filter((j) => j.decision === 'admitted');
    const rejected = all.filter((j) => j.decision === 'rejected');
    const met = admitted.filter((j) => j.outcome === 'met');
    const missed = admitted.filter((j) => j.outcome === 'missed');

    // What the RM took to give each admitted app its AM container: the preemption delay.
    const delays: number[] = [];
    for (const j of admitted) {
      const app = at(await read(`${hadoop.info.rm}/ws/v1/cluster/apps/${j.appId}`), 'app');
      const started = Number(at(app, 'startedTime'));
      const launched = Number(at(app, 'launchTime'));
      if (started > 0 && launched > 0) delays.push((launched - started) / 1000);
    }
    delays.sort((a, b) => a - b);
    note(
      `preemption ${preemption}: ${all.length} jobs, ${admitted.length} admitted, ${rejected.length} rejected, ` +
        `${met.length} met, ${missed.length} missed; AM container delay (s) ` +
        (delays.length === 0
          ? 'none measured'
          : `min ${delays[0]!.toFixed(1)}, median ${delays[Math.floor(delays.length / 2)]!.toFixed(1)}, max ${delays[delays.length - 1]!.toFixed(1)}`),
    );
    for (const r of rejected.slice(0, 3)) note(`  rejected ${r.id}: ${r.reason?.message}`);
    // What the sidecar measured and feeds its estimates with: apps' waits for their AM's container
    // while the guarantee was held, without those the queue's own AM limit held back.
    const cluster = (await (
      await fetch(`${sidecar.url}/api/v1/cluster`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { admission: { sharing: { measuredPreemptionDelays: Array<{ seconds: number }> } } };
    const measured = cluster.admission.sharing.measuredPreemptionDelays.map((d) => d.seconds);
    note(
      `the sidecar's measured preemption delays (s): ${measured.map((x) => x.toFixed(1)).join(', ') || 'none'}`,
    );

    expect(all).toHaveLength(JOBS);
    expect(missed).toEqual([]);
    expect(met).toHaveLength(admitted.length);
    if (preemption === 'on') {
      // The guarantee comes back: the sidecar admits on it, with the preemption delay counted.
      expect(admitted.length).toBeGreaterThan(0);
      expect(measured.length).toBeGreaterThan(0);
      for (const r of rejected) expect(r.reason?.sharing?.mode ?? 'own').not.toBe('lent');
    } else {
      // Nothing takes the lent guarantee back: every rejection says so.
      expect(rejected.length).toBeGreaterThan(0);
      for (const r of rejected) {
        expect(r.reason?.message).toContain('guarantee lent to other queues, preemption off');
        expect(r.reason?.sharing?.mode).toBe('lent');
      }
    }
  }, 1_500_000);
});
