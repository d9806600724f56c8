/**
 * One ticket, every app of its client, against the real ResourceManager of the shared cluster: a
 * client that runs two MapReduce apps one after the other under the same -D options, as Hadoop's
 * grep does (its search, then its sort). Here the client is a small shell script running Hadoop's
 * own SleepJob twice (`java -cp <clientClasspath> org.apache.hadoop.mapreduce.SleepJob`), with the
 * ticket's queue, tags and priority from the YSS_TICKET_* variables `run` sets for a script.
 * `run` is its own process (the CLI from source); the sidecar runs in this process, polling every
 * second. Every assertion about an app reads what the RM itself reports through its REST API.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildConfig } from '../../src/config/load';
import { silentLogger } from '../../src/log';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { spawnCli } from '../e2e/support/procs';
import { at, list, read, sharedCluster, waitFor } from './cluster';
import { killLive, sidecarConfig, TOKEN } from './sidecar-support';

const info = sharedCluster();
const MB = 1024 * 1024;

interface JobDetail {
  id: string;
  state: string;
  outcome: string | null;
  appId: string | null;
  deadline: string;
  finishedAt: string | null;
  betweenApps: boolean;
  apps: Array<{ id: string; state: string | null; queue: string | null; finishedAt: string | null }>;
  ticket: { status: string; client: { state: string; exitCode: number | null } | null } | null;
  decisions: Array<{ decision: string; detail: Record<string, unknown> }>;
}

/** Two SleepJobs one after the other, `GAP` seconds apart, each with the ticket's options. */
const SCRIPT = `#!/bin/sh
set -e
opts="-Dmapreduce.job.queuename=$YSS_TICKET_QUEUE -Dmapreduce.job.tags=$YSS_TICKET_TAGS -Dmapreduce.job.priority=$YSS_TICKET_PRIORITY"
java -Xmx256m $CLIENT_JAVA_OPTS -cp "$CLIENT_CLASSPATH" org.apache.hadoop.mapreduce.SleepJob $opts -m 1 -r 1 -mt 1000 -rt 1000
echo "two-stage client: first stage done"
sleep "$GAP"
java -Xmx256m $CLIENT_JAVA_OPTS -cp "$CLIENT_CLASSPATH" org.apache.hadoop.mapreduce.SleepJob $opts -m 1 -r 1 -mt 1000 -rt 1000
echo "two-stage client: second stage done"
`;

let dir: string;
let script: string;
let sidecar: RunningSidecar | undefined;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'yss-multiapp-'));
  script = path.join(dir, 'two-stages.sh');
  fs.writeFileSync(script, SCRIPT, { mode: 0o755 });
  sidecar = await startSidecar(
    buildConfig(
      sidecarConfig(info, {
        user: 'alice',
        // No lifetime: an app past its deadline runs on to its end, so that a miss is a miss.
        extra: { loop: { pollCron: '* * * * * *' }, enforcement: { lifetimeTimeouts: false } },
      }),
    ),
    { logger: silentLogger() },
  );
  await waitFor('the sidecar to be ready', async () =>
    (await fetch(`${sidecar!.url}/readyz`)).status === 200 ? true : undefined,
  );
}, 60_000);

