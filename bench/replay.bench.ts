/**
 * `npm run bench -- replay`: `replay` of a week of synthetic history served by the emulated
 * JobHistory server (YSS_BENCH_REPLAY_JOBS jobs, default 100,000), in a process of its own
 * (bench/replay-child.ts) with the heap the command gives itself (DEFAULT_REPLAY_HEAP_MB): the
 * wall time of the whole command (reading the history page by page, learning as of each
 * arrival, FIFO and every admission policy in the simulator, the output files), each run's own
 * time, and its peak RSS; twice: a first run that reads the history and keeps it in a cache,
 * then a second from that cache. YSS_BENCH_REPLAY_POLICIES=a,b replays those policies alone
 * (FIFO as it ran always runs). docs/replay.md reports the figures.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_REPLAY_HEAP_MB } from '../src/cli/replay';
import { startEmulator } from '../src/emulator/server';
import { DEFAULT_SYNTHETIC_HISTORY } from '../src/emulator/synthetic-history';
import { recordResult } from './results';
import { ROOT } from './support';

const JOBS = Number(process.env.YSS_BENCH_REPLAY_JOBS ?? 100_000);
const DAYS = 7;

interface ChildRun {
  readonly code: number;
  readonly ms: number;
  readonly peakMb: number;
  readonly stderr: string;
}

/** One `replay` in a process of its own, its history kept in (and read from) `cache`. */
async function replayOnce(rmUrl: string, jhsUrl: string, out: string, cache: string): Promise<ChildRun> {
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${DEFAULT_REPLAY_HEAP_MB}`,
      '--require',
      'tsx/cjs',
      join(ROOT, 'bench', 'replay-child.ts'),
      rmUrl,
      jhsUrl,
      out,
      cache,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`replay child exited ${code}: ${stderr.slice(-2000)}`);
  const r = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Omit<ChildRun, 'stderr'>;
  return { ...r, stderr };
}

/** What one run printed and measured, and its row. */
function say(label: string, run: ChildRun, out: string): void {
  const report = JSON.parse(readFileSync(join(out, 'replay.json'), 'utf8')) as {
    jobs: number;
    requests: number;
    fidelity: { medianAbsError: number; p90AbsError: number };
    wallMs: { learning: number; simulation: number; runs: Record<string, number> };
  };
  console.log(
    run.stderr
      .split('\n')
      .filter((l) => !/%$/.test(l))
      .join('\n'),
  );
  console.log(
    `replay of ${JOBS} synthetic jobs, ${label} (${report.jobs} replayed, ${report.requests} requests): exit ${run.code}, ` +
      `${(run.ms / 1000).toFixed(1)} s (learning ${(report.wallMs.learning / 1000).toFixed(1)} s, simulation ` +
      `${(report.wallMs.simulation / 1000).toFixed(1)} s), peak RSS ${run.peakMb.toFixed(0)} MB; fidelity median ` +
      `${(report.fidelity.medianAbsError * 100).toFixed(1)} %, p90 ${(report.fidelity.p90AbsError * 100).toFixed(1)} %`,
  );
  console.log(
    `runs: ${Object.entries(report.wallMs.runs)
      .map(([l, ms]) => `${l} ${(ms / 1000).toFixed(1)} s`)
      .join(
        ', ',
      )}; reading and writing ${((run.ms - report.wallMs.learning - report.wallMs.simulation) / 1000).toFixed(1)} s`,
  );
  recordResult({
    name: `replay ${JOBS} jobs, ${label}`,
    unit: 's',
    median: run.ms / 1000,
    p99: run.ms / 1000,
    rssMB: run.peakMb,
  });
}

export default async function bench(): Promise<void> {
  const now = Date.now();
  const emu = await startEmulator({
    history: {
      ...DEFAULT_SYNTHETIC_HISTORY,
      jobs: JOBS,
      startMs: now - DAYS * 86_400_000,
      meanGapSeconds: (DAYS * 86_400) / JOBS,
    },
  });
  const out = mkdtempSync(join(tmpdir(), 'yss-replay-bench-'));
  const cache = join(out, 'cache');
  try {
    // The first run reads the history from the JobHistory server and keeps it; the second
    // reads it from the cache (its listings alone from the server).
    say('first run', await replayOnce(emu.url, emu.jhsUrl, join(out, 'first'), cache), join(out, 'first'));
    say(
      'from the cache',
      await replayOnce(emu.url, emu.jhsUrl, join(out, 'second'), cache),
      join(out, 'second'),
    );
  } finally {
    await emu.close();
    rmSync(out, { recursive: true, force: true });
  }
}
