import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants as osConstants, userInfo } from 'node:os';
import { basename } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import type { TicketArgs } from '../loop/tickets';

/**
 * `yarn-sched-sidecar run`: admission before submission for a job's own client. It asks the
 * sidecar for a ticket (POST /api/v1/jobs without yarnSubmission); rejected, it prints the
 * reason and the earliest admissible deadline and runs nothing; admitted, it runs the command
 * with the ticket's queue, priority, label and tags where that client reads them, streams its
 * output, forwards SIGINT and SIGTERM, and exits with the command's code. A command that fails
 * before its app appeared gets its ticket cancelled. Exit codes: docs/cli.md.
 */

/** Exit codes of `run` besides the command's own (docs/cli.md). */
export const RUN_EXIT = {
  /** Bad arguments, or the sidecar refused the request as invalid (400). */
  usage: 2,
  /** The sidecar could not be reached or answered an error other than a rejection. */
  unavailable: 69,
  /** The deadline was rejected: nothing ran. */
  rejected: 75,
  /** The command could not be started (not found, not executable). */
  notStarted: 127,
} as const;

/** What a ticket answer carries (the API's Ticket, defined once in src/loop/tickets.ts). */
export type RunTicket = TicketArgs;

export interface RunOptions {
  sidecar: string;
  token: string;
  deadline: number | string;
  maps: number;
  reduces: number;
  inputBytes?: number;
  input?: string[];
  type?: string;
  workloadClass?: string;
  queue?: string;
  name?: string;
  user?: string;
  tags?: string[];
  /** How often the ticket is read while the command runs (ms). */
  watchMs?: number;
  /**
   * How often `run` tells the sidecar its command still runs (ms); by default a quarter of the
   * ticket's lifetime, between 1 s and 60 s.
   */
  heartbeatMs?: number;
}

export interface RunIo {
  err: (text: string) => void;
  /** Injected for tests; the global fetch otherwise. */
  fetch?: typeof fetch;
  /** Signals forwarded to the command (the process by default). */
  signals?: NodeJS.EventEmitter;
}

/**
 * A deadline as the API takes it: `90s`, `30m`, `1h`, `2d` or plain seconds become seconds
 * from now; anything else is passed on as an ISO-8601 time (the sidecar checks it).
 */
