/**
 * The replaying side of bench/replay.bench.ts, in a process of its own so that its peak memory
 * is the replay's alone: `node --require tsx/cjs bench/replay-child.ts RM_URL JHS_URL OUT`. It
 * runs `replay --since 8d` against the emulator (its RM's nodes, its JobHistory server's
 * synthetic history), writes every output but the PNG copies, and prints one JSON line: the
 * exit code, the wall time, and the process's peak RSS (VmHWM). `node ... RM JHS OUT CACHE`
 * keeps the history read in CACHE (and reads it from there when it holds it).
 */
import { readFileSync } from 'node:fs';
import { runReplayCli } from '../src/cli/replay';

const [rm, jhs, out, cache] = process.argv.slice(2) as [string, string, string, string | undefined];

function peakMb(): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
}

async function main(): Promise<void> {
  const started = Date.now();
  const lines: string[] = [];
  const code = await runReplayCli(
    {
      rm,
      jhs,
      since: '8d',
      deadline: ['slack=1.5x'],
      concurrency: 8,
      page: 1000,
      format: 'json',
      timeoutMs: 60_000,
      out,
      png: false,
      cache: cache ?? false,
      // YSS_BENCH_REPLAY_POLICIES=a,b: those policies alone (docs/replay.md: rtmr-no-feedback at 100,000 jobs).
      ...(process.env.YSS_BENCH_REPLAY_POLICIES ? { policies: process.env.YSS_BENCH_REPLAY_POLICIES } : {}),
    },
    { out: (t) => lines.push(t), err: (t) => lines.push(t), stream: process.stderr },
  );
  process.stderr.write(lines.join(''));
  process.stdout.write(`${JSON.stringify({ code, ms: Date.now() - started, peakMb: peakMb() })}\n`);
}

void main();
