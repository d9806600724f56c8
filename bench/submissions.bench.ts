/**
 * Submissions (`POST /api/v1/jobs`) at 1, 16 and 64 clients, recorded and dry-run, side by side
 * with an earlier commit (reported as measured, not asserted).
 *
 * Processes on loopback, as in load.bench.ts: per tree an emulated RM (this tree's) and the
 * sidecar (`start`, compiled, default configuration but for its addresses, token and ledger; log
 * level info, poll every 5 s), and this process, which drives autocannon. Both trees' sidecars
 * run at once and take the phases in order: recorded submissions at 1, 16 and 64 clients, then
 * dry runs at 1, 16 and 64; each phase is RUNS runs of PHASE_SECONDS per tree, the trees taking
 * turns run by run (which goes first alternating), so load from other work on the machine falls
 * on both alike. After each run the sidecar's resident memory (VmRSS) is read, and its CPU time
 * per answer (user and system over the run, its poll and enforcement included). Deadlines
 * spread from 1 min to 2 h, so some jobs are admitted (and submitted to the emulated RM in the
 * background) and the rest rejected. Every figure is the median over the RUNS runs.
 *
 * Environment: YSS_BENCH_BASE (as in load.bench.ts), YSS_BENCH_RUNS (default 3),
 * YSS_BENCH_PHASE_SECONDS (default 5), YSS_BENCH_CLIENTS (default "1,16,64"), YSS_BENCH_WARMUP_SECONDS
 * (default 4: each sidecar answers that long, unmeasured, before the first run; 0 for none),
 * YSS_BENCH_CPU_PROF (a folder: this tree's sidecar runs with --cpu-prof and writes its
 * profiles there), YSS_BENCH_LEDGERS=sqlite,postgres (this tree only, twice side by side: one
 * sidecar on its SQLite file, one on a private PostgreSQL server with fsync on, started from
 * Debian's postgresql as the tests do; recorded submissions only, dry runs touch no ledger),
 * YSS_BENCH_SYNC_US (every sidecar's disk syncs that many microseconds slower: bench/slow-sync.c).
 */
import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  answersOf,
  benchSubmission,
  cpuMsOf,
  int,
  memoryOf,
  startStack,
  type Answers,
  type Stack,
  type Tree,
  thisTree,
  withTrees,
} from './processes';
import { recordResult } from './results';
import { median, recordFigure, ROOT, TOKEN } from './support';
import { startTestPostgres } from '../test/support/postgres';

const SPEED = 60;
const RUNS = int('YSS_BENCH_RUNS', 3);
const PHASE_SECONDS = int('YSS_BENCH_PHASE_SECONDS', 5);
const CLIENTS = (process.env.YSS_BENCH_CLIENTS || '1,16,64').split(',').map((c) => {
  const n = Number(c);
  if (!Number.isInteger(n) || n < 1) throw new Error(`YSS_BENCH_CLIENTS: ${c} is not a client count`);
  return n;
});
const CPU_PROF = process.env.YSS_BENCH_CPU_PROF;
/**
 * Seconds of recorded submissions each sidecar answers, unmeasured, before the first measured run:
 * a sidecar just started runs its first seconds in the interpreter with a small heap, and its
 * first runs were the slowest of every series (e.g. 1,216 and 1,323/s against 1,605 to 2,057/s
 * for the later runs of the same trees), so the measured phases ran on cold code or warm code
 * depending on their order. 0 measures the cold process as before.
 */
const WARMUP_SECONDS = int('YSS_BENCH_WARMUP_SECONDS', 4, { zero: true });
const LEDGERS = process.env.YSS_BENCH_LEDGERS === 'sqlite,postgres';
if (process.env.YSS_BENCH_LEDGERS !== undefined && !LEDGERS)
  throw new Error(`YSS_BENCH_LEDGERS: only "sqlite,postgres" is known, not ${process.env.YSS_BENCH_LEDGERS}`);
const ALL_MODES = ['recorded', 'dry-run'] as const;
type Mode = (typeof ALL_MODES)[number];
const MODES: readonly Mode[] = LEDGERS ? ['recorded'] : ALL_MODES;

