/**
 * A job's time to start, by its own client alone and through `yarn-sched-sidecar run`: the same
 * SleepJob (one map of a second, no reduce, in the realtime queue) submitted by plain
 * `java -cp <client classpath> SleepJob` and by `run -- java ...`, taking turns. Each job
 * carries a tag of its own; its app is watched on the RM by that tag every WATCH_MS, from the
 * moment its command was started (t0): when the RM accepted it (the app's startedTime), when it
 * was first seen RUNNING (its AM registered), and, from the JobHistory server once it ended, when
 * its first task started. For a job through `run`, the sidecar's ledger adds when it admitted
 * the job, when `run` reported its client running, and when the ticket was bound to the app.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const SLEEP_JOB = 'org.apache.hadoop.mapreduce.SleepJob';
/** How often the app is looked for on the RM (ms): the resolution of "first seen RUNNING". */
export const WATCH_MS = 50;
const ENDED = new Set(['FINISHED', 'FAILED', 'KILLED']);

export interface StartArm {
  /** As the tables name it: `plain`, `run`, `run (base abc123)`. */
  name: string;
  /** The command's words before `--` (none for the plain client): e.g. node BIN run --deadline … */
  runPrefix: string[] | null;
  /** Added to the command's environment (run's YSS_URL, YSS_TOKEN). */
  env?: Record<string, string>;
}

export interface StartSample {
  arm: string;
  round: number;
  appId: string;
  /** Every time below is ms after t0, the command's start. */
  acceptedMs: number;
  runningMs: number;
  firstTaskMs: number;
  /** Through run: the sidecar's admission, the client reported running, the ticket bound. */
  admittedMs: number | null;
  clientReportedMs: number | null;
  boundMs: number | null;
}

export interface StartEnv {
  rm: string;
  jhs: string;
  clientClasspath: string;
  javaOpts: readonly string[];
  /**
   * A log4j configuration for the client (a file), at INFO on the console as `hadoop jar` logs by
   * default: the client then prints the id of the app it submitted, as it does for a user.
   */
  clientLog4j: string;
  /** The sidecar's decisions of a job: [decision, epoch ms] (from its ledger). */
  decisions(jobId: string): Array<{ decision: string; atMs: number }>;
}

interface AppSeen {
  id: string;
  startedTime: number;
  runningAt: number;
}

async function appsTagged(rm: string, tag: string): Promise<Array<Record<string, unknown>>> {
  const res = await fetch(
    `${rm}/ws/v1/cluster/apps?applicationTags=${encodeURIComponent(tag)}&deSelects=resourceRequests,timeouts,resourceInfo`,
    { headers: { Accept: 'application/json' } },
  );
  if (res.status !== 200) throw new Error(`GET apps by tag ${tag}: ${res.status}`);
  const body = (await res.json()) as { apps?: { app?: Array<Record<string, unknown>> } | null };
  return body.apps?.app ?? [];
}

/** Watches the RM for the app tagged `tag` until it is RUNNING (or ended: then an error). */
async function watchApp(
  rm: string,
  tag: string,
  until: number,
  exited: () => string | null,
): Promise<AppSeen> {
  for (;;) {
    const app = (await appsTagged(rm, tag))[0];
    const now = Date.now();
    if (app !== undefined) {
      const state = String(app.state);
      if (state === 'RUNNING')
        return { id: String(app.id), startedTime: Number(app.startedTime), runningAt: now };
      if (ENDED.has(state))
        throw new Error(`app ${String(app.id)} ended ${state} before it was seen RUNNING`);
    }
    const why = exited();
    if (why !== null && app === undefined)
      throw new Error(`the command ended with no app tagged ${tag}: ${why}`);
    if (now > until) throw new Error(`no RUNNING app tagged ${tag} after the time allowed`);
    await new Promise((r) => setTimeout(r, WATCH_MS));
  }
}

