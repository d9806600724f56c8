/**
 * `yarn-sched-sidecar run` and tickets against the real ResourceManager of the shared cluster:
 * `run` as its own process (the CLI from source), the sidecar in this process polling every
 * second, and Hadoop's own SleepJob as the client, started with `java -cp <clientClasspath>`.
 * Every assertion about an app reads what the RM itself reports through its REST API.
 */
import * as fs from 'node:fs';
import { buildConfig } from '../../src/config/load';
import { silentLogger } from '../../src/log';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { spawnCli, type Proc } from '../e2e/support/procs';
import { at, list, read, sharedCluster, waitFor } from './cluster';
import { killLive, sidecarConfig, TOKEN } from './sidecar-support';

const info = sharedCluster();
const MB = 1024 * 1024;
const SLEEP_JOB = 'org.apache.hadoop.mapreduce.SleepJob';

interface JobDetail {
  id: string;
  state: string;
  outcome: string | null;
  reduces: number;
  appId: string | null;
  queue: string | null;
  label: string | null;
  ticket: { status: string; appId: string | null; tags: string[]; labelExpression: string | null } | null;
  decisions: Array<{ decision: string; detail: { waitedSeconds?: number } }>;
}

/** The sidecar of one describe block, polling the RM every second as a deployed one would. */
function sidecarFor(ttlSeconds: number): { get: () => RunningSidecar } {
  let running: RunningSidecar | undefined;
  beforeAll(async () => {
    running = await startSidecar(
      buildConfig(
        sidecarConfig(info, {
          user: 'alice',
          extra: { loop: { pollCron: '* * * * * *' }, tickets: { ttlSeconds } },
        }),
      ),
      { logger: silentLogger() },
    );
    // Submissions are answered 503 until the first poll of the RM has read its capacity.
    await waitFor('the sidecar to be ready', async () =>
      (await fetch(`${running!.url}/readyz`)).status === 200 ? true : undefined,
    );
  }, 60_000);
  afterAll(async () => {
    await running?.close();
    // The shared cluster's queues are small: leave no app of these tests holding a container.
    await killLive(info.rm);
  }, 60_000);
  return { get: () => running! };
}

