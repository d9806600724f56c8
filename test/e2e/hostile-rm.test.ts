/**
 * `yarn-sched-sidecar start` in its own process, as users start it, against an RM that turns
 * hostile: one sidecar and one HTTP server per shape, the server answering as Hadoop's
 * documented samples do (test/fixture-server) until the sidecar is ready, then one endpoint with
 * the shape. The RM limits are the defaults (rm.timeoutMs 10 s, rm.firstByteTimeoutMs 5 s, the
 * endpoints' limits); only the poll runs every second. For each shape: the sidecar stays up,
 * /healthz answers in under a second all along, the poll's failure is logged with the typed code
 * within 15 s of the first hostile answer, the process's peak RSS (VmHWM, its start included)
 * stays at or under 300 MB, and it exits 0 within 2 s of SIGTERM. Two shapes run at once, to
 * keep the suite's time short. Each hostile RM is a process of its own (support/hostile-rm.ts),
 * so that serving an endless body never slows this process's requests to /healthz; the time to
 * the log line is taken from the two processes' wall clocks.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { join } from 'node:path';
import { shapes, type Shape } from './support/hostile-rm';
import {
  Proc,
  REPO,
  startSidecarProc,
  stopAll,
  tempDir,
  waitFor,
  waitReady,
  type SidecarProc,
} from './support/procs';

const AT_ONCE = 2;
const LOGGED_WITHIN_MS = 15_000;
const HEALTHZ_WITHIN_MS = 1_000;
const PEAK_RSS_MB = 300;
const EXIT_WITHIN_MS = 2_000;

interface Outcome {
  /** The sidecar's log line of the poll's failure, once it came. */
  line: string;
  /** From the first hostile request to that log line. */
  loggedMs: number;
  healthzMaxMs: number;
  healthzChecks: number;
  peakRssMb: number;
  aliveAfter: boolean;
  exitCode: number | null;
  exitMs: number;
}

