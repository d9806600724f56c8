import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { constants as osConstants, tmpdir } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { buildConfig } from '../config/load';
import { mountDashboard } from '../dashboard';
import { defaultEmulatorConfig } from '../emulator/config';
import { startEmulator, type RunningEmulator } from '../emulator/server';
import { createLogger } from '../log';
import { startSidecar, type RunningSidecar } from '../service/start';
import { mulberry32 } from '../sim/rng';
import { EXIT, startFailureCode } from './exit-codes';

const MB = 1024 * 1024;

export interface DemoOptions {
  port: number;
  rmPort: number;
  jhsPort: number;
  /** Simulated seconds per real second. */
  speed: number;
  /** Jobs to submit; 0 = until stopped. */
  jobs: number;
  intervalMs: number;
  seed: number;
  out: (line: string) => void;
}

export interface RunningDemo {
  emulator: RunningEmulator;
  sidecar: RunningSidecar;
  token: string;
  /** The temporary folder of the demo's ledger, removed by stop(). */
  dir: string;
  /**
   * Resolves with the number of jobs submitted when the job stream has ended: all of them, or
   * fewer when stop() came first (never, with jobs = 0, until stop()).
   */
  submitted: Promise<number>;
  /** Stops the job stream, the sidecar and the emulator, and removes `dir`. */
  stop(): Promise<void>;
}

/**
 * `npm start`: an emulated ResourceManager and JobHistory server, the sidecar beside it, and a
 * stream of deadline jobs submitted through the sidecar's HTTP API with a generated token. The
 * sidecar reads the emulated cluster's clock, so deadlines and finish times agree while the
 * cluster runs faster than real time.
 */
export async function startDemo(o: DemoOptions): Promise<RunningDemo> {
  const quiet = createLogger({ level: 'warn', format: 'pretty' });
  const dir = mkdtempSync(join(tmpdir(), 'yarn-sched-sidecar-demo-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  let emulator: RunningEmulator | undefined;
  let sidecar: RunningSidecar | undefined;
  const token = randomBytes(18).toString('base64url');
  try {
    emulator = await startEmulator({
      // A cluster whose operator allows priorities up to 10 (a stock one caps them at 0), so the
      // sidecar's EDF priorities show.
      config: defaultEmulatorConfig({ maxApplicationPriority: 10 }),
      port: o.rmPort,
      jhsPort: o.jhsPort,
      speed: o.speed,
      seed: o.seed,
      logger: quiet,
    });
    const emulated = emulator;
    const config = buildConfig({
      rm: { addresses: [emulator.url], jobHistoryAddress: emulator.jhsUrl, timeoutMs: 5000 },
      // Worst case of the emulated cluster's task times (docs/emulator.md): the sidecar's
      // starting estimates are at or above it, so its promises hold.
      admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 } },
      auth: { tokens: [{ name: 'demo', token }] },
      server: { port: o.port, host: '127.0.0.1' },
      loop: { pollCron: '*/2 * * * * *' },
      ledger: { path: join(dir, 'ledger.db') },
      log: { level: 'warn', format: 'pretty' },
    });
    sidecar = await startSidecar(config, {
      logger: quiet,
      now: () => emulated.time.nowEpochMs(),
      clockKind: 'emulated',
      extraRoutes: (app) => mountDashboard(app),
    });
    // The sidecar answers 503 NOT_READY until its first poll has read the cluster; wait for that
    // poll (startSidecar has already begun it) so the first demo job gets a decision.
    await sidecar.sidecar.runOnce();
  } catch (err) {
    // Nothing of a demo that could not start is left running or on disk.
    await sidecar?.close().catch(() => undefined);
    await emulator?.close().catch(() => undefined);
    removeDir();
    throw err;
  }
  return streamJobs(o, emulator, sidecar, token, dir, removeDir);
}

/** Prints where everything is, then submits the job stream until done or stopped. */
function streamJobs(
  o: DemoOptions,
  emulator: RunningEmulator,
  sidecar: RunningSidecar,
  token: string,
  dir: string,
  removeDir: () => void,
): RunningDemo {
  printWhere(o, emulator, sidecar, token, dir);
  const rng = mulberry32(o.seed);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((r) => {
      wake = r;
      timer = setTimeout(r, ms);
    });
  const submitted = (async () => {
    let n = 0;
    /** Jobs the sidecar answered (admitted, rejected or refused). */
    let answered = 0;
    while (!stopped && (o.jobs === 0 || n < o.jobs)) {
      n++;
      const job = demoJob(rng, n, emulator.time.nowEpochMs());
      if (await submitJob(o, sidecar.url, token, job)) answered++;
      // No pause after the last job: the stream has ended.
      if (o.jobs === 0 || n < o.jobs) await pause(o.intervalMs);
    }
    return answered;
  })();

  let stopping: Promise<void> | undefined;
  return {
    emulator,
    sidecar,
    token,
    dir,
    submitted,
    stop() {
      stopping ??= (async () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        wake?.();
        await submitted;
        try {
          await sidecar.close();
          await emulator.close();
        } finally {
          removeDir();
        }
      })();
      return stopping;
    },
  };
}