interface Phase extends Answers {
  rss: number;
  /** The sidecar's CPU time over the phase (its poll and enforcement included) per answer. */
  cpuMsPerAnswer: number;
}

const key = (mode: Mode, clients: number) => `${mode} ${clients}`;

function body(tag: string, i: number, dryRun: boolean): string {
  return benchSubmission(`sub-${tag}-${i}`, i, dryRun ? { dryRun: true } : {});
}

async function phase(
  url: string,
  tag: string,
  mode: Mode,
  clients: number,
  sidecar: number,
  seconds = PHASE_SECONDS,
): Promise<Phase> {
  let i = 0;
  let firstError: string | undefined;
  const cpuBefore = cpuMsOf(sidecar);
  const r = await autocannon({
    url,
    connections: clients,
    duration: seconds,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/jobs',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: body(tag, i++, mode === 'dry-run') }),
        onResponse: (status, text) => {
          if (status >= 300 && firstError === undefined) firstError = `${status} ${text.slice(0, 300)}`;
        },
      },
    ],
  });
  if (firstError !== undefined) console.log(`  ${mode} ${clients} clients: first error ${firstError}`);
  return {
    ...answersOf(r),
    rss: memoryOf(sidecar).rss,
    cpuMsPerAnswer: (cpuMsOf(sidecar) - cpuBefore) / Math.max(1, r.requests.total),
  };
}

/** A tree's emulated RM and sidecar; this tree's sidecar profiled when YSS_BENCH_CPU_PROF is set. */
function start(tree: Tree, emulatorRoot: string, dir: string): Promise<Stack> {
  let nodeArgs: string[] = [];
  if (CPU_PROF !== undefined && tree.root === ROOT && tree.ledgerUrl === undefined) {
    const profDir = resolve(CPU_PROF);
    mkdirSync(profDir, { recursive: true });
    nodeArgs = ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-name', 'sidecar.cpuprofile'];
  }
  return startStack(tree, emulatorRoot, dir, { speed: SPEED, nodeArgs });
}

/** Prints a tree's medians and records them; `base`, the base tree's runs, gives this tree's ratios. */
function report(tree: Tree, runs: Array<Map<string, Phase>>, base?: Array<Map<string, Phase>>): void {
  console.log(`${tree.label} (${tree.commit}):`);
  for (const mode of MODES) {
    for (const clients of CLIENTS) {
      const k = key(mode, clients);
      const m = (rs: Array<Map<string, Phase>>, f: (p: Phase) => number) =>
        median(rs.map((r) => f(r.get(k)!)));
      const [perSecond, p50, p99, max, bad, rss, cpu] = [
        m(runs, (p) => p.perSecond),
        m(runs, (p) => p.p50),
        m(runs, (p) => p.p99),
        m(runs, (p) => p.max),
        m(runs, (p) => p.bad),
        m(runs, (p) => p.rss),
        m(runs, (p) => p.cpuMsPerAnswer),
      ];
      const baseCpu = base ? m(base, (p) => p.cpuMsPerAnswer) : undefined;
      const vsBase = base
        ? ` (base ${m(base, (p) => p.perSecond).toFixed(0)}/s, p99 ${m(base, (p) => p.p99).toFixed(1)} ms, ` +
          `${baseCpu!.toFixed(3)} CPU ms/answer: ` +
          `${(perSecond / m(base, (p) => p.perSecond)).toFixed(2)}x answers/s, ` +
          `${(m(base, (p) => p.p99) / p99).toFixed(2)}x p99, ${(cpu / baseCpu!).toFixed(2)}x CPU per answer)`
        : '';
      console.log(
        `  ${mode}, ${clients} clients: ${perSecond.toFixed(0)} answers/s, p50 ${p50.toFixed(1)} ms, ` +
          `p99 ${p99.toFixed(1)} ms, max ${max.toFixed(0)} ms, ${bad.toFixed(0)} not 2xx, RSS ${rss.toFixed(0)} MB, ` +
          `${cpu.toFixed(3)} CPU ms/answer${vsBase}`,
      );
      const row = `submissions ${mode}, ${clients} clients (${tree.label} ${tree.commit})`;
      recordResult({
        name: `${row}: latency`,
        unit: 'ms',
        median: p50,
        p99,
        ratio: base ? m(base, (p) => p.p99) / p99 : null,
        rssMB: rss,
      });
      recordFigure(`${row}: throughput`, 'answers/s', perSecond, {
        ratio: base ? perSecond / m(base, (p) => p.perSecond) : null,
        rssMB: rss,
      });
      // The base's CPU per answer over this tree's (how many times less this one spends).
      recordFigure(`${row}: sidecar CPU per answer`, 'ms', cpu, {
        ratio: baseCpu === undefined ? null : baseCpu / cpu,
        rssMB: rss,
      });
    }
  }
}

