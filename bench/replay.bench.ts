/**
 * `npm run bench -- replay`: `replay` of a week of synthetic history served by the emulated
 * JobHistory server (YSS_BENCH_REPLAY_JOBS jobs, default 100,000), in a process of its own
 * (bench/replay-child.ts) with the heap the command gives itself (DEFAULT_REPLAY_HEAP_MB): the
 * wall time of the whole command (reading the history page by page, learning as of each
 * arrival, FIFO and every admission policy in the simulator, the output files), each run's own
 * time, and its peak RSS. docs/replay.md reports the figures.
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
  try {
    const child = spawn(
      process.execPath,
      [
        `--max-old-space-size=${DEFAULT_REPLAY_HEAP_MB}`,
        '--require',
        'tsx/cjs',
        join(ROOT, 'bench', 'replay-child.ts'),
        emu.url,
        emu.jhsUrl,
        out,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`replay child exited ${code}: ${stderr.slice(-2000)}`);
    const r = JSON.parse(stdout.trim().split('\n').at(-1) as string) as {
      code: number;
      ms: number;
      peakMb: number;
    };
    const report = JSON.parse(readFileSync(join(out, 'replay.json'), 'utf8')) as {
      jobs: number;
      requests: number;
      fidelity: { medianAbsError: number; p90AbsError: number };
      wallMs: { learning: number; simulation: number; runs: Record<string, number> };
    };
    console.log(
      stderr
        .split('\n')
        .filter((l) => !/%$/.test(l))
        .join('\n'),
    );
    console.log(
      `replay of ${JOBS} synthetic jobs (${report.jobs} replayed, ${report.requests} requests): exit ${r.code}, ` +
        `${(r.ms / 1000).toFixed(1)} s (learning ${(report.wallMs.learning / 1000).toFixed(1)} s, simulation ` +
        `${(report.wallMs.simulation / 1000).toFixed(1)} s), peak RSS ${r.peakMb.toFixed(0)} MB; fidelity median ` +
        `${(report.fidelity.medianAbsError * 100).toFixed(1)} %, p90 ${(report.fidelity.p90AbsError * 100).toFixed(1)} %`,
    );
    console.log(
      `runs: ${Object.entries(report.wallMs.runs)
        .map(([label, ms]) => `${label} ${(ms / 1000).toFixed(1)} s`)
        .join(
          ', ',
        )}; reading and writing ${((r.ms - report.wallMs.learning - report.wallMs.simulation) / 1000).toFixed(1)} s`,
    );
    recordResult({
      name: `replay ${JOBS} jobs`,
      unit: 's',
      median: r.ms / 1000,
      p99: r.ms / 1000,
      rssMB: r.peakMb,
    });
  } finally {
    await emu.close();
    rmSync(out, { recursive: true, force: true });
  }
}