/** Where the emulated RM, the sidecar and its ledger are, and how to submit a job by hand. */
function printWhere(
  o: DemoOptions,
  emulator: RunningEmulator,
  sidecar: RunningSidecar,
  token: string,
  dir: string,
): void {
  o.out(
    `Emulated YARN ResourceManager: ${emulator.url} (JobHistory ${emulator.jhsUrl}), ${o.speed}x real time`,
  );
  o.out(`Sidecar and dashboard:         http://localhost:${new URL(sidecar.url).port}`);
  o.out(`Ledger:                        ${join(dir, 'ledger.db')} (removed when the demo stops)`);
  o.out(`Submit your own job:`);
  o.out(
    `  curl -s -X POST ${sidecar.url}/api/v1/jobs -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' \\`,
  );
  o.out(
    `    -d '{"name":"my-report","user":"me","deadline":300,"maps":8,"reduces":1,"inputBytes":1073741824,` +
      `"yarnSubmission":{"am-container-spec":{"commands":{"command":"sleep 300"}}}}'`,
  );
  o.out('');
}

const JOB_TYPES = ['cpu', 'cpu', 'gpu', 'adaptive'] as const;
const JOB_NAMES = ['hourly-report', 'fraud-scoring', 'ad-optimisation', 'md-simulation', 'log-rollup'];

/** The demo's `n`th job, drawn from `rng`, its deadline in simulated seconds from `nowMs`. */
function demoJob(rng: ReturnType<typeof mulberry32>, n: number, nowMs: number) {
  const maps = 2 + Math.floor(rng.next() * 30);
  const reduces = 1 + Math.floor(rng.next() * 3);
  // Deadlines from tight to generous, in simulated seconds from now.
  const deadline = Math.round(40 + rng.next() * 400);
  const body = {
    name: `${JOB_NAMES[Math.floor(rng.next() * JOB_NAMES.length)]}-${n}`,
    user: ['alice', 'bob', 'carol'][Math.floor(rng.next() * 3)],
    deadline: new Date(nowMs + deadline * 1000).toISOString(),
    maps,
    reduces,
    inputBytes: maps * 128 * MB,
    jobType: JOB_TYPES[Math.floor(rng.next() * JOB_TYPES.length)],
    // The AM command a real RM would launch; the emulated RM runs the job from its tags.
    yarnSubmission: { 'am-container-spec': { commands: { command: 'sleep 300' } } },
  };
  return { body, deadlineSeconds: deadline };
}

/** Submits one job to the sidecar and prints its answer; whether the sidecar answered. */
async function submitJob(
  o: DemoOptions,
  sidecarUrl: string,
  token: string,
  { body: job, deadlineSeconds }: ReturnType<typeof demoJob>,
): Promise<boolean> {
  let answered = false;
  try {
    const res = await fetch(`${sidecarUrl}/api/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(job),
    });
    const a = (await res.json()) as Record<string, unknown>;
    answered = true;
    const what =
      a.decision === 'admitted'
        ? `admitted, estimated finish ${String(a.estimatedFinish)}, priority ${String(a.priority)}${a.label ? `, label ${String(a.label)}` : ''}`
        : a.decision === 'rejected'
          ? `rejected: ${String((a.reason as { message?: string })?.message)}; earliest admissible deadline ${String(a.earliestAdmissibleDeadline)}`
          : `error ${res.status}: ${JSON.stringify(a)}`;
    o.out(
      `${job.name} (${job.maps} maps, ${job.reduces} reduces, ${job.jobType}, deadline in ${deadlineSeconds} s): ${what}`,
    );
  } catch (err) {
    o.out(`${job.name}: submission failed: ${(err as Error).message}`);
  }
  return answered;
}

/** An option's value as a number of at least `min`, else a usage error naming the option. */
const atLeast = (min: number) => (value: string) => {
  const v = Number(value);
  if (value.trim() === '' || !Number.isFinite(v) || v < min)
    throw new InvalidArgumentError(`must be a number >= ${min}`);
  return v;
};

export function demoCommand(): Command {
  return new Command('demo')
    .description(
      'Run an emulated YARN cluster, the sidecar and its dashboard, with a stream of deadline jobs',
    )
    .option('--port <n>', 'sidecar and dashboard port', atLeast(0), 8080)
    .option('--rm-port <n>', 'emulated ResourceManager port', atLeast(0), 8088)
    .option('--jhs-port <n>', 'emulated JobHistory server port', atLeast(0), 19888)
    .option('--speed <n>', 'simulated seconds per real second', atLeast(0.001), 10)
    .option('--jobs <n>', 'jobs to submit (0 = until stopped)', atLeast(0), 0)
    .option('--interval-ms <n>', 'time between submissions', atLeast(10), 1500)
    .option('--seed <n>', 'seed of the job stream and the emulated cluster', atLeast(0), 1)
    .action(async (opts: Omit<DemoOptions, 'out'>) => {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      let demo: RunningDemo;
      try {
        demo = await startDemo({ ...opts, out });
      } catch (err) {
        process.stderr.write(`demo: cannot start: ${(err as Error).message}\n`);
        process.exitCode = startFailureCode(err);
        return;
      }
      const { dir } = demo;
      // Whatever ends the process, the demo's folder goes with it.
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) {
          out(`${signal} again: exiting without waiting`);
          process.exit(128 + osConstants.signals[signal]);
        }
        stopping = true;
        out(`\n${signal}: stopping the demo`);
        void demo
          .stop()
          .then(() => demo.submitted)
          .then((n) => {
            out(
              `Demo stopped: ${n} job(s) submitted${opts.jobs > 0 ? ` of ${opts.jobs}` : ''}; ` +
                `sidecar and emulated cluster closed, ${dir} removed.`,
            );
            process.exit(EXIT.ok);
          });
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      const n = await demo.submitted;
      // Stopped early, the stop handler says what happened instead.
      if (!stopping)
        out(
          `The job stream has ended: ${n} of ${opts.jobs} demo jobs submitted; the sidecar keeps running. Ctrl-C stops it.`,
        );
    });
}