afterAll(async () => {
  await sidecar?.close();
  await killLive(info.rm);
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function jobOf(id: string): Promise<JobDetail> {
  const res = await fetch(`${sidecar!.url}/api/v1/jobs/${id}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return (await res.json()) as JobDetail;
}

async function rmAppsTagged(tag: string): Promise<Array<Record<string, unknown>>> {
  return list(
    at(await read(`${info.rm}/ws/v1/cluster/apps?applicationTags=${encodeURIComponent(tag)}`), 'apps.app'),
  ) as Array<Record<string, unknown>>;
}

/**
 * `run --deadline <deadline> -- two-stages.sh` to its end: the ticket's job once judged, and the
 * RM's two apps carrying its tag, in the order they started.
 */
async function runTwoStages(
  deadline: string,
  gapSeconds: number,
): Promise<{ job: JobDetail; apps: Array<Record<string, unknown>>; between: JobDetail }> {
  const p = spawnCli(
    'run',
    [
      'run',
      '--deadline',
      deadline,
      '--maps',
      '1',
      '--reduces',
      '1',
      '--input-bytes',
      String(4 * MB),
      '--name',
      'two-stage-sleep',
      '--',
      script,
    ],
    {
      YSS_URL: sidecar!.url,
      YSS_TOKEN: TOKEN,
      GAP: String(gapSeconds),
      CLIENT_CLASSPATH: info.clientClasspath,
      CLIENT_JAVA_OPTS: info.javaOpts.join(' '),
    },
  );
  const id = await waitFor(
    'the ticket',
    async () => {
      if (!p.running && !/admitted as/.test(p.output())) throw new Error(`run ended:\n${p.output()}`);
      return /run: admitted as (dl-[0-9a-f]+)/.exec(p.output())?.[1];
    },
    60_000,
  );
  // While the script sleeps between its stages, the job is between apps, not judged.
  const between = await waitFor(
    `${id} to be between apps`,
    async () => {
      const j = await jobOf(id);
      return j.betweenApps ? j : undefined;
    },
    180_000,
  );
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 300_000);
  const code = await p.exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`run exited ${code}:\n${p.output().slice(-4000)}`);
  expect(p.output()).toContain('two-stage client: second stage done');
  const job = await waitFor(
    `${id} to be judged`,
    async () => {
      const j = await jobOf(id);
      return j.outcome !== null || ['failed', 'killed'].includes(j.state) ? j : undefined;
    },
    60_000,
  );
  const apps = (await rmAppsTagged(`sidecar-id:${id}`)).sort(
    (a, b) => Number(a.startedTime) - Number(b.startedTime),
  );
  return { job, apps, between };
}

describe('run with a client of two SleepJobs under one ticket', () => {
  it('binds both apps, both in the realtime queue, and judges the job met on the last', async () => {
    const { job, apps, between } = await runTwoStages('10m', 5);
    expect(between).toMatchObject({ state: 'running', outcome: null });
    expect(between.apps).toHaveLength(1);
    expect(apps).toHaveLength(2);
    // The RM's own reports: both apps finished in the ticket's queue.
    for (const app of apps)
      expect(app).toMatchObject({ queue: 'root.realtime', state: 'FINISHED', finalStatus: 'SUCCEEDED' });
    const [first, second] = apps as [Record<string, unknown>, Record<string, unknown>];
    expect(job).toMatchObject({
      state: 'finished',
      outcome: 'met',
      appId: first.id,
      finishedAt: new Date(Number(second.finishedTime)).toISOString(),
      ticket: { status: 'bound', client: { state: 'exited', exitCode: 0 } },
    });
    expect(job.apps.map((a) => [a.id, a.queue, a.state])).toEqual([
      [first.id, 'root.realtime', 'FINISHED'],
      [second.id, 'root.realtime', 'FINISHED'],
    ]);
    expect(job.decisions.find((d) => d.decision === 'apps-ended')!.detail).toMatchObject({
      apps: [first.id, second.id],
      lastApp: second.id,
      clientExitCode: 0,
    });
    // Not a second job: the second app was never decided on its own.
    const list = (await (
      await fetch(`${sidecar!.url}/api/v1/jobs?limit=1000`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { jobs: Array<{ id: string; appId: string | null }> };
    expect(list.jobs.filter((j) => j.appId === second.id)).toEqual([]);
  }, 420_000);

  it('judges the job missed when its second app ends after the deadline, though the first ended before it', async () => {
    const { job, apps } = await runTwoStages('100s', 80);
    expect(apps).toHaveLength(2);
    const [first, second] = apps as [Record<string, unknown>, Record<string, unknown>];
    const deadlineMs = Date.parse(job.deadline);
    expect(Number(first.finishedTime)).toBeLessThanOrEqual(deadlineMs);
    expect(Number(second.finishedTime)).toBeGreaterThan(deadlineMs);
    for (const app of apps) expect(app).toMatchObject({ queue: 'root.realtime', state: 'FINISHED' });
    expect(job).toMatchObject({
      state: 'finished',
      outcome: 'missed',
      finishedAt: new Date(Number(second.finishedTime)).toISOString(),
    });
    process.stderr.write(
      `[multi-app.test] first app ended ${((deadlineMs - Number(first.finishedTime)) / 1000).toFixed(1)} s before the deadline, the second ${((Number(second.finishedTime) - deadlineMs) / 1000).toFixed(1)} s after it\n`,
    );
  }, 420_000);
});