/**
 * The two sidecars compared: this tree and a base commit (withTrees), or with YSS_BENCH_LEDGERS
 * this tree on SQLite and on a private PostgreSQL server, stopped and removed afterwards.
 */
async function withSides(
  body: (sides: { base: Tree; here: Tree; dir: string }) => Promise<void>,
): Promise<void> {
  if (!LEDGERS) return withTrees('yss-submissions-', body);
  const dir = mkdtempSync(join(tmpdir(), 'yss-submissions-'));
  const pg = await startTestPostgres({ durable: true });
  try {
    const tree = thisTree();
    const ledgerUrl = await pg.createDatabase();
    await body({
      base: { ...tree, label: 'sqlite' },
      here: { ...tree, label: 'postgres', commit: `${tree.commit}, ledger on PostgreSQL`, ledgerUrl },
      dir,
    });
  } finally {
    pg.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function bench(): Promise<void> {
  await withSides(async ({ base, here, dir }) => {
    console.log(
      `submissions at ${CLIENTS.join('/')} clients, ${PHASE_SECONDS} s each, on loopback, emulated RM at ` +
        `${SPEED}x behind; median of ${RUNS} runs per tree and phase, ${base.commit} and ${here.commit} ` +
        'running side by side, taking turns',
    );
    const results = new Map<Tree, Array<Map<string, Phase>>>([
      [base, []],
      [here, []],
    ]);
    const running = new Map<Tree, Stack>();
    const line0: string[] = [];
    try {
      for (const tree of [base, here]) running.set(tree, await start(tree, here.root, dir));
      for (const runs of results.values()) for (let r = 0; r < RUNS; r++) runs.push(new Map());
      if (WARMUP_SECONDS > 0) {
        const clients = Math.max(...CLIENTS);
        for (const tree of [base, here]) {
          const { url, pid } = running.get(tree)!;
          const w = await phase(url, `${tree.label}-warmup`, MODES[0]!, clients, pid, WARMUP_SECONDS);
          line0.push(`${tree.label} ${w.perSecond.toFixed(0)}/s p99 ${w.p99} ms`);
        }
        console.log(
          `  warm-up (${MODES[0]}, ${clients} clients, ${WARMUP_SECONDS} s, not counted): ${line0.join(', ')}`,
        );
      }
      for (const mode of MODES) {
        for (const clients of CLIENTS) {
          const line: string[] = [];
          for (let r = 0; r < RUNS; r++) {
            // Which tree goes first alternates run by run.
            for (const tree of r % 2 === 0 ? [base, here] : [here, base]) {
              const { url, pid } = running.get(tree)!;
              const p = await phase(url, `${tree.label}${r + 1}`, mode, clients, pid);
              results.get(tree)![r]!.set(key(mode, clients), p);
              line.push(`${tree.label} ${p.perSecond.toFixed(0)}/s p99 ${p.p99} ms`);
            }
          }
          console.log(`  ${mode}, ${clients} clients: ${line.join(', ')}`);
        }
      }
    } finally {
      for (const r of running.values()) await r.close();
    }
    for (const [tree, runs] of results) report(tree, runs, tree === here ? results.get(base) : undefined);
  });
}
