import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { Command, InvalidArgumentError } from 'commander';
import { buildConfig, loadConfigFile } from '../config/load';
import type { SidecarConfig } from '../config/schema';
import { SidecarError } from '../errors/base';
import { ValidationError } from '../errors/validation';
import { replayFromCluster } from '../replay';
import { FileCells } from '../replay/cells';
import { FileHistoryCache } from '../replay/history-cache';
import { fidelityText, policyTable, writeReplay } from '../replay/output';
import { checkPolicies, type ReplayReport } from '../replay/replay';
import { parseDeadlineRules } from '../replay/workload';
import { windowOf } from '../replay/window';

export { windowOf };
import { parseClusterFile } from '../sim/formats/cluster-file';
import { HttpResourceManagerClient } from '../yarn/client';
import { JobHistoryClient } from '../yarn/jobhistory';
import { exitCodeOf, EXIT } from './exit-codes';
import { parseUrls } from './probe';

/**
 * `yarn-sched-sidecar replay`: what would have happened to the cluster's own jobs under every
 * admission policy (docs/replay.md). Reads a window of finished jobs from the JobHistory server
 * and the RM, the cluster's shape from the RM, and writes replay.json, jobs.csv, jobs.jsonl, the
 * SLS and Rumen traces and the plots to --out.
 */

export interface ReplayCliOptions {
  jhs?: string;
  rm?: string;
  since?: string;
  from?: string;
  to?: string;
  deadline: string[];
  policies?: string;
  config?: string;
  cluster?: string;
  containerMb?: number;
  heartbeat?: number;
  taskCounters?: boolean;
  concurrency: number;
  page: number;
  maxJobs?: number;
  format: 'json' | 'xml';
  user?: string;
  timeoutMs: number;
  out: string;
  png: boolean;
  /** The replay's JavaScript heap, MB (the command runs itself in a process of that heap). */
  heapMb?: number;
  /** The history cache's folder (default DIR/.history-cache of --out); false: none (--no-cache). */
  cache?: string | false;
}

/** The default heap of a replay: 100,000 jobs under every policy fit in it (docs/replay.md). */
export const DEFAULT_REPLAY_HEAP_MB = 768;

