/**
 * The sidecar side of bench/poll.bench.ts, in a process of its own (its resident memory is the
 * sidecar's alone): compiled by the bench and run with plain node, as the sidecar is deployed,
 * `node poll-child.js ROOT RM_URL DEADLINE_APPS CYCLES [json|xml]`. It runs the sidecar of the tree at ROOT
 * (this one or an earlier commit's, built with tsc and imported from its dist/) against
 * the stub RM, submits DEADLINE_APPS recorded jobs through the API, asks the stub to add the
 * other apps, then times CYCLES steady poll cycles, telling the stub where each begins (so the
 * stub can say which bytes each cycle fetched). Prints one JSON line: cycle times, each cycle's
 * longest event-loop block, its CPU time, RSS and peak RSS, and each cycle's floor (floorTimes, JSON
 * only). With `xml` the sidecar reads the RM in XML (rm.format). YSS_BENCH_HISTORY=N fills the ledger first
 * (fillHistory).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MB, msSince, sidecarConfigInput, TOKEN } from './support';

const [root, rmUrl, deadlineAppsArg, cyclesArg, formatArg] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string | undefined,
];
/** The format the sidecar asks the RM for (rm.format). */
const format = formatArg === 'xml' ? 'xml' : 'json';

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

/**
 * One HTTP request with node:http, which the sidecar loads anyway: the global fetch would load
 * undici and its WebAssembly parser into this process and count them in the sidecar's memory.
 */
function request(url: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; text: string }>((ok, fail) => {
    const req = httpRequest(url, { method: o.method ?? 'GET', headers: o.headers ?? {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => ok({ status: res.statusCode ?? 0, text }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(o.body);
  });
}

/**
 * Starts timing the longest stretch the event loop goes without turning (a request to the
 * sidecar waits that long): a 1 ms interval timer, its lateness beyond the 1 ms. The function
 * returned stops it and gives the longest, in ms.
 */
function longestBlock(): () => number {
  let last = performance.now();
  let longest = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 1);
    last = now;
  }, 1);
  return () => {
    clearInterval(tick);
    return Math.max(longest, performance.now() - last - 1, 0);
  };
}

/**
 * The floor under a cycle: the GET requests each timed cycle sent (as the stub recorded them),
 * sent again at once with node:http and each answer given to JSON.parse, nothing else. What any
 * Node client of the RM pays for the same reads on this machine; the median of 3 replays a cycle.
 */
async function floorTimes(rmUrl: string): Promise<number[]> {
  const reads = JSON.parse((await request(`${rmUrl}/bench/reads`)).text) as string[][];
  const headers = { accept: 'application/json' };
  const out: number[] = [];
  for (const urls of reads) {
    const times: number[] = [];
    for (let r = 0; r < 3; r++) {
      const s = process.hrtime.bigint();
      await Promise.all(
        (urls ?? []).map(async (u) => {
          const res = await request(`${rmUrl}${u}`, { headers });
          if (res.status !== 200) throw new Error(`floor: ${u} answered ${res.status}`);
          JSON.parse(res.text);
        }),
      );
      times.push(msSince(s));
    }
    out.push(times.sort((a, b) => a - b)[1]!);
  }
  return out;
}

/** With YSS_BENCH_MEMORY=1: the process's memory at each step, on stderr. */
function memory(step: string): void {
  if (!process.env.YSS_BENCH_MEMORY) return;
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const f = (x: number) => (x / MB).toFixed(0);
  console.error(
    `${step}: rss ${f(m.rss)} heap ${f(m.heapUsed)}/${f(m.heapTotal)} external ${f(m.external)} buffers ${f(m.arrayBuffers)} MB`,
  );
}

/**
 * With YSS_BENCH_HISTORY=N: the ledger of a sidecar that has run a while, written before it
 * starts with the tree's own ledger: N ended jobs (a tenth admitted and finished with an energy,
 * the rest rejected) and a full series of dashboard samples (720, as one value: the only form
 * an earlier tree knows, moved into slots at this tree's first sample, before the timed cycles).
 */