/** The first task's start of an ended MapReduce app, from the JobHistory server (epoch ms). */
async function firstTaskStart(jhs: string, appId: string): Promise<number> {
  const job = appId.replace(/^application_/, 'job_');
  for (let i = 0; ; i++) {
    const res = await fetch(`${jhs}/ws/v1/history/mapreduce/jobs/${job}/tasks`, {
      headers: { Accept: 'application/json' },
    });
    if (res.status === 200) {
      const body = (await res.json()) as { tasks?: { task?: Array<{ startTime: number }> } | null };
      const starts = (body.tasks?.task ?? []).map((t) => t.startTime).filter((s) => s > 0);
      if (starts.length > 0) return Math.min(...starts);
    } else {
      await res.arrayBuffer();
    }
    if (i > 120) throw new Error(`JobHistory has no tasks of ${job} after 60 s (last ${res.status})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A client's log4j configuration as `hadoop jar`'s default: INFO, on the console (stderr). */
export const CLIENT_LOG4J = [
  'log4j.rootLogger=INFO,console',
  'log4j.appender.console=org.apache.log4j.ConsoleAppender',
  'log4j.appender.console.target=System.err',
  'log4j.appender.console.layout=org.apache.log4j.PatternLayout',
  'log4j.appender.console.layout.ConversionPattern=%d{yy/MM/dd HH:mm:ss} %p %c{2}: %m%n',
  '',
].join('\n');

/** One job by one arm: its times. */
export async function startOnce(env: StartEnv, arm: StartArm, round: number): Promise<StartSample> {
  const tag = `bench-start:${randomBytes(6).toString('hex')}`;
  const client = [
    'java',
    '-Xmx256m',
    ...env.javaOpts,
    `-Dlog4j.configuration=file:${env.clientLog4j}`,
    '-cp',
    env.clientClasspath,
    SLEEP_JOB,
  ];
  const jobArgs = ['-m', '1', '-r', '0', '-mt', '1000', '-rt', '1'];
  const argv =
    arm.runPrefix === null
      ? [...client, '-D', 'mapreduce.job.queuename=realtime', '-D', `mapreduce.job.tags=${tag}`, ...jobArgs]
      : [...arm.runPrefix, '--tag', tag, '--', ...client, ...jobArgs];
  const t0 = Date.now();
  const child = spawn(argv[0]!, argv.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...arm.env },
  });
  let output = '';
  const keep = (c: Buffer) => {
    output = (output + c.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exit: string | null = null;
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', (e) => {
      exit = `could not start: ${e.message}`;
      resolve(null);
    });
    child.on('close', (code) => {
      exit = `exit ${code}`;
      resolve(code);
    });
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
  try {
    const seen = await watchApp(env.rm, tag, t0 + 180_000, () => exit);
    const code = await exited;
    if (code !== 0) throw new Error(`${arm.name}: the command exited ${code}:\n${output.slice(-3000)}`);
    const firstTask = await firstTaskStart(env.jhs, seen.id);
    let admitted: number | null = null;
    let reported: number | null = null;
    let bound: number | null = null;
    if (arm.runPrefix !== null) {
      const id = /run: admitted as (dl-[0-9a-f]+)/.exec(output)?.[1];
      if (!id) throw new Error(`${arm.name}: run admitted nothing:\n${output.slice(-3000)}`);
      const decisions = env.decisions(id);
      const at = (d: string) => {
        const x = decisions.find((y) => y.decision === d);
        return x === undefined ? null : x.atMs - t0;
      };
      admitted = at('admitted');
      reported = at('client-running');
      bound = at('ticket-bound');
    }
    return {
      arm: arm.name,
      round,
      appId: seen.id,
      acceptedMs: seen.startedTime - t0,
      runningMs: seen.runningAt - t0,
      firstTaskMs: firstTask - t0,
      admittedMs: admitted,
      clientReportedMs: reported,
      boundMs: bound,
    };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** `rounds` rounds, each arm once a round, the arms' order turning from round to round. */
export async function measureStarts(
  env: StartEnv,
  arms: readonly StartArm[],
  o: { rounds: number; log?: (m: string) => void },
): Promise<StartSample[]> {
  const out: StartSample[] = [];
  for (let round = 0; round < o.rounds; round++) {
    for (let k = 0; k < arms.length; k++) {
      const arm = arms[(round + k) % arms.length]!;
      const s = await startOnce(env, arm, round);
      out.push(s);
      o.log?.(
        `  round ${round + 1}/${o.rounds}, ${arm.name}: accepted ${s.acceptedMs} ms, RUNNING ${s.runningMs} ms, first task ${s.firstTaskMs} ms${s.admittedMs === null ? '' : `; admitted ${s.admittedMs}, client reported ${s.clientReportedMs}, bound ${s.boundMs} ms`}`,
      );
    }
  }
  return out;
}
