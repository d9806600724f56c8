import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { buildConfig } from '../config/load';
import { mountDashboard } from '../dashboard';
import { defaultEmulatorConfig } from '../emulator/config';
import { startEmulator, type RunningEmulator } from '../emulator/server';
import { createLogger } from '../log';
import { startSidecar, type RunningSidecar } from '../loop/service';
import { mulberry32 } from '../sim/rng';

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
  /** Resolves when the job stream has ended (never, with jobs = 0, until stop()). */
  submitted: Promise<number>;
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
  const emulator = await startEmulator({
    // A cluster whose operator allows priorities up to 10 (a stock one caps them at 0), so the
    // sidecar's EDF priorities show.
    config: defaultEmulatorConfig({ maxApplicationPriority: 10 }),
    port: o.rmPort,
    jhsPort: o.jhsPort,
    speed: o.speed,
    seed: o.seed,
    logger: quiet,
  });
  const token = randomBytes(18).toString('base64url');
  const dir = mkdtempSync(join(tmpdir(), 'yarn-sched-sidecar-demo-'));
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
  const sidecar = await startSidecar(config, {
    logger: quiet,
    now: () => emulator.time.nowEpochMs(),
    extraRoutes: (app) => mountDashboard(app),
  });
  // The sidecar answers 503 NOT_READY until its first poll has read the cluster; wait for that
  // poll (startSidecar has already begun it) so the first demo job gets a decision.
  await sidecar.sidecar.runOnce();
  o.out(
    `Emulated YARN ResourceManager: ${emulator.url} (JobHistory ${emulator.jhsUrl}), ${o.speed}x real time`,
  );
  o.out(`Sidecar and dashboard:         http://localhost:${new URL(sidecar.url).port}`);
  o.out(`Ledger:                        ${config.ledger.path}`);
  o.out(`Submit your own job:`);
  o.out(
    `  curl -s -X POST ${sidecar.url}/api/v1/jobs -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' \\`,
  );
  o.out(
    `    -d '{"name":"my-report","user":"me","deadline":300,"maps":8,"reduces":1,"inputBytes":1073741824,` +
      `"yarnSubmission":{"am-container-spec":{"commands":{"command":"sleep 300"}}}}'`,
  );
  o.out('');

  const rng = mulberry32(o.seed);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((r) => {
      wake = r;
      timer = setTimeout(r, ms);
    });
  const types = ['cpu', 'cpu', 'gpu', 'adaptive'] as const;
  const names = ['hourly-report', 'fraud-scoring', 'ad-optimisation', 'md-simulation', 'log-rollup'];
  const submitted = (async () => {
    let n = 0;
    while (!stopped && (o.jobs === 0 || n < o.jobs)) {
      n++;
      const maps = 2 + Math.floor(rng.next() * 30);
      const reduces = 1 + Math.floor(rng.next() * 3);
      // Deadlines from tight to generous, in simulated seconds from now.
      const deadline = Math.round(40 + rng.next() * 400);
      const job = {
        name: `${names[Math.floor(rng.next() * names.length)]}-${n}`,
        user: ['alice', 'bob', 'carol'][Math.floor(rng.next() * 3)],
        deadline: new Date(emulator.time.nowEpochMs() + deadline * 1000).toISOString(),
        maps,
        reduces,
        inputBytes: maps * 128 * MB,
        jobType: types[Math.floor(rng.next() * types.length)],
        // The AM command a real RM would launch; the emulated RM runs the job from its tags.
        yarnSubmission: { 'am-container-spec': { commands: { command: 'sleep 300' } } },
      };
      try {
        const res = await fetch(`${sidecar.url}/api/v1/jobs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(job),
        });
        const a = (await res.json()) as Record<string, unknown>;
        const what =
          a.decision === 'admitted'
            ? `admitted, estimated finish ${String(a.estimatedFinish)}, priority ${String(a.priority)}${a.label ? `, label ${String(a.label)}` : ''}`
            : a.decision === 'rejected'
              ? `rejected: ${String((a.reason as { message?: string })?.message)}; earliest admissible deadline ${String(a.earliestAdmissibleDeadline)}`
              : `error ${res.status}: ${JSON.stringify(a)}`;
        o.out(
          `${job.name} (${maps} maps, ${reduces} reduces, ${job.jobType}, deadline in ${deadline} s): ${what}`,
        );
      } catch (err) {
        o.out(`${job.name}: submission failed: ${(err as Error).message}`);
      }
      await pause(o.intervalMs);
    }
    return n;
  })();

  return {
    emulator,
    sidecar,
    token,
    submitted,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await submitted;
      await sidecar.close();
      await emulator.close();
    },
  };
}

export function demoCommand(): Command {
  return new Command('demo')
    .description(
      'Run an emulated YARN cluster, the sidecar and its dashboard, with a stream of deadline jobs',
    )
    .option('--port <n>', 'sidecar and dashboard port', '8080')
    .option('--rm-port <n>', 'emulated ResourceManager port', '8088')
    .option('--jhs-port <n>', 'emulated JobHistory server port', '19888')
    .option('--speed <n>', 'simulated seconds per real second', '10')
    .option('--jobs <n>', 'jobs to submit (0 = until stopped)', '0')
    .option('--interval-ms <n>', 'time between submissions', '1500')
    .option('--seed <n>', 'seed of the job stream and the emulated cluster', '1')
    .action(async (opts: Record<string, string>) => {
      const num = (k: string, min: number): number => {
        const v = Number(opts[k]);
        if (!Number.isFinite(v) || v < min) {
          process.stderr.write(
            `demo: --${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} must be a number >= ${min}\n`,
          );
          process.exit(2);
        }
        return v;
      };
      const options: DemoOptions = {
        port: num('port', 0),
        rmPort: num('rmPort', 0),
        jhsPort: num('jhsPort', 0),
        speed: num('speed', 0.001),
        jobs: num('jobs', 0),
        intervalMs: num('intervalMs', 10),
        seed: num('seed', 0),
        out: (line) => process.stdout.write(`${line}\n`),
      };
      let demo: RunningDemo;
      try {
        demo = await startDemo(options);
      } catch (err) {
        process.stderr.write(`demo: cannot start: ${(err as Error).message}\n`);
        process.exitCode = 2;
        return;
      }
      const stop = () => {
        process.stdout.write('\nstopping the demo\n');
        void demo.stop().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await demo.submitted;
      options.out('All demo jobs submitted; the sidecar keeps running. Ctrl-C stops it.');
    });
}