export function parseDeadline(text: string): number | string {
  const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(text.trim());
  if (!m) {
    if (/^\d{4}-\d{2}-\d{2}T/.test(text)) return text;
    throw new InvalidArgumentError('a duration (90s, 30m, 1h, 2d, or seconds) or an ISO-8601 time');
  }
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

/** Which client a command is, by its program's name and first word. */
export type ClientKind = 'mapreduce' | 'java' | 'spark' | 'other';

export function clientKind(command: readonly string[]): ClientKind {
  const program = basename(command[0] ?? '');
  if (/^(hadoop|yarn|mapred)$/.test(program) && command[1] === 'jar') return 'mapreduce';
  if (/^spark[0-9]*-submit$/.test(program)) return 'spark';
  if (program === 'java') return 'java';
  return 'other';
}

/** java's options that take the next word as their value. */
const JAVA_VALUE_OPTIONS = new Set(['-cp', '-classpath', '--class-path', '-p', '--module-path']);

/**
 * The command with the ticket's options where its client reads them:
 * - `hadoop jar JAR MAIN args` (also `yarn jar`, `mapred jar`): generic -D options right after
 *   the main class, where ToolRunner's GenericOptionsParser reads them;
 * - `java [options] MAIN args` (a MapReduce client on a class path): after the main class;
 *   `java -jar JAR args`: after the jar;
 * - `spark-submit`: options before the application jar, right after the program;
 * - anything else: unchanged; the ticket travels in YSS_TICKET_* environment variables.
 */
export function withTicket(command: readonly string[], t: RunTicket): string[] {
  const argv = [...command];
  const insertAt = (i: number, opts: readonly string[]) => [...argv.slice(0, i), ...opts, ...argv.slice(i)];
  switch (clientKind(argv)) {
    case 'mapreduce':
      return insertAt(Math.min(4, argv.length), t.mapreduce);
    case 'spark':
      return insertAt(1, t.spark);
    case 'java': {
      for (let i = 1; i < argv.length; i++) {
        const a = argv[i]!;
        if (a === '-jar') return insertAt(Math.min(i + 2, argv.length), t.mapreduce);
        if (JAVA_VALUE_OPTIONS.has(a)) {
          i++;
          continue;
        }
        if (!a.startsWith('-')) return insertAt(i + 1, t.mapreduce);
      }
      return argv;
    }
    default:
      return argv;
  }
}

/** NOT_LEADER answers followed to the leader they name, per call: twice at most, never in a loop. */
export const MAX_LEADER_HOPS = 2;

/** The leader a run was sent to by a NOT_LEADER answer: its later calls go there directly. */
const followed = new WeakMap<RunOptions, string>();

async function call(
  io: RunIo,
  o: RunOptions,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  // One key for the request wherever it goes: a leader that got it before answers the same.
  const key = `run-${randomBytes(12).toString('hex')}`;
  let base = followed.get(o) ?? o.sidecar.replace(/\/+$/, '');
  for (let hop = 0; ; hop++) {
    const answer = await callOnce(io, o, base, key, method, path, body);
    const error = answer.body.error as { code?: unknown; leader?: unknown } | undefined;
    const leader = typeof error?.leader === 'string' ? error.leader.replace(/\/+$/, '') : undefined;
    if (answer.status !== 503 || error?.code !== 'NOT_LEADER' || leader === undefined) return answer;
    if (hop >= MAX_LEADER_HOPS || leader === base) return answer;
    io.err(`run: ${base} is not the leader; asking ${leader}\n`);
    base = leader;
    followed.set(o, leader);
  }
}

async function callOnce(
  io: RunIo,
  o: RunOptions,
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await (io.fetch ?? fetch)(`${base}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${o.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': key }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text: text.slice(0, 500) };
  }
  return { status: res.status, body: parsed };
}

/** The submission `run` sends: the job as its options describe it, without yarnSubmission. */
export function runSubmission(o: RunOptions, command: readonly string[]): Record<string, unknown> {
  const name =
    o.name ??
    command
      .slice(0, 4)
      .map((w) => basename(w))
      .join(' ')
      .slice(0, 256);
  return {
    name: name || 'run',
    user: o.user ?? process.env.HADOOP_USER_NAME ?? userInfo().username,
    deadline: o.deadline,
    maps: o.maps,
    reduces: o.reduces,
    ...(o.inputBytes === undefined ? {} : { inputBytes: o.inputBytes }),
    ...(o.input === undefined || o.input.length === 0 ? {} : { inputPaths: o.input }),
    ...(o.type === undefined ? {} : { jobType: o.type }),
    ...(o.workloadClass === undefined ? {} : { workloadClass: o.workloadClass }),
    ...(o.queue === undefined ? {} : { queue: o.queue }),
    ...(o.tags === undefined || o.tags.length === 0 ? {} : { tags: o.tags }),
  };
}

/** Runs `command` under a ticket; answers the exit code (RUN_EXIT, or the command's own). */
export async function runWithTicket(o: RunOptions, command: readonly string[], io: RunIo): Promise<number> {
  if (command.length === 0) {
    io.err('run: no command given: put it after --, e.g. -- hadoop jar wc.jar wordcount /in /out\n');
    return RUN_EXIT.usage;
  }
  let answer: { status: number; body: Record<string, unknown> };
  try {
    answer = await call(io, o, 'POST', '/api/v1/jobs', runSubmission(o, command));
  } catch (err) {
    io.err(`run: cannot reach the sidecar at ${o.sidecar}: ${(err as Error).message}\n`);
    return RUN_EXIT.unavailable;
  }
  const body = answer.body;
  if (answer.status === 200 && body.decision === 'rejected') {
    const reason = (body.reason as { message?: string } | undefined)?.message ?? 'no reason given';
    io.err(`run: rejected (${String(body.id)}): ${reason}\n`);
    io.err(
      `run: earliest admissible deadline: ${body.earliestAdmissibleDeadline === null ? `none (${String(body.earliestAdmissibleDeadlineNote ?? 'no deadline would be admitted now')})` : String(body.earliestAdmissibleDeadline)}\n`,
    );
    io.err('run: nothing was run\n');
    return RUN_EXIT.rejected;
  }
  const ticket = body.ticket as RunTicket | undefined;
  if (answer.status !== 201 || ticket === undefined) {
    const error = body.error as { code?: string; message?: string } | undefined;
    io.err(
      `run: the sidecar answered ${answer.status}${error ? ` ${error.code}: ${error.message}` : ''}; nothing was run\n`,
    );
    return answer.status === 400 ? RUN_EXIT.usage : RUN_EXIT.unavailable;
  }
  io.err(
    `run: admitted as ${ticket.id}: queue ${ticket.queue}, priority ${ticket.priority}${ticket.labelExpression ? `, label ${ticket.labelExpression}` : ''}, estimated finish ${String(body.estimatedFinish)}, deadline ${String(body.deadline)}; the ticket waits for its app until ${ticket.expiresAt}\n`,
  );
  return runChild(o, command, ticket, io);
}

/** The ticket's status as the sidecar shows it now; undefined when it cannot be read. */
async function ticketStatus(o: RunOptions, io: RunIo, id: string): Promise<string | undefined> {
  try {
    const { status, body } = await call(io, o, 'GET', `/api/v1/jobs/${encodeURIComponent(id)}`);
    return status === 200 ? (body.ticket as { status?: string } | null)?.status : undefined;
  } catch {
    return undefined;
  }
}

async function cancel(o: RunOptions, io: RunIo, id: string, why: string): Promise<boolean> {
  try {
    const { status, body } = await call(io, o, 'DELETE', `/api/v1/jobs/${encodeURIComponent(id)}`);
    if (status === 200) io.err(`run: ${why}: ticket ${id} cancelled\n`);
    else
      io.err(
        `run: ${why}: ticket ${id} not cancelled: ${(body.error as { message?: string } | undefined)?.message ?? status}\n`,
      );
    return status === 200;
  } catch (err) {
    io.err(`run: ${why}: could not cancel ticket ${id}: ${(err as Error).message}\n`);
    return false;
  }
}

/**
 * Tells the sidecar the command runs, or has exited with its code (PUT /api/v1/jobs/{id}/client):
 * while it runs, every app carrying the ticket's tag is an app of the job, and the job is judged
 * on its last app once the command has exited. An exit is tried three times, a second apart.
 */
async function reportClient(
  o: RunOptions,
  io: RunIo,
  id: string,
  report: { state: 'running' } | { state: 'exited'; exitCode: number },
): Promise<void> {
  const tries = report.state === 'exited' ? 3 : 1;
  let why = '';
  for (let i = 0; i < tries; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 1000));
    try {
      const { status, body } = await call(
        io,
        o,
        'PUT',
        `/api/v1/jobs/${encodeURIComponent(id)}/client`,
        report,
      );
      if (status === 200) return;
      why = (body.error as { message?: string } | undefined)?.message ?? String(status);
      if (status === 409 || status === 404) break;
    } catch (err) {
      why = (err as Error).message;
    }
  }
  if (report.state === 'exited')
    io.err(
      `run: could not tell the sidecar the command exited (${why}); its job is judged once the ticket's lifetime has passed\n`,
    );
}

async function runChild(
  o: RunOptions,
  command: readonly string[],
  ticket: RunTicket,
  io: RunIo,
): Promise<number> {
  const argv = withTicket(command, ticket);
  const signals = io.signals ?? process;
  // Reported before the command starts: every app it runs under the ticket's tag is the job's.
  await reportClient(o, io, ticket.id, { state: 'running' });
  const lifetimeMs = Date.parse(ticket.expiresAt) - Date.now();
  const heartbeatMs = o.heartbeatMs ?? Math.min(60_000, Math.max(1000, lifetimeMs / 4));
  return new Promise<number>((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, ...ticket.env },
    });
    let bound = false;
    const watch = setInterval(() => {
      void ticketStatus(o, io, ticket.id).then((s) => {
        if (s === 'bound' && !bound) {
          bound = true;
          io.err(`run: ticket ${ticket.id} bound to its app\n`);
        }
      });
    }, o.watchMs ?? 2000);
    const heartbeat = setInterval(() => {
      void reportClient(o, io, ticket.id, { state: 'running' });
    }, heartbeatMs);
    const forward = (signal: NodeJS.Signals) => () => {
      child.kill(signal);
    };
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    signals.on('SIGINT', onInt);
    signals.on('SIGTERM', onTerm);
    const done = async (code: number, failed: boolean, why: string) => {
      clearInterval(watch);
      clearInterval(heartbeat);
      signals.off('SIGINT', onInt);
      signals.off('SIGTERM', onTerm);
      const cancelled =
        failed && !bound && (await ticketStatus(o, io, ticket.id)) !== 'bound'
          ? await cancel(o, io, ticket.id, why)
          : false;
      if (!cancelled)
        await reportClient(o, io, ticket.id, { state: 'exited', exitCode: Math.min(255, code) });
      resolve(code);
    };
    child.once('error', (err) => {
      io.err(`run: cannot start ${argv[0]}: ${err.message}\n`);
      void done(RUN_EXIT.notStarted, true, 'the command did not start');
    });
    child.once('exit', (code, signal) => {
      const exit =
        code ?? 128 + (signal ? ((osConstants.signals as Record<string, number>)[signal] ?? 1) : 1);
      void done(exit, exit !== 0, signal ? `the command stopped on ${signal}` : `the command exited ${exit}`);
    });
  });
}