function fillHistory(path: string, n: number): void {
  if (n <= 0) return;
  interface Opener {
    open(path: string): {
      transaction(fn: () => void): void;
      insertJob(job: Record<string, unknown>): void;
      setValue(key: string, value: unknown): void;
      close(): void;
    };
  }
  // An earlier tree exports the SQLite ledger under the name Ledger too.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const built = require(join(root, 'dist/store/ledger')) as { SqliteLedger?: Opener; Ledger?: Opener };
  const opener = built.SqliteLedger ?? built.Ledger;
  if (opener === undefined) throw new Error(`${root}: dist/store/ledger.js exports no SqliteLedger`);
  const ledger = opener.open(path);
  const t0 = Date.now() - 86_400_000;
  ledger.transaction(() => {
    for (let i = 0; i < n; i++) {
      const admitted = i % 10 === 0;
      ledger.insertJob({
        id: `dl-h${i.toString(16).padStart(10, '0')}`,
        name: `history-${i}`,
        user: 'bench',
        submitter: 'bench',
        source: 'api',
        jobType: 'cpu',
        maps: 4,
        reduces: 1,
        inputBytes: 4 * 128 * MB,
        arrivalMs: t0 + i * 100,
        deadlineMs: t0 + i * 100 + 600_000,
        decision: admitted ? 'admitted' : 'rejected',
        reason: admitted ? null : { kind: 'new-job-misses', lateBySeconds: 30 },
        estimatedFinishMs: admitted ? t0 + i * 100 + 300_000 : null,
        earliestDeadlineMs: admitted ? null : t0 + i * 100 + 630_000,
        queue: 'default',
        label: admitted ? '' : null,
        priority: admitted ? 5 : null,
        appId: null,
        state: admitted ? 'finished' : 'rejected',
        outcome: admitted ? 'met' : null,
        finishedMs: admitted ? t0 + i * 100 + 290_000 : null,
        energyJoules: admitted ? 1.2e6 : null,
        spec: {
          name: `history-${i}`,
          user: 'bench',
          deadline: new Date(t0 + i * 100 + 600_000).toISOString(),
        },
      });
    }
    const at = (k: number) => new Date(Date.now() - (720 - k) * 5_000).toISOString();
    ledger.setValue(
      'stats',
      Array.from({ length: 720 }, (_, k) => ({
        at: at(k),
        accepted: k * 14,
        rejected: k * 125,
        met: k * 13,
        missed: k,
        failed: 0,
        killed: 0,
        acceptRatio: 0.1,
        successRatio: 0.93,
        utilizationByLabel: { '': 0.61, gpu: 0.4 },
        energyKWh: k * 4.7,
        energyKWhByLabel: { '': k * 4.7 },
      })),
    );
  });
  ledger.close();
}

async function main(): Promise<void> {
  const { buildConfig } = (await import(join(root, 'dist/config/load'))) as {
    buildConfig: (raw: unknown) => unknown;
  };
  // The process's wiring: src/service/start.ts, or src/loop/service.ts in a tree before it moved.
  const wiring = ['dist/service/start', 'dist/loop/service'].find((p) => existsSync(join(root, `${p}.js`)));
  if (wiring === undefined) throw new Error(`${root}: no dist/service/start.js nor dist/loop/service.js`);
  const { startSidecar } = (await import(join(root, wiring))) as {
    startSidecar: (config: unknown, o: unknown) => Promise<Running>;
  };
  const { silentLogger } = (await import(join(root, 'dist/log'))) as { silentLogger: () => unknown };
  const dir = mkdtempSync(join(tmpdir(), 'yss-poll-bench-'));
  const input = sidecarConfigInput({
    rmUrl,
    ledgerPath: join(dir, 'ledger.db'),
    timeoutMs: 60_000,
    maxWritesPerCycle: 10_000,
    format,
  });
  const capacityEvery = process.env.YSS_BENCH_CAPACITY_EVERY;
  const config = buildConfig(
    capacityEvery ? { ...input, loop: { capacityReadEvery: Number(capacityEvery) } } : input,
  );
  fillHistory(join(dir, 'ledger.db'), Number(process.env.YSS_BENCH_HISTORY ?? 0));
  const sc = await startSidecar(config, { logger: silentLogger(), manualPolling: true });
  try {
    memory('started');
    await sc.sidecar.runOnce();
    const n = Number(deadlineAppsArg);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) {
          const i = next++;
          const res = await request(`${sc.url}/api/v1/jobs`, {
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
          const body = JSON.parse(res.text) as { decision?: string };
          if (body.decision !== 'admitted') throw new Error(`job ${i}: ${JSON.stringify(body)}`);
        }
      }),
    );
    await sc.sidecar.runOnceSettled();
    await sc.sidecar.enforcer.drain();
    memory('deadline apps submitted');
    await request(`${rmUrl}/bench/fill`);
    // Two cycles to settle: the first reads the new apps (and sets priorities), the second is quiet.
    for (let i = 0; i < 2; i++) {
      await sc.sidecar.runOnce();
      memory(`settling cycle ${i}`);
    }
    const cycles: number[] = [];
    const blocks: number[] = [];
    const cpu: number[] = [];
    const profile = process.env.YSS_BENCH_PROFILE ? await startProfile() : undefined;
    for (let i = 0; i < Number(cyclesArg); i++) {
      await request(`${rmUrl}/bench/mark?cycle=${i}`);
      const block = longestBlock();
      const s = process.hrtime.bigint();
      const used = process.cpuUsage();
      await sc.sidecar.runOnce();
      cycles.push(msSince(s));
      const { user, system } = process.cpuUsage(used);
      cpu.push((user + system) / 1000);
      blocks.push(block());
      memory(`cycle ${i}`);
    }
    await request(`${rmUrl}/bench/mark?cycle=-1`);
    if (profile) writeFileSync(process.env.YSS_BENCH_PROFILE!, JSON.stringify(await profile()));
    // The sidecar's RSS is read before the floor's replays add theirs.
    const rssMb = process.memoryUsage().rss / MB;
    const peakMb = (process.resourceUsage().maxRSS * 1024) / MB;
    const floor = format === 'json' ? await floorTimes(rmUrl) : [];
    process.stdout.write(`${JSON.stringify({ cycles, blocks, cpu, floor, rssMb, peakMb })}\n`);
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