const int = (name: string, min: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min)
    throw new InvalidArgumentError(`${name} must be a whole number >= ${min}`);
  return n;
};
const positive = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a number > 0`);
  return n;
};

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/**
 * A progress bar on a terminal (the phase, its jobs done, the time since the start and the
 * process's memory); on anything else, a line per phase and quarter (the API reads those).
 */
export function progress(
  stream: Pick<NodeJS.WriteStream, 'write' | 'isTTY'>,
  now: () => number = Date.now,
  rssMb: () => number = () => process.memoryUsage.rss() / 1048576,
) {
  const tty = Boolean(stream.isTTY);
  const started = now();
  let last = '';
  let lastPhase = '';
  let drawn = 0;
  return (phase: string, done: number, total: number) => {
    if (tty) {
      const t = now();
      // At most ten redraws a second, and every phase's first and last.
      if (phase === lastPhase && done < total && t - drawn < 100) return;
      drawn = t;
      if (lastPhase && phase !== lastPhase) stream.write('\n');
      const width = 30;
      const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
      stream.write(
        `\r${phase.padEnd(18).slice(0, 18)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} jobs  ${clock(t - started)}  ${rssMb().toFixed(0)} MB `,
      );
    } else {
      const line = `${phase}: ${total > 0 ? Math.floor((done / total) * 4) * 25 : 0}%`;
      if (line !== last) stream.write(`${line}\n`);
      last = line;
    }
    lastPhase = phase;
  };
}

type ReplayIo = { out: (t: string) => void; err: (t: string) => void; stream: NodeJS.WriteStream };

/** Runs the replay the options ask for; answers the exit code. Problems are printed to `err`. */
export async function runReplayCli(o: ReplayCliOptions, io: ReplayIo, nowMs = Date.now()): Promise<number> {
  try {
    return await replayAndWrite(o, setupOf(o, nowMs), io);
  } catch (err) {
    return failed(err, io);
  }
}

/** What the options name, checked before anything is read. */
interface ReplaySetup {
  readonly config: SidecarConfig;
  readonly window: { fromMs: number; toMs: number };
  readonly rules: ReturnType<typeof parseDeadlineRules>;
  readonly policies: string[] | undefined;
  readonly cluster: ReturnType<typeof parseClusterFile> | undefined;
  readonly jhsUrls: string[];
  readonly jhs: JobHistoryClient;
  readonly rm: HttpResourceManagerClient;
  /** The history cache's folder, or null (--no-cache). */
  readonly cacheDir: string | null;
}

function setupOf(o: ReplayCliOptions, nowMs: number): ReplaySetup {
  const config: SidecarConfig = o.config ? loadConfigFile(o.config) : buildConfig({});
  const window = windowOf(o, nowMs);
  const rules = parseDeadlineRules(o.deadline);
  const policies = o.policies
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (policies) checkPolicies(policies);
  const cluster = o.cluster ? parseClusterFile(readFileSync(o.cluster, 'utf8'), o.cluster) : undefined;
  const transport = { format: o.format, user: o.user, timeoutMs: o.timeoutMs, maxAttempts: 3 };
  const jhsUrls = o.jhs ? parseUrls(o.jhs) : [config.rm.jobHistoryAddress];
  const jhs = JobHistoryClient.forHistoryServer({ ...transport, urls: jhsUrls, haDetection: false });
  const rm = new HttpResourceManagerClient({
    ...transport,
    urls: o.rm ? parseUrls(o.rm) : [...config.rm.addresses],
  });
  const cacheDir =
    o.cache === false ? null : typeof o.cache === 'string' ? o.cache : join(o.out, '.history-cache');
  return { config, window, rules, policies, cluster, jhsUrls, jhs, rm, cacheDir };
}

/** Reads, replays and writes; prints what was left out and the figures. */
async function replayAndWrite(o: ReplayCliOptions, s: ReplaySetup, io: ReplayIo): Promise<number> {
  // Each policy's per-job cells go to a file of their own as its run ends (src/replay/cells.ts).
  const cells = new FileCells(join(o.out, '.cells'));
  const cache =
    s.cacheDir === null
      ? undefined
      : new FileHistoryCache(s.cacheDir, s.jhsUrls.join(','), (t) => io.err(`${t}\n`));
  try {
    const { result, history } = await replayFromCluster({
      jhs: s.jhs,
      rm: s.rm,
      ...(s.cluster ? { cluster: s.cluster } : {}),
      ...(o.containerMb !== undefined ? { containerMb: o.containerMb } : {}),
      ...(o.heartbeat !== undefined ? { heartbeatSeconds: o.heartbeat } : {}),
      config: s.config,
      rules: s.rules,
      ...(s.policies ? { policies: s.policies } : {}),
      ...s.window,
      taskCounters: o.taskCounters ?? false,
      concurrency: o.concurrency,
      pageJobs: o.page,
      ...(o.maxJobs !== undefined ? { maxJobs: o.maxJobs } : {}),
      ...(cache ? { cache } : {}),
      cells,
      onProgress: progress(io.stream),
    });
    if (io.stream.isTTY) io.stream.write('\n');
    const files = await writeReplay(o.out, result, history.jobs, { png: o.png });
    if (cache)
      io.err(
        `history cache ${s.cacheDir}: ${cache.stats.hits} job(s) found there, ${cache.stats.stored} read and kept\n`,
      );
    printSummary(result.report, files.length, o.out, io);
    return EXIT.ok;
  } finally {
    cache?.close();
    cells.close();
  }
}

function printSummary(r: ReplayReport, files: number, out: string, io: ReplayIo): void {
  for (const l of r.leftOut)
    io.err(`left out: ${l.count} job(s), ${l.text} (e.g. ${l.examples.join(', ')})\n`);
  if (r.clockSkew.corrected)
    io.err(
      `clock skew: the RM's times are ${(r.clockSkew.medianMs / 1000).toFixed(1)} s off the JobHistory server's (median of ${r.clockSkew.jobs} jobs); moved onto the JobHistory server's clock\n`,
    );
  io.out(
    `replayed ${r.jobs} jobs (${Object.entries(r.bySource)
      .map(([k, v]) => `${v} from ${k === 'rm' ? 'the RM' : 'the JobHistory server'}`)
      .join(', ')}) of ${r.window.from} to ${r.window.to}\n` +
      `deadlines: ${Object.entries(r.deadlines)
        .filter(([, v]) => v > 0)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}\n${fidelityText(r)}\n${policyTable(r)}\n` +
      `wrote ${files} files to ${out}\n`,
  );
}

/** A failure as its message and exit code: bad input 2, the rest as the sidecar's errors say. */
function failed(err: unknown, io: ReplayIo): number {
  if (err instanceof ValidationError) {
    io.err(
      `invalid input, nothing replayed:\n${err.issues.map((i) => `  ${i.file ? `${i.file}: ` : ''}${i.path}: ${i.message}\n`).join('')}`,
    );
    return EXIT.usage;
  }
  if (err instanceof InvalidArgumentError) {
    io.err(`invalid input, nothing replayed: ${err.message}\n`);
    return EXIT.usage;
  }
  const what = err instanceof SidecarError ? `${err.code}: ${err.message}` : (err as Error).message;
  io.err(`replay failed: ${what.replace(/\s+/g, ' ')}\n`);
  return exitCodeOf(err);
}