const whole = (min: number) => (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) < min) throw new InvalidArgumentError(`a whole number from ${min}`);
  return Number(v);
};

export function runCommand(): Command {
  return new Command('run')
    .description(
      'ask the sidecar to admit a job by its deadline, then run its client (hadoop jar, spark-submit, ...) with the ticket; exit codes: docs/cli.md',
    )
    .usage('--deadline 1h --maps 40 --reduces 2 [options] -- hadoop jar wc.jar wordcount /in /out')
    .requiredOption(
      '--deadline <when>',
      'a duration from now (90s, 30m, 1h, 2d) or an ISO-8601 time',
      parseDeadline,
    )
    .requiredOption('--maps <n>', 'map tasks', whole(1))
    .requiredOption('--reduces <n>', 'reduce tasks', whole(0))
    .option('--input-bytes <n>', 'bytes of input', whole(0))
    .option('--input <path...>', 'HDFS input paths (their size is read from WebHDFS by the sidecar)')
    .option('--type <type>', 'cpu, gpu or adaptive')
    .option('--class <name>', 'the workload class whose estimates judge the job')
    .option('--queue <name>', 'the queue to be judged in (default: the real-time queue)')
    .option('--name <name>', 'the job name recorded (default: the command)')
    .option('--user <user>', 'the user recorded (default: $HADOOP_USER_NAME, else the login user)')
    .option('--tag <tag...>', 'tags of your own, added to the ticket')
    .option('--sidecar <url>', "the sidecar's API (default: $YSS_URL, else http://127.0.0.1:8080)")
    .option('--token <token>', 'a write token (default: $YSS_TOKEN)')
    .argument('<command...>', 'the command to run, after --')
    .action(async (command: string[], opts: Record<string, unknown>) => {
      const token = (opts.token as string | undefined) ?? process.env.YSS_TOKEN;
      if (!token) {
        process.stderr.write('run: a write token is needed: --token or YSS_TOKEN\n');
        process.exitCode = RUN_EXIT.usage;
        return;
      }
      if (opts.inputBytes === undefined && opts.input === undefined) {
        process.stderr.write('run: give --input-bytes N or --input PATH...\n');
        process.exitCode = RUN_EXIT.usage;
        return;
      }
      process.exitCode = await runWithTicket(
        {
          sidecar: (opts.sidecar as string | undefined) ?? process.env.YSS_URL ?? 'http://127.0.0.1:8080',
          token,
          deadline: opts.deadline as number | string,
          maps: opts.maps as number,
          reduces: opts.reduces as number,
          inputBytes: opts.inputBytes as number | undefined,
          input: opts.input as string[] | undefined,
          type: opts.type as string | undefined,
          workloadClass: opts.class as string | undefined,
          queue: opts.queue as string | undefined,
          name: opts.name as string | undefined,
          user: opts.user as string | undefined,
          tags: opts.tag as string[] | undefined,
        },
        command,
        { err: (t) => process.stderr.write(t) },
      );
    });
}
