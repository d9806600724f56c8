import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { stringify as toYaml } from 'yaml';
import type { SidecarConfig } from '../config/schema';
import { ValidationError } from '../errors/validation';
import { checkPolicies, type ReplayReport } from './replay';
import { windowOf } from './window';
import { durationSeconds, parseDeadlineRules } from './workload';

/**
 * Replays asked for through the API (POST /api/v1/replays, docs/replay.md): each runs the
 * `replay` command in a process of its own, so that the sidecar's event loop and memory are not
 * the replay's, with the RM and JobHistory server the sidecar reads and its admission settings
 * (estimates, profiles). Its progress is read from the command's lines; its report from the
 * replay.json it writes. The last few runs are kept, with their folders; older ones are removed.
 */

export interface ReplayRequestBody {
  readonly since?: string;
  readonly from?: string;
  readonly to?: string;
  /** Deadline = this times each job's real duration, for jobs without a tag or a named deadline. */
  readonly slack?: number;
  /** Job name (exact, or without its numbers) -> deadline, seconds or a duration such as 15m. */
  readonly deadlines?: Readonly<Record<string, number | string>>;
  readonly policies?: readonly string[];
  readonly maxJobs?: number;
  readonly taskCounters?: boolean;
}

export interface ReplayView {
  readonly id: string;
  readonly state: 'running' | 'done' | 'failed';
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly by: string;
  readonly request: ReplayRequestBody;
  /** The phase it is in and how far (reading, learning, then each policy's run). */
  readonly progress: { readonly phase: string; readonly percent: number } | null;
  readonly report: ReplayReport | null;
  /** Why it failed (the command's last words). */
  readonly error: string | null;
}

export interface ReplayRunnerOptions {
  readonly config: SidecarConfig;
  /** The command that runs the CLI (`node bin/yarn-sched-sidecar.js`); `replay ...` is added. */
  readonly command: readonly string[];
  /** Where each run's folder is made. */
  readonly root: string;
  /** Runs kept (the oldest finished one is removed past it). */
  readonly keep?: number;
  readonly now?: () => number;
}

interface Run {
  view: ReplayView;
  dir: string;
}

/** A request body's checks, as the command would make them: a ValidationError names each problem. */
export function checkReplayRequest(b: ReplayRequestBody, nowMs: number): void {
  windowOf(b, nowMs);
  if (b.slack !== undefined) parseDeadlineRules([`slack=${b.slack}x`]);
  const issues = Object.entries(b.deadlines ?? {})
    .filter(([, v]) => durationSeconds(v) === undefined)
    .map(([k, v]) => ({
      path: `deadlines.${k}`,
      message: `must be seconds > 0 or a duration such as 15m, got ${JSON.stringify(v)}`,
    }));
  if (issues.length > 0) throw new ValidationError(issues);
  if (b.policies) checkPolicies(b.policies);
}

export class ReplayRunner {
  private readonly runs = new Map<string, Run>();
  private readonly now: () => number;

  constructor(private readonly o: ReplayRunnerOptions) {
    this.now = o.now ?? Date.now;
  }

  list(): ReplayView[] {
    return [...this.runs.values()].map((r) => r.view).reverse();
  }

  get(id: string): ReplayView | undefined {
    return this.runs.get(id)?.view;
  }

  /** Starts a replay (the request checked first); answers its view, running. */
  start(body: ReplayRequestBody, by: string): ReplayView {
    checkReplayRequest(body, this.now());
    const id = `replay-${new Date(this.now()).toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomBytes(3).toString('hex')}`;
    const dir = join(this.o.root, id);
    mkdirSync(dir, { recursive: true });
    const args = this.argsOf(body, dir);
    const run: Run = {
      dir,
      view: {
        id,
        state: 'running',
        startedAt: new Date(this.now()).toISOString(),
        finishedAt: null,
        by,
        request: body,
        progress: null,
        report: null,
        error: null,
      },
    };
    this.runs.set(id, run);
    this.prune();
    const [cmd, ...pre] = this.o.command;
    this.watch(run, spawn(cmd!, [...pre, ...args], { stdio: ['ignore', 'ignore', 'pipe'] }));
    return run.view;
  }

  /**
   * The command's arguments: the sidecar's RM, JobHistory server and admission settings (written
   * to the run's folder, for the command to learn and judge as the sidecar does), the request's
   * window, rules and policies. The history cache is shared by the runs (ROOT/history-cache): a
   * second replay of the same days reads only the jobs it has not read yet.
   */
  private argsOf(body: ReplayRequestBody, dir: string): string[] {
    const { config } = this.o;
    writeFileSync(join(dir, 'config.yaml'), toYaml({ admission: config.admission, yarn: config.yarn }));
    const args = [
      'replay',
      '--config',
      join(dir, 'config.yaml'),
      '--rm',
      config.rm.addresses.join(','),
      '--jhs',
      config.rm.jobHistoryAddress,
      '--format',
      config.rm.format,
      '--out',
      join(dir, 'out'),
      '--cache',
      join(this.o.root, 'history-cache'),
      '--no-png',
      ...(config.rm.user ? ['--user', config.rm.user] : []),
      ...(body.since !== undefined ? ['--since', body.since] : []),
      ...(body.from !== undefined ? ['--from', body.from] : []),
      ...(body.to !== undefined ? ['--to', body.to] : []),
      ...(body.policies ? ['--policies', body.policies.join(',')] : []),
      ...(body.maxJobs !== undefined ? ['--max-jobs', String(body.maxJobs)] : []),
      ...(body.taskCounters ? ['--task-counters'] : []),
    ];
    if (body.deadlines && Object.keys(body.deadlines).length > 0) {
      writeFileSync(join(dir, 'deadlines.yaml'), toYaml(body.deadlines));
      args.push('--deadline', `file=${join(dir, 'deadlines.yaml')}`);
    }
    if (body.slack !== undefined) args.push('--deadline', `slack=${body.slack}x`);
    return args;
  }

  /** Follows the command: its progress from its lines, then its report or its last words. */
  private watch(run: Run, child: ChildProcessByStdio<null, null, Readable>): void {
    let tail = '';
    child.stderr.on('data', (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000);
      for (const line of d.toString().split('\n')) {
        const m = /^(.+): (\d+)%$/.exec(line.trim());
        if (m) run.view = { ...run.view, progress: { phase: m[1]!, percent: Number(m[2]) } };
      }
    });
    const end = (code: number | null, error?: Error) => {
      const finishedAt = new Date(this.now()).toISOString();
      let report: ReplayReport | null = null;
      if (code === 0) {
        try {
          report = JSON.parse(readFileSync(join(run.dir, 'out', 'replay.json'), 'utf8')) as ReplayReport;
        } catch (err) {
          error = err as Error;
        }
      }
      const lastWords = tail
        .trim()
        .split('\n')
        .filter((l) => !/: \d+%$/.test(l))
        .slice(-3)
        .join(' ');
      run.view = {
        ...run.view,
        state: report ? 'done' : 'failed',
        finishedAt,
        report,
        error: report ? null : (error?.message ?? (lastWords || `the replay command exited ${code}`)),
      };
    };
    child.on('error', (err) => end(null, err));
    child.on('close', (code) => end(code));
  }

  /** Keeps the newest `keep` runs: older finished ones go, with their folders. */
  private prune(): void {
    const keep = this.o.keep ?? 5;
    for (const [id, r] of this.runs) {
      if (this.runs.size <= keep) break;
      if (r.view.state === 'running') continue;
      rmSync(r.dir, { recursive: true, force: true });
      this.runs.delete(id);
    }
  }
}