export function replayCommand(): Command {
  return new Command('replay')
    .description(
      "What-if on the cluster's own history: replay its finished jobs under FIFO as they ran and under every admission policy (docs/replay.md)",
    )
    .option(
      '--jhs <url>',
      'the JobHistory server (default: rm.jobHistoryAddress of --config, else http://127.0.0.1:19888)',
    )
    .option(
      '--rm <url[,url]>',
      "the RM's addresses (default: rm.addresses of --config, else http://127.0.0.1:8088)",
    )
    .option('--since <duration>', 'jobs started in the last 7d, 12h, 90m ... (default 7d)')
    .option('--from <time>', 'jobs started from this time (ISO-8601 or epoch ms)')
    .option('--to <time>', '... until this time (default now)')
    .option(
      '--deadline <rule>',
      'for jobs without a deadline tag: slack=1.5x (1.5 times its real duration) or file=PATH (YAML: job name -> deadline); may be given twice (file, then slack)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option('--policies <list>', 'admission policies to compare (default: every registered one)')
    .option(
      '--config <file>',
      "the sidecar's configuration: its estimates and profile settings, and its RM and JobHistory addresses",
    )
    .option('--cluster <file>', "a cluster file (docs/simulator.md) in place of the RM's nodes")
    .option(
      '--container-mb <n>',
      "one container's memory (default: the RM's minimum allocation, else 1024)",
      int('--container-mb', 1),
    )
    .option(
      '--heartbeat <s>',
      "the NodeManagers' heartbeat in the model (default 1 s)",
      positive('--heartbeat'),
    )
    .option('--task-counters', "read each task's counters too (a request per task): each map's own bytes")
    .option('--concurrency <n>', 'jobs read at once', int('--concurrency', 1), 4)
    .option('--page <n>', 'jobs asked per listing; a window that fills it is split', int('--page', 1), 1000)
    .option('--max-jobs <n>', 'replay at most N jobs (the oldest)', int('--max-jobs', 1))
    .option(
      '--format <format>',
      'json or xml answers',
      (v: string) => {
        if (v !== 'json' && v !== 'xml') throw new InvalidArgumentError("must be 'json' or 'xml'");
        return v;
      },
      'json',
    )
    .option('--user <name>', 'user.name for clusters with simple authentication')
    .option('--timeout-ms <n>', 'per request', int('--timeout-ms', 1), 30_000)
    .option('--out <dir>', 'output folder', 'replay-out')
    .option(
      '--cache <dir>',
      "keep the jobs read from the JobHistory server there, for a second or resumed run (default: --out's .history-cache)",
    )
    .option('--no-cache', 'read every job from the JobHistory server, keep nothing')
    .option('--no-png', 'write the plots as Vega-Lite specs and SVGs only')
    .option(
      '--heap-mb <n>',
      `the replay's JavaScript heap, MB (default ${DEFAULT_REPLAY_HEAP_MB}: 100,000 jobs fit)`,
      int('--heap-mb', 64),
    )
    .action(replayAction);
}

/** The command's action: in a process of the heap asked for, the replay. */
async function replayAction(o: ReplayCliOptions): Promise<void> {
  const heapMb = o.heapMb ?? DEFAULT_REPLAY_HEAP_MB;
  if (process.env[HEAP_SET] === undefined && getHeapStatistics().heap_size_limit / 1048576 > heapMb * 1.25) {
    process.exitCode = await inBoundedHeap(heapMb);
    return;
  }
  process.exitCode = await runReplayCli(o, {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    stream: process.stderr,
  });
}

/** Set in the process the command runs itself in, with the heap it asked for. */
const HEAP_SET = 'YSS_REPLAY_HEAP_MB';

/**
 * Runs this same command again in a process whose heap is `heapMb` (`--max-old-space-size`; V8
 * sets it only at start): left to itself, V8 lets a heap of 400 MB of live data grow to several
 * GB of garbage before it collects. Its terminal is this one's; its exit code is answered, and
 * a heap too small for the history is said as such.
 */
function inBoundedHeap(heapMb: number): Promise<number> {
  const child = spawn(
    process.execPath,
    // First: after `-e CODE` an option would be taken as an argument.
    [`--max-old-space-size=${heapMb}`, ...process.execArgv, ...process.argv.slice(1)],
    { stdio: 'inherit', env: { ...process.env, [HEAP_SET]: String(heapMb) } },
  );
  return new Promise((resolve) => {
    child.on('error', (err) => {
      process.stderr.write(`replay failed: cannot start its process: ${err.message}\n`);
      resolve(EXIT.internal);
    });
    child.on('close', (code, signal) => {
      // V8 ends a process out of heap with SIGABRT (134), after its own fatal message.
      if (signal === 'SIGABRT' || code === 134) {
        process.stderr.write(
          `replay failed: the history does not fit in its heap of ${heapMb} MB: give more (--heap-mb), or fewer jobs (--max-jobs, a shorter window, --policies)\n`,
        );
        resolve(EXIT.internal);
      } else resolve(code ?? EXIT.internal);
    });
  });
}