/** The shape's hostile RM (support/hostile-rm.ts) in a process of its own. */
async function hostileRm(index: number): Promise<{
  url: string;
  turn(): Promise<void>;
  /** The wall-clock time (epoch ms) of its first hostile answer. */
  firstHitMs(): Promise<number | undefined>;
  close(): Promise<void>;
}> {
  const child = spawn(
    process.execPath,
    ['--require', 'tsx/cjs', join(__dirname, 'support', 'hostile-rm.ts'), String(index)],
    {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const proc = new Proc(`hostile-rm-${index}`, child);
  const url = await waitFor(
    'the hostile RM to listen',
    () => /hostile RM: (http:\/\/\S+)/.exec(proc.output())?.[1],
    {
      procs: [proc],
      timeoutMs: 30_000,
    },
  );
  return {
    url,
    turn: async () => void (await fetch(`${url}/_hostile/turn`, { method: 'POST' })),
    firstHitMs: async () =>
      ((await (await fetch(`${url}/_hostile/state`)).json()) as { firstHitMs?: number }).firstHitMs,
    close: () => proc.stop(),
  };
}

function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
}

async function healthz(sc: SidecarProc): Promise<number> {
  const started = performance.now();
  try {
    const res = await fetch(`${sc.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
    await res.text();
    return res.status === 200 ? performance.now() - started : Infinity;
  } catch {
    return Infinity;
  }
}

async function run(shape: Shape, dir: string, index: number): Promise<Outcome> {
  const rm = await hostileRm(index);
  try {
    const sc = await startSidecarProc(`hostile-${index}`, {
      rmUrls: [rm.url],
      jhsUrl: rm.url,
      ledgerPath: join(dir, `hostile-${index}.db`),
      // The defaults of the RM limits; only the poll runs every second (support/procs.ts), and
      // reads the apps in full every 5 cycles: this RM's counts of apps never move, so a cycle
      // between reads its metrics alone (src/loop/app-reads.ts), and an apps shape would be
      // met only at the full read, 60 cycles apart by default.
      config: {
        rm: { format: shape.format, timeoutMs: 10_000, retries: 3 },
        loop: { fullReadEvery: 5 },
      },
    });
    const pid = sc.proc.child.pid!;
    // Ready against a sound RM (its start and first polls done), then the RM turns.
    await waitReady(sc, [sc.proc], 30_000);
    await rm.turn();
    let healthzMaxMs = 0;
    let healthzChecks = 0;
    let probing = true;
    const prober = (async () => {
      while (probing) {
        healthzMaxMs = Math.max(healthzMaxMs, await healthz(sc));
        healthzChecks++;
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    // JSON log lines, their keys in any order.
    const failed = new RegExp(`^(?=.*"message":"poll failed")(?=.*"code":"${shape.code}").*$`, 'm');
    const anyFailure = /^.*"message":"poll failed".*$/m;
    let line: string;
    try {
      line = await waitFor('the poll to fail with a typed code', () => failed.exec(sc.proc.output())?.[0], {
        procs: [sc.proc],
        timeoutMs: 30_000,
        intervalMs: 50,
      });
    } catch (err) {
      line = anyFailure.exec(sc.proc.output())?.[0] ?? `(none: ${(err as Error).message.slice(0, 300)})`;
    }
    // When it was logged, by the sidecar's own clock: the test's process may be slower to see it.
    const loggedAt = Date.parse(/"timestamp":"([^"]+)"/.exec(line)?.[1] ?? '') || Date.now();
    // /healthz a little longer, while the next polls meet the shape again.
    await new Promise((r) => setTimeout(r, 2_000));
    probing = false;
    await prober;
    const peak = peakRssMb(pid);
    const aliveAfter = sc.proc.running;
    const stopped = performance.now();
    sc.proc.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const exitCode = await Promise.race([
      sc.proc.exited,
      new Promise<null>((r) => (timer = setTimeout(() => r(null), 10_000))),
    ]);
    clearTimeout(timer);
    const exitMs = performance.now() - stopped;
    return {
      line,
      loggedMs: loggedAt - ((await rm.firstHitMs()) ?? loggedAt),
      healthzMaxMs,
      healthzChecks,
      peakRssMb: peak,
      aliveAfter,
      exitCode,
      exitMs,
    };
  } finally {
    await rm.close();
  }
}

const outcomes = new Map<string, Outcome>();
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir('hostile');
  let next = 0;
  const worker = async () => {
    while (next < shapes.length) {
      const i = next++;
      outcomes.set(shapes[i]!.name, await run(shapes[i]!, tmp.dir, i));
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
  const rows = shapes.map((s) => {
    const o = outcomes.get(s.name)!;
    return `| ${s.name} | ${s.code} | ${(o.loggedMs / 1000).toFixed(1)} s | ${o.peakRssMb.toFixed(0)} MB | ${o.healthzMaxMs.toFixed(0)} ms (${o.healthzChecks}) | ${o.exitMs.toFixed(0)} ms |`;
  });
  console.log(
    [
      '| shape | code | logged after | peak RSS | /healthz slowest (checks) | exit after SIGTERM |',
      ...rows,
    ].join('\n'),
  );
}, 240_000);

afterAll(async () => {
  await stopAll();
  tmp?.cleanup();
});

describe.each(shapes)('$name', (shape) => {
  it(`logs ${shape.code} in time, stays up and answering, within its memory, and stops on SIGTERM`, () => {
    const o = outcomes.get(shape.name)!;
    expect(o.line).toMatch(new RegExp(`"code":"${shape.code}"`));
    expect(o.line).toMatch(shape.says);
    expect(o.loggedMs).toBeLessThanOrEqual(LOGGED_WITHIN_MS);
    expect(o.aliveAfter).toBe(true);
    expect(o.healthzChecks).toBeGreaterThan(3);
    expect(o.healthzMaxMs).toBeLessThan(HEALTHZ_WITHIN_MS);
    expect(o.peakRssMb).toBeLessThanOrEqual(PEAK_RSS_MB);
    expect(o.exitCode).toBe(0);
    expect(o.exitMs).toBeLessThan(EXIT_WITHIN_MS);
  });
});
