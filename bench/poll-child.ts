/**
 * The sidecar side of bench/poll.bench.ts, in a process of its own (its resident memory is the
 * sidecar's alone): `tsx bench/poll-child.ts ROOT RM_URL DEADLINE_APPS CYCLES`. It runs the
 * sidecar of the tree at ROOT (this one or an earlier commit's, imported from its src/) against
 * the stub RM, submits DEADLINE_APPS recorded jobs through the API, asks the stub to add the
 * other apps, then times CYCLES steady poll cycles, telling the stub where each begins (so the
 * stub can say which bytes each cycle fetched). Prints one JSON line: cycle times and RSS.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MB, msSince, sidecarConfigInput, TOKEN } from './support';

const [root, rmUrl, deadlineAppsArg, cyclesArg] = process.argv.slice(2) as [string, string, string, string];

interface Running {
  url: string;
  sidecar: {
    runOnce(): Promise<void>;
    runOnceSettled(): Promise<void>;
    enforcer: { drain(): Promise<unknown> };
  };
  close(): Promise<void>;
}

/** With YSS_BENCH_PROFILE=FILE: a CPU profile of the timed cycles (open it in Chrome's DevTools). */
async function startProfile(): Promise<() => Promise<unknown>> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((ok, fail) =>
      session.post(method, params ?? {}, (err, res) => (err ? fail(err) : ok(res))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  return async () => ((await post('Profiler.stop')) as { profile: unknown }).profile;
}

async function main(): Promise<void> {
  const { buildConfig } = (await import(join(root, 'src/config/load'))) as {
    buildConfig: (raw: unknown) => unknown;
  };
  const { startSidecar } = (await import(join(root, 'src/loop/service'))) as {
    startSidecar: (config: unknown, o: unknown) => Promise<Running>;
  };
  const { silentLogger } = (await import(join(root, 'src/log'))) as { silentLogger: () => unknown };
  const dir = mkdtempSync(join(tmpdir(), 'yss-poll-bench-'));
  const config = buildConfig(
    sidecarConfigInput({
      rmUrl,
      ledgerPath: join(dir, 'ledger.db'),
      timeoutMs: 60_000,
      maxWritesPerCycle: 10_000,
    }),
  );
  const sc = await startSidecar(config, { logger: silentLogger(), manualPolling: true });
  try {
    await sc.sidecar.runOnce();
    const n = Number(deadlineAppsArg);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) {
          const i = next++;
          const res = await fetch(`${sc.url}/api/v1/jobs`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              name: `bench-${i}`,
              user: 'bench',
              deadline: 86_400 + i,
              maps: 4,
              reduces: 1,
              inputBytes: 4 * 128 * MB,
              jobType: 'cpu',
              yarnSubmission: { 'am-container-spec': { commands: { command: 'sleep 300' } } },
            }),
          });
          const body = (await res.json()) as { decision?: string };
          if (body.decision !== 'admitted') throw new Error(`job ${i}: ${JSON.stringify(body)}`);
        }
      }),
    );
    await sc.sidecar.runOnceSettled();
    await sc.sidecar.enforcer.drain();
    await fetch(`${rmUrl}/bench/fill`);
    // Two cycles to settle: the first reads the new apps (and sets priorities), the second is quiet.
    for (let i = 0; i < 2; i++) await sc.sidecar.runOnce();
    const cycles: number[] = [];
    const profile = process.env.YSS_BENCH_PROFILE ? await startProfile() : undefined;
    for (let i = 0; i < Number(cyclesArg); i++) {
      await fetch(`${rmUrl}/bench/mark?cycle=${i}`);
      const s = process.hrtime.bigint();
      await sc.sidecar.runOnce();
      cycles.push(msSince(s));
    }
    await fetch(`${rmUrl}/bench/mark?cycle=-1`);
    if (profile) writeFileSync(process.env.YSS_BENCH_PROFILE!, JSON.stringify(await profile()));
    process.stdout.write(`${JSON.stringify({ cycles, rssMb: process.memoryUsage().rss / MB })}\n`);
  } finally {
    await sc.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