async function api<T>(
  sidecar: RunningSidecar,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sidecar.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const jobOf = async (sidecar: RunningSidecar, id: string) =>
  (await api<JobDetail>(sidecar, 'GET', `/api/v1/jobs/${id}`)).body;

/** `yarn-sched-sidecar run ... -- java -cp <clientClasspath> SleepJob ...` as its own process. */
function run(sidecar: RunningSidecar, runArgs: string[], sleepJobArgs: string[]): Proc {
  return spawnCli(
    'run',
    ['run', ...runArgs, '--', 'java', '-cp', info.clientClasspath, SLEEP_JOB, ...sleepJobArgs],
    {
      YSS_URL: sidecar.url,
      YSS_TOKEN: TOKEN,
    },
  );
}

const ticketIdOf = (p: Proc): string => {
  const id = /run: admitted as (dl-[0-9a-f]+)/.exec(p.output())?.[1];
  if (!id) throw new Error(`run admitted nothing:\n${p.output().slice(-3000)}`);
  return id;
};

/** The RM's apps carrying a tag (the RM matches tags case-insensitively and stores them lowercased). */
async function rmAppsTagged(tag: string): Promise<Array<Record<string, unknown>>> {
  return list(
    at(await read(`${info.rm}/ws/v1/cluster/apps?applicationTags=${encodeURIComponent(tag)}`), 'apps.app'),
  ) as Array<Record<string, unknown>>;
}

async function rmApp(id: string): Promise<Record<string, unknown>> {
  return at(await read(`${info.rm}/ws/v1/cluster/apps/${id}`), 'app') as Record<string, unknown>;
}

async function appsSubmitted(): Promise<number> {
  return Number(at(await read(`${info.rm}/ws/v1/cluster/metrics`), 'clusterMetrics.appsSubmitted'));
}

async function exitOf(p: Proc, timeoutMs: number): Promise<number | null> {
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const code = await p.exited;
  clearTimeout(timer);
  return code;
}

/**
 * A `run` whose SleepJob ends: its exit code, its ticket, the RM's app carrying the ticket's tag,
 * and the sidecar's job once it has recorded the app's end.
 */
async function runToEnd(
  sidecar: RunningSidecar,
  runArgs: string[],
  sleepJobArgs: string[],
): Promise<{ code: number | null; ticketId: string; app: Record<string, unknown>; job: JobDetail }> {
  const p = run(sidecar, runArgs, sleepJobArgs);
  const code = await exitOf(p, 150_000);
  if (code !== 0) throw new Error(`run exited ${code}:\n${p.output().slice(-4000)}`);
  const ticketId = ticketIdOf(p);
  const apps = await rmAppsTagged(`sidecar-id:${ticketId}`);
  expect(apps).toHaveLength(1);
  const app = await rmApp(String(apps[0]!.id));
  const job = await waitFor(
    `the sidecar to record the end of ${ticketId}`,
    async () => {
      const j = await jobOf(sidecar, ticketId);
      return j.state === 'finished' ? j : undefined;
    },
    60_000,
  );
  return { code, ticketId, app, job };
}

/** The run's timings, printed with the run's output. */
function note(text: string): void {
  process.stderr.write(`[run.test] ${text}\n`);
}

describe('run, with a sidecar whose tickets wait 10 minutes', () => {
  const sidecar = sidecarFor(600);

  it('runs a real SleepJob under its ticket: an app in realtime with the ticket tag, bound, SUCCEEDED and met', async () => {
    const s = sidecar.get();
    const { ticketId, app, job } = await runToEnd(
      s,
      ['--deadline', '10m', '--maps', '2', '--reduces', '1', '--input-bytes', String(64 * MB)],
      ['-m', '2', '-r', '1', '-mt', '3000', '-rt', '2000'],
    );
    // The RM's own report of the app the client submitted.
    expect(app).toMatchObject({
      name: 'Sleep job',
      applicationType: 'MAPREDUCE',
      queue: 'root.realtime',
      state: 'FINISHED',
      finalStatus: 'SUCCEEDED',
    });
    const tags = String(app.applicationTags).split(',');
    // The RM lowercases tags: the ticket's id is lowercase already, its deadline is not.
    expect(tags).toContain(`sidecar-id:${ticketId}`);
    expect(tags).toEqual(expect.arrayContaining(['maps:2', 'reduces:1']));
    const deadlineTag = tags.find((t) => t.startsWith('deadline:'))!;
    expect(deadlineTag).toMatch(/^deadline:\d{4}-\d\d-\d\dt[\d:.]+z$/);
    // Exactly the ticket's tags, as the RM keeps them: lowercased (its deadline's T and Z too).
    expect(job.ticket!.tags.find((t) => t.startsWith('deadline:'))).toMatch(/T[\d:.]+Z$/);
    expect(job.ticket!.tags.map((t) => t.toLowerCase()).sort()).toEqual([...tags].sort());
    // Bound by the sidecar to that very app, and judged by the RM's finish time.
    expect(job).toMatchObject({
      appId: app.id,
      queue: 'realtime',
      outcome: 'met',
      ticket: { status: 'bound', appId: app.id },
    });
    const waited = job.decisions.find((d) => d.decision === 'ticket-bound')!.detail.waitedSeconds!;
    expect(waited).toBeGreaterThan(0);
    expect(waited).toBeLessThan(120);
    note(`admission (ticket issued) to binding (sidecar sees the app): ${waited.toFixed(1)} s`);
    note(`tags as the RM shows them: ${String(app.applicationTags)}`);
  }, 240_000);

  it('a rejected run never reaches the RM and exits 75', async () => {
    const s = sidecar.get();
    const before = await appsSubmitted();
    const appsBefore = list(at(await read(`${info.rm}/ws/v1/cluster/apps`), 'apps.app')).length;
    const p = run(
      s,
      ['--deadline', '5s', '--maps', '40', '--reduces', '2', '--input-bytes', String(4096 * MB)],
      ['-m', '40', '-r', '2', '-mt', '1000', '-rt', '1000'],
    );
    expect(await exitOf(p, 60_000)).toBe(75);
    expect(p.output()).toMatch(/run: rejected \(dl-[0-9a-f]+\): this job would miss its deadline/);
    expect(p.output()).toMatch(/run: earliest admissible deadline: \d{4}-\d{2}-\d{2}T/);
    expect(p.output()).toContain('run: nothing was run');
    const id = /run: rejected \((dl-[0-9a-f]+)\)/.exec(p.output())![1]!;
    expect(await jobOf(s, id)).toMatchObject({ state: 'rejected', appId: null, ticket: null });
    expect(await appsSubmitted()).toBe(before);
    expect(list(at(await read(`${info.rm}/ws/v1/cluster/apps`), 'apps.app'))).toHaveLength(appsBefore);
  }, 90_000);

  it('Ctrl-C stops the SleepJob client and cancels the ticket; no app is left', async () => {
    const s = sidecar.get();
    const before = await appsSubmitted();
    const p = run(
      s,
      ['--deadline', '10m', '--maps', '1', '--reduces', '1', '--input-bytes', String(16 * MB)],
      ['-m', '1', '-r', '1', '-mt', '60000', '-rt', '1000'],
    );
    // The JVM that `run` started: a child of its process, running the SleepJob.
    const javaPid = await waitFor(
      'the SleepJob JVM',
      async () => {
        if (!p.running) throw new Error(`run exited early:\n${p.output()}`);
        return childPids(p.child.pid!).find((pid) => cmdline(pid).includes(SLEEP_JOB));
      },
      30_000,
    );
    const id = ticketIdOf(p);
    p.child.kill('SIGINT');
    expect(await exitOf(p, 60_000)).toBe(130);
    expect(fs.existsSync(`/proc/${javaPid}`)).toBe(false);
    expect(p.output()).toContain(`ticket ${id} cancelled`);
    expect(await jobOf(s, id)).toMatchObject({
      state: 'cancelled',
      appId: null,
      ticket: { status: 'cancelled', appId: null },
    });
    expect(await rmAppsTagged(`sidecar-id:${id}`)).toEqual([]);
    expect(await appsSubmitted()).toBe(before);
  }, 90_000);

  it("a GPU job's app carries the gpu label expression, as the RM reports it", async () => {
    const { app, job } = await runToEnd(
      sidecar.get(),
      [
        '--deadline',
        '10m',
        '--maps',
        '1',
        '--reduces',
        '1',
        '--input-bytes',
        String(16 * MB),
        '--type',
        'gpu',
      ],
      ['-m', '1', '-r', '1', '-mt', '500', '-rt', '500'],
    );
    expect(job).toMatchObject({ label: 'gpu', ticket: { status: 'bound', labelExpression: 'gpu' } });
    expect(app).toMatchObject({
      queue: 'root.realtime',
      amNodeLabelExpression: 'gpu',
      appNodeLabelExpression: 'gpu',
      finalStatus: 'SUCCEEDED',
    });
    expect(String(app.applicationTags).split(',')).toContain('type:gpu');
  }, 240_000);

  it('a map-only SleepJob (-r 0, run --reduces 0) is admitted, bound and met', async () => {
    const { app, job } = await runToEnd(
      sidecar.get(),
      ['--deadline', '10m', '--maps', '2', '--reduces', '0', '--input-bytes', String(32 * MB)],
      ['-m', '2', '-r', '0', '-mt', '1000'],
    );
    expect(app).toMatchObject({ queue: 'root.realtime', state: 'FINISHED', finalStatus: 'SUCCEEDED' });
    expect(String(app.applicationTags).split(',')).toContain('reduces:0');
    expect(job).toMatchObject({ reduces: 0, outcome: 'met', ticket: { status: 'bound', appId: app.id } });
  }, 240_000);
});

describe('tickets, with a sidecar whose tickets wait 10 seconds', () => {
  const sidecar = sidecarFor(10);
  // The realtime queue holds 8 containers of 1 GB in the default partition (50 % of a 16 GB
  // node): the job's AM holds one, its tasks the other 7. At 2 s per MB and 5 s per task, 7 maps
  // and 7 reduces over 700 MB run 205 s each, after the AM's 10 s of set-up and before its 5 s of
  // commit: one such job ends at about 425 s, within its 600 s; a second's AM waits for a
  // container until then, and it cannot.
  const job = (name: string, dryRun = false) => ({
    name,
    user: 'alice',
    deadline: 600,
    maps: 7,
    reduces: 7,
    inputBytes: 700 * MB,
    ...(dryRun ? { dryRun } : {}),
  });
  type Answer = { decision: string; id: string; ticket?: { id: string; expiresAt: string } };

  it('an expired ticket frees its capacity: a job that needed it is admitted afterwards', async () => {
    const s = sidecar.get();
    const before = await appsSubmitted();
    const holder = await api<Answer>(s, 'POST', '/api/v1/jobs', job('holder'));
    expect(holder.status).toBe(201);
    expect(holder.body.decision).toBe('admitted');
    const id = holder.body.id;
    const second = await api<Answer>(s, 'POST', '/api/v1/jobs', job('second', true));
    expect(second.body.decision).toBe('rejected');

    const expired = await waitFor(
      'the ticket to expire',
      async () => {
        const j = await jobOf(s, id);
        return j.ticket?.status === 'expired' ? j : undefined;
      },
      40_000,
    );
    expect(expired).toMatchObject({ state: 'expired', appId: null });
    // No app ever carried the ticket's tag, and nothing was submitted to the RM.
    expect(await rmAppsTagged(`sidecar-id:${id}`)).toEqual([]);
    expect(await appsSubmitted()).toBe(before);

    const after = await api<Answer>(s, 'POST', '/api/v1/jobs', job('second'));
    expect(after.status).toBe(201);
    expect(after.body.decision).toBe('admitted');
    // Not run here: cancelled, its capacity released again.
    expect((await api(s, 'DELETE', `/api/v1/jobs/${after.body.id}`)).status).toBe(200);
  }, 90_000);
});

/** The pids whose parent is `pid` (Linux' /proc). */
function childPids(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      try {
        const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
        // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    });
}

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}
