import { spawn } from 'node:child_process';
import { constants as osConstants, userInfo } from 'node:os';
import { basename } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { SPARK_DEFAULTS, type SparkShape } from '../core/spark';
import type { TicketArgs } from '../loop/tickets';
import { sidecarFetch, type SidecarFetch } from './sidecar-fetch';

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
  /** Left out with `input`: the sidecar derives the maps from the input's splits. */
  maps?: number;
  /** Required but for a Spark app (`spark`), which has executors instead. */
  reduces?: number;
  /** A Spark app's executors, read from its spark-submit command line (sparkShape). */
  spark?: SparkShape;
  inputBytes?: number;
  input?: string[];
  /** The job's split settings (-D mapreduce.input.fileinputformat.split.minsize/maxsize). */
  splitMinBytes?: number;
  splitMaxBytes?: number;
  type?: string;
  workloadClass?: string;
  /** The profile of past runs the job is judged by (default: derived from its name, user and queue). */
  profile?: string;
  queue?: string;
  name?: string;
  user?: string;
  tags?: string[];
  /** The client's main class is a ProgramDriver (true), or is not (false); guessed when unset. */
  driver?: boolean;
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
  /** Injected for tests (a global fetch will do); sidecarFetch (node:http) otherwise. */
  fetch?: SidecarFetch;
  /** Signals forwarded to the command (the process by default). */
  signals?: NodeJS.EventEmitter;
  /** Where the command's output goes (the process's own stdout and stderr by default). */
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

/** A YARN application id as clients print it (`Submitted application application_1700000000000_0001`). */
const APP_ID = /application_\d{1,20}_\d{1,12}/g;
/** App ids a run reports at most: a client that names more is reporting others' apps too. */
export const MAX_REPORTED_APPS = 16;

/**
 * The app ids a client's output names, each once, as its chunks arrive: an id at the very end of
 * a chunk may go on in the next, so it is kept until a character after it has come.
 */
export class AppIdScanner {
  private tail = '';
  private readonly seen = new Set<string>();

  /** The ids first named in `text`, which follows what was scanned before. */
  scan(text: string): string[] {
    const s = this.tail + text;
    const found: string[] = [];
    let kept = Math.max(0, s.length - 64);
    APP_ID.lastIndex = 0;
    for (let m = APP_ID.exec(s); m !== null; m = APP_ID.exec(s)) {
      const end = m.index + m[0].length;
      if (end === s.length) {
        kept = Math.min(kept, m.index);
        break;
      }
      if (!this.seen.has(m[0])) {
        this.seen.add(m[0]);
        found.push(m[0]);
      }
      kept = Math.max(kept, end);
    }
    this.tail = s.slice(kept);
    return found;
  }

  /** The ids at the very end of the output, once it has ended. */
  end(): string[] {
    return this.scan('\n');
  }
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
 * Hadoop's ProgramDriver main classes: they read a program name first (`ExampleDriver
 * wordcount in out`) and hand the rest to that program, so generic options go after the name.
 */
export const KNOWN_DRIVERS: ReadonlySet<string> = new Set([
  // hadoop-mapreduce-examples: wordcount, grep, pi, teragen, terasort, ...
  'org.apache.hadoop.examples.ExampleDriver',
  // hadoop-mapreduce-client-jobclient's tests jar: sleep, nnbench, mrbench, TestDFSIO, ...
  'org.apache.hadoop.test.MapredTestDriver',
]);

/** A Java class name with its package (`org.example.Main`): a dot, identifiers between. */
const CLASS_NAME = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$/;
/** A ProgramDriver's program name (`wordcount`, `sleep`, `TestDFSIO`): no dot, no slash. */
const PROGRAM_NAME = /^[A-Za-z][\w-]*$/;

/**
 * Where a MapReduce client's GenericOptionsParser reads generic options (-D ...): the index in
 * `command`, or undefined for a command that has none (spark-submit, anything else).
 * - `hadoop jar JAR MAIN args` (also `yarn jar`, `mapred jar`) with MAIN a class name: after
 *   MAIN; after the program name that follows MAIN when MAIN is a driver (KNOWN_DRIVERS, or
 *   `driver` true);
 * - `hadoop jar JAR NAME args` with NAME no class name: RunJar runs the jar manifest's
 *   Main-Class, and NAME is its first argument: a program name (no dot, no slash) is taken for
 *   a driver's, options after it; a path or anything else (or `driver` false) puts them right
 *   after the jar;
 * - `java [options] MAIN args`: as `hadoop jar` with MAIN; `java -jar JAR args`: as `hadoop jar
 *   JAR NAME args`.
 * `driver` (run --driver / --no-driver) overrides the guess.
 */
export function genericOptionsAt(command: readonly string[], driver?: boolean): number | undefined {
  const at = (i: number) => Math.min(i, command.length);
  const afterMain = (main: number) => at((driver ?? KNOWN_DRIVERS.has(command[main]!)) ? main + 2 : main + 1);
  const afterManifestMain = (first: number) => {
    const name = command[first];
    return at((driver ?? (name !== undefined && PROGRAM_NAME.test(name))) ? first + 1 : first);
  };
  switch (clientKind(command)) {
    case 'mapreduce': {
      const word = command[3];
      return word !== undefined && CLASS_NAME.test(word) ? afterMain(3) : afterManifestMain(3);
    }
    case 'java': {
      for (let i = 1; i < command.length; i++) {
        const a = command[i]!;
        if (a === '-jar') return afterManifestMain(i + 2);
        if (JAVA_VALUE_OPTIONS.has(a)) {
          i++;
          continue;
        }
        if (!a.startsWith('-')) return afterMain(i);
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The command with the ticket's options where its client reads them:
 * - a MapReduce client (`hadoop jar`, `yarn jar`, `mapred jar`, `java ... MAIN`, `java -jar`):
 *   generic -D options where ToolRunner's GenericOptionsParser reads them (genericOptionsAt:
 *   after the main class, or after a driver's program name);
 * - `spark-submit`: options before the application jar, right after the program;
 * - anything else: unchanged; the ticket travels in YSS_TICKET_* environment variables.
 */
export function withTicket(
  command: readonly string[],
  t: RunTicket,
  opts: { driver?: boolean } = {},
): string[] {
  const argv = [...command];
  const insertAt = (i: number, o: readonly string[]) => [...argv.slice(0, i), ...o, ...argv.slice(i)];
  if (clientKind(argv) === 'spark') return insertAt(1, t.spark);
  const i = genericOptionsAt(argv, opts.driver);
  return i === undefined ? argv : insertAt(i, t.mapreduce);
}

/** Generic options of GenericOptionsParser that take a value (besides -D). */
const GENERIC_VALUE_OPTIONS = new Set([
  '-conf',
  '-fs',
  '-jt',
  '-files',
  '-libjars',
  '-archives',
  '-tokenCacheFile',
]);

/** A -D option `run` cannot use, named as given. */
export class RunConfError extends Error {}

/**
 * The -D options of a MapReduce client's command line, as its GenericOptionsParser reads them:
 * from where generic options start (genericOptionsAt) up to the first word that is not a
 * generic option (`-D key=value`, `-Dkey=value`; -conf, -libjars, ... are skipped with their
 * value). A later -D of the same key wins, as in Hadoop's Configuration.
 */
export function hadoopConf(command: readonly string[], driver?: boolean): Map<string, string> {
  const conf = new Map<string, string>();
  const start = genericOptionsAt(command, driver);
  if (start === undefined) return conf;
  for (let i = start; i < command.length; i++) {
    const a = command[i]!;
    const pair = a === '-D' ? command[++i] : a.startsWith('-D') ? a.slice(2) : undefined;
    if (pair !== undefined) {
      const eq = pair.indexOf('=');
      if (eq > 0) conf.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      continue;
    }
    if (GENERIC_VALUE_OPTIONS.has(a)) {
      i++;
      continue;
    }
    break;
  }
  return conf;
}

/** What `run` reads of the client's -D options. */
export const CONF_KEYS = {
  maps: 'mapreduce.job.maps',
  reduces: 'mapreduce.job.reduces',
  splitMin: 'mapreduce.input.fileinputformat.split.minsize',
  splitMax: 'mapreduce.input.fileinputformat.split.maxsize',
} as const;

/** A whole number from `conf` (decimal, or hex with 0x as Hadoop's getLong reads it), or undefined. */
export function confNumber(conf: ReadonlyMap<string, string>, key: string, min: number): number | undefined {
  const v = conf.get(key);
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : /^0x[0-9a-f]+$/i.test(v) ? Number.parseInt(v.slice(2), 16) : NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    throw new RunConfError(`-D ${key}=${v} on the command: not a whole number from ${min}`);
  }
  return n;
}

/**
 * spark-submit's options that take a value (SparkSubmitOptionParser): every word up to the
 * application jar is an option, or the value of one of these.
 */
const SPARK_VALUE_OPTIONS = new Set([
  '--master',
  '--deploy-mode',
  '--class',
  '--name',
  '--jars',
  '--packages',
  '--exclude-packages',
  '--repositories',
  '--py-files',
  '--files',
  '--archives',
  '--conf',
  '-c',
  '--properties-file',
  '--driver-memory',
  '--driver-java-options',
  '--driver-library-path',
  '--driver-class-path',
  '--driver-cores',
  '--executor-memory',
  '--executor-cores',
  '--total-executor-cores',
  '--num-executors',
  '--queue',
  '--proxy-user',
  '--principal',
  '--keytab',
  '--kill',
  '--status',
]);

/**
 * The options of a spark-submit command line up to its application jar, as SparkSubmit reads
 * them: `--opt value` or `--opt=value`, each `--conf k=v` (or `-c`) into `conf`; a later one wins.
 * `jar` is the application jar's index (undefined when the line has none).
 */
export function sparkSubmitArgs(command: readonly string[]): {
  options: Map<string, string>;
  conf: Map<string, string>;
  jar: number | undefined;
} {
  const options = new Map<string, string>();
  const conf = new Map<string, string>();
  for (let i = 1; i < command.length; i++) {
    const a = command[i]!;
    if (!a.startsWith('-')) return { options, conf, jar: i };
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (!SPARK_VALUE_OPTIONS.has(name)) continue; // a flag: --verbose, --supervise, ...
    const value = eq > 0 ? a.slice(eq + 1) : command[++i];
    if (value === undefined) break;
    if (name === '--conf' || name === '-c') {
      const at = value.indexOf('=');
      if (at > 0) conf.set(value.slice(0, at).trim(), value.slice(at + 1).trim());
    } else {
      options.set(name, value);
    }
  }
  return { options, conf, jar: undefined };
}

/** Spark's memory sizes (512m, 2g, 1024: MB without a unit), in MB, as Utils.memoryStringToMb. */
export function sparkMemoryMb(text: string): number | undefined {
  const m = /^(\d+)\s*(b|k|kb|m|mb|g|gb|t|tb|p|pb)?$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = (m[2] ?? 'm').toLowerCase().replace(/b$/, '') || 'b';
  const mb = { b: 1 / 1024 / 1024, k: 1 / 1024, m: 1, g: 1024, t: 1024 ** 2, p: 1024 ** 3 }[unit];
  if (mb === undefined) return undefined;
  const v = Math.floor(Number(m[1]) * mb);
  return Number.isSafeInteger(v) ? v : undefined;
}

/** What `run` reads of a spark-submit command line. */
export const SPARK_KEYS = {
  instances: 'spark.executor.instances',
  cores: 'spark.executor.cores',
  memory: 'spark.executor.memory',
  overhead: 'spark.executor.memoryOverhead',
  dynamic: 'spark.dynamicAllocation.enabled',
  dynamicMax: 'spark.dynamicAllocation.maxExecutors',
} as const;

/**
 * A Spark app's executors from its spark-submit command line, as SparkSubmit settles them:
 * `--num-executors`, `--executor-cores` and `--executor-memory` over `--conf
 * spark.executor.instances`, `.cores` and `.memory`, else Spark on YARN's defaults (2
 * executors of 1 core and 1 GB); `spark.executor.memoryOverhead`; with
 * `spark.dynamicAllocation.enabled=true`, `spark.dynamicAllocation.maxExecutors` (required: Spark's
 * default has no bound) is planned. A properties file is not read. A message for the user when a
 * value cannot be read.
 */
export function sparkShape(command: readonly string[]): SparkShape | string {
  const { options, conf } = sparkSubmitArgs(command);
  const pick = (option: string, key: string): { value: string; from: string } | undefined => {
    const o = options.get(option);
    if (o !== undefined) return { value: o, from: option };
    const c = conf.get(key);
    return c === undefined ? undefined : { value: c, from: `--conf ${key}` };
  };
  const count = (option: string, key: string, min: number, dflt: number): number | string => {
    const v = pick(option, key);
    if (v === undefined) return dflt;
    if (!/^\d+$/.test(v.value) || Number(v.value) < min)
      return `${v.from}=${v.value} on the command: not a whole number from ${min}`;
    return Number(v.value);
  };
  const memory = (option: string, key: string, dflt?: number): number | string | undefined => {
    const v = pick(option, key);
    if (v === undefined) return dflt;
    const mb = sparkMemoryMb(v.value);
    return mb === undefined ? `${v.from}=${v.value} on the command: not a memory size (512m, 2g)` : mb;
  };
  const executors = count('--num-executors', SPARK_KEYS.instances, 0, SPARK_DEFAULTS.executors);
  const executorCores = count('--executor-cores', SPARK_KEYS.cores, 1, SPARK_DEFAULTS.executorCores);
  const executorMemoryMb = memory('--executor-memory', SPARK_KEYS.memory, SPARK_DEFAULTS.executorMemoryMb);
  const overhead = memory('', SPARK_KEYS.overhead);
  for (const v of [executors, executorCores, executorMemoryMb, overhead]) if (typeof v === 'string') return v;
  let dynamicMax: number | undefined;
  if ((conf.get(SPARK_KEYS.dynamic) ?? '').toLowerCase() === 'true') {
    if (!conf.has(SPARK_KEYS.dynamicMax))
      return `${SPARK_KEYS.dynamic}=true without ${SPARK_KEYS.dynamicMax}: Spark's default has no bound; give --conf ${SPARK_KEYS.dynamicMax}=N, the executors planned`;
    const max = count('', SPARK_KEYS.dynamicMax, 1, 0);
    if (typeof max === 'string') return max;
    dynamicMax = max;
  }
  const fixed = executors as number;
  if (dynamicMax === undefined && fixed < 1)
    return `${options.has('--num-executors') ? '--num-executors' : `--conf ${SPARK_KEYS.instances}`}=0 on the command: no executor would run`;
  return {
    executors: Math.max(1, fixed),
    executorCores: executorCores as number,
    executorMemoryMb: executorMemoryMb as number,
    ...(overhead === undefined ? {} : { executorMemoryOverheadMb: overhead as number }),
    ...(dynamicMax === undefined ? {} : { dynamicMax }),
  };
}

/** NOT_LEADER answers followed to the leader they name, per call: twice at most, never in a loop. */
export const MAX_LEADER_HOPS = 2;

/** The leader a run was sent to by a NOT_LEADER answer: its later calls go there directly. */
const followed = new WeakMap<RunOptions, string>();

/**
 * 24 random hex digits (96 bits) for an Idempotency-Key. A key needs to be unique among its
 * token's requests, not secret (a retry must send the same body to be answered the same), so
 * Math.random (seeded by V8 from the system's entropy) serves: node:crypto took 3 to 10 ms to
 * load, before the first request of every run.
 */
function requestKey(): string {
  let hex = '';
  for (let i = 0; i < 4; i++) {
    const bits = Math.floor(Math.random() * 0x1000000); // 24 of them
    hex += bits.toString(16).padStart(6, '0');
  }
  return hex;
}

async function call(
  io: RunIo,
  o: RunOptions,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  // One key for the request wherever it goes: a leader that got it before answers the same.
  const key = `run-${requestKey()}`;
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
  const res = await (io.fetch ?? sidecarFetch)(`${base}${path}`, {
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

/**
 * The job's name when `--name` is not given: what identifies the program among runs, so that
 * runs of one program share a profile (its arguments, paths and dates left out):
 * - a MapReduce client: the program a ProgramDriver runs (`wordcount`), else the main class's
 *   simple name (`org.example.DailyEtl`: `DailyEtl`), else the jar run by its manifest;
 * - spark-submit: its `--name`, else its main class's simple name (`--class`), else its
 *   application jar's name;
 * - anything else: its first four words, paths cut to their last part.
 */
export function commandName(command: readonly string[], driver?: boolean): string {
  if (clientKind(command) === 'spark') {
    const { options, conf, jar } = sparkSubmitArgs(command);
    const name = options.get('--name') ?? conf.get('spark.app.name');
    const main = options.get('--class');
    if (name) return name.slice(0, 256);
    if (main) return main.slice(main.lastIndexOf('.') + 1).slice(0, 256);
    if (jar !== undefined) return basename(command[jar]!).slice(0, 256);
  }
  const at = genericOptionsAt(command, driver);
  const word = at === undefined || at === 0 ? undefined : command[at - 1];
  if (word !== undefined && !word.startsWith('-')) {
    if (CLASS_NAME.test(word)) return word.slice(word.lastIndexOf('.') + 1);
    return basename(word).slice(0, 256);
  }
  return command
    .slice(0, 4)
    .map((w) => basename(w))
    .join(' ')
    .slice(0, 256);
}

/** The submission `run` sends: the job as its options describe it, without yarnSubmission. */
export function runSubmission(o: RunOptions, command: readonly string[]): Record<string, unknown> {
  const name = o.name ?? commandName(command, o.driver);
  const input = o.input !== undefined && o.input.length > 0;
  const derived = input && o.maps === undefined;
  return {
    name: name || 'run',
    user: o.user ?? process.env.HADOOP_USER_NAME ?? userInfo().username,
    deadline: o.deadline,
    ...(o.maps === undefined ? {} : { maps: o.maps }),
    ...(o.reduces === undefined ? {} : { reduces: o.reduces }),
    ...(o.spark === undefined ? {} : { spark: o.spark }),
    // A job without input (teragen, pi, sleep) reads nothing.
    ...(o.inputBytes === undefined ? (input ? {} : { inputBytes: 0 }) : { inputBytes: o.inputBytes }),
    ...(input ? { inputPaths: o.input } : {}),
    ...(derived && o.splitMinBytes !== undefined ? { splitMinBytes: o.splitMinBytes } : {}),
    ...(derived && o.splitMaxBytes !== undefined ? { splitMaxBytes: o.splitMaxBytes } : {}),
    ...(o.type === undefined ? {} : { jobType: o.type }),
    ...(o.workloadClass === undefined ? {} : { workloadClass: o.workloadClass }),
    ...(o.profile === undefined ? {} : { profile: o.profile }),
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
  if (body.mapsFrom === 'inputPaths') {
    io.err(
      `run: maps: ${String(body.maps)}, one per split of the input (read by the sidecar from WebHDFS)\n`,
    );
  } else if (
    o.maps !== undefined &&
    o.input !== undefined &&
    o.input.length > 0 &&
    body.decision !== undefined
  ) {
    io.err(`run: maps: ${o.maps} as given by --maps; the input's splits were not counted\n`);
  }
  if (answer.status === 200 && body.decision === 'rejected') {
    const reason = (body.reason as { message?: string } | undefined)?.message ?? 'no reason given';
    io.err(`run: rejected (${String(body.id)}): ${reason}\n`);
    io.err(
      `run: earliest admissible deadline: ${body.earliestAdmissibleDeadline === null ? `none (${String(body.earliestAdmissibleDeadlineNote ?? 'no deadline would be admitted now')})` : String(body.earliestAdmissibleDeadline)}\n`,
    );
    io.err('run: nothing was run\n');
    return RUN_EXIT.rejected;
  }
  const spark = body.spark as
    | {
        executors?: number;
        containersPerExecutor?: number;
        executorContainerMb?: number;
        executorsFrom?: string;
      }
    | undefined;
  if (spark !== undefined && body.decision !== undefined) {
    io.err(
      `run: spark: ${String(spark.executors)} executor(s) planned (${spark.executorsFrom === 'dynamicAllocation.maxExecutors' ? 'spark.dynamicAllocation.maxExecutors' : 'the executors asked for'}), ${String(spark.containersPerExecutor)} container(s) each (${String(spark.executorContainerMb)} MB with overhead), held for the app's life, beside the driver's AM container\n`,
    );
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
  report: { state: 'running'; appId?: string } | { state: 'exited'; exitCode: number },
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
  const argv = withTicket(command, ticket, o.driver === undefined ? {} : { driver: o.driver });
  const signals = io.signals ?? process;
  const lifetimeMs = Date.parse(ticket.expiresAt) - Date.now();
  const heartbeatMs = o.heartbeatMs ?? Math.min(60_000, Math.max(1000, lifetimeMs / 4));
  return new Promise<number>((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: ['inherit', 'pipe', 'pipe'],
      env: { ...process.env, ...ticket.env },
    });
    // Reported once the command is started, not before it: the first app carrying the ticket's
    // tag is bound with or without the report, which only makes later apps the job's, and the
    // command takes far longer to submit one than the report takes to arrive. Sent before any
    // of the command's output is read, so before any report of an app id.
    const reports: Array<Promise<void>> = [reportClient(o, io, ticket.id, { state: 'running' })];
    const appIds = new AppIdReports(o, io, ticket.id, reports);
    appIds.pass(child.stdout, io.stdout ?? process.stdout);
    appIds.pass(child.stderr, io.stderr ?? process.stderr);
    const watch = watchTicket(o, io, ticket.id, heartbeatMs);
    const forward = (signal: NodeJS.Signals) => () => {
      child.kill(signal);
    };
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    signals.on('SIGINT', onInt);
    signals.on('SIGTERM', onTerm);
    let finished = false;
    const done = async (code: number, failed: boolean, why: string) => {
      if (finished) return;
      finished = true;
      watch.stop();
      signals.off('SIGINT', onInt);
      signals.off('SIGTERM', onTerm);
      appIds.end();
      await Promise.all(reports);
      const cancelled =
        failed && !watch.bound() && (await ticketStatus(o, io, ticket.id)) !== 'bound'
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
      const why = signal ? `the command stopped on ${signal}` : `the command exited ${exit}`;
      // Its last output first: once its pipes close, or a second after its exit (a process it
      // left behind may hold them open).
      const grace = setTimeout(() => void done(exit, exit !== 0, why), 1000);
      child.once('close', () => {
        clearTimeout(grace);
        void done(exit, exit !== 0, why);
      });
    });
  });
}

/**
 * The command's output passed on as it comes, and each app id it names reported (at most
 * MAX_REPORTED_APPS): the sidecar binds the ticket to that app at once instead of at its next
 * poll. The reports are added to `reports`.
 */
class AppIdReports {
  private readonly reported = new Set<string>();
  /** One scanner a stream: an id cut at the end of a chunk goes on in the same stream's next. */
  private readonly scanners: AppIdScanner[] = [];

  constructor(
    private readonly o: RunOptions,
    private readonly io: RunIo,
    private readonly ticketId: string,
    private readonly reports: Array<Promise<void>>,
  ) {}

  /** Passes `from` on to `to`, reporting the app ids in it. */
  pass(from: NodeJS.ReadableStream | null, to: NodeJS.WritableStream): void {
    if (from === null) return;
    const scanner = new AppIdScanner();
    this.scanners.push(scanner);
    from.pipe(to, { end: false });
    from.on('data', (chunk: Buffer) => this.report(scanner.scan(chunk.toString('latin1'))));
  }

  /** Reports the ids still held by the scanners, once the output has ended. */
  end(): void {
    for (const scanner of this.scanners) this.report(scanner.end());
  }

  private report(ids: string[]): void {
    for (const appId of ids) {
      if (this.reported.has(appId) || this.reported.size >= MAX_REPORTED_APPS) continue;
      this.reported.add(appId);
      this.reports.push(reportClient(this.o, this.io, this.ticketId, { state: 'running', appId }));
    }
  }
}

/**
 * While the command runs: the ticket's status watched (its binding to an app said once), and a
 * heartbeat reported every `heartbeatMs`.
 */
function watchTicket(
  o: RunOptions,
  io: RunIo,
  ticketId: string,
  heartbeatMs: number,
): { bound(): boolean; stop(): void } {
  let bound = false;
  const watch = setInterval(() => {
    void ticketStatus(o, io, ticketId).then((s) => {
      if (s === 'bound' && !bound) {
        bound = true;
        io.err(`run: ticket ${ticketId} bound to its app\n`);
      }
    });
  }, o.watchMs ?? 2000);
  const heartbeat = setInterval(() => {
    void reportClient(o, io, ticketId, { state: 'running' });
  }, heartbeatMs);
  return {
    bound: () => bound,
    stop() {
      clearInterval(watch);
      clearInterval(heartbeat);
    },
  };
}

/**
 * The job's maps, reduces and split settings from run's options and the client's -D options
 * (hadoopConf): --maps, else with --input none (the sidecar derives them), else -D
 * mapreduce.job.maps; --reduces, else -D mapreduce.job.reduces; the split min and max sizes from
 * -D. A message for the user when they cannot be had.
 */
export function jobSize(
  opts: { maps?: unknown; reduces?: unknown; input?: unknown; driver?: unknown },
  command: readonly string[],
): Pick<RunOptions, 'maps' | 'reduces' | 'splitMinBytes' | 'splitMaxBytes'> | string {
  try {
    const conf = hadoopConf(command, opts.driver as boolean | undefined);
    const reduces = (opts.reduces as number | undefined) ?? confNumber(conf, CONF_KEYS.reduces, 0);
    const input = Array.isArray(opts.input) && opts.input.length > 0;
    const maps =
      (opts.maps as number | undefined) ?? (input ? undefined : confNumber(conf, CONF_KEYS.maps, 1));
    const splitMinBytes = confNumber(conf, CONF_KEYS.splitMin, 0);
    const splitMaxBytes = confNumber(conf, CONF_KEYS.splitMax, 0);
    if (reduces === undefined) return `give --reduces N, or -D ${CONF_KEYS.reduces}=N on the command`;
    if (maps === undefined && !input)
      return `give --input PATH... (the maps are then the input's splits), --maps N, or -D ${CONF_KEYS.maps}=N on the command`;
    return {
      reduces,
      ...(maps === undefined ? {} : { maps }),
      ...(splitMinBytes === undefined ? {} : { splitMinBytes }),
      ...(splitMaxBytes === undefined ? {} : { splitMaxBytes }),
    };
  } catch (err) {
    if (err instanceof RunConfError) return err.message;
    throw err;
  }
}

/**
 * A Spark app's size for `run`: its executors from the spark-submit command line (sparkShape);
 * `--maps` and `--reduces` do not describe one. A message for the user otherwise.
 */
export function sparkSize(
  opts: { maps?: unknown; reduces?: unknown },
  command: readonly string[],
): Pick<RunOptions, 'spark'> | string {
  if (opts.maps !== undefined || opts.reduces !== undefined)
    return 'a Spark app is counted by its executors, read from its spark-submit command line (--num-executors, --executor-cores, --executor-memory, --conf spark.dynamicAllocation.maxExecutors): leave out --maps and --reduces';
  const spark = sparkShape(command);
  return typeof spark === 'string' ? spark : { spark };
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
    .usage('--deadline 1h --input /in [options] -- hadoop jar wc.jar wordcount /in /out')
    .requiredOption(
      '--deadline <when>',
      'a duration from now (90s, 30m, 1h, 2d) or an ISO-8601 time',
      parseDeadline,
    )
    .option(
      '--maps <n>',
      'map tasks (default: with --input, one per split of the input; else -D mapreduce.job.maps on the command)',
      whole(1),
    )
    .option('--reduces <n>', 'reduce tasks (default: -D mapreduce.job.reduces on the command)', whole(0))
    .option(
      '--input-bytes <n>',
      'bytes of input (default: with --input, read from WebHDFS; else 0)',
      whole(0),
    )
    .option(
      '--input <path...>',
      'HDFS input paths: the sidecar reads their size, and their splits for the maps, from WebHDFS',
    )
    .option('--driver', "the client's main class is a ProgramDriver: options go after its program name")
    .option('--no-driver', "the client's main class is not a ProgramDriver: options go right after it")
    .option('--type <type>', 'cpu, gpu or adaptive')
    .option('--class <name>', 'the workload class whose estimates judge the job')
    .option('--queue <name>', 'the queue to be judged in (default: the real-time queue)')
    .option('--name <name>', "the job name recorded (default: the client's program, e.g. wordcount)")
    .option(
      '--profile <name>',
      'the profile of past runs the job is judged by (default: its name, user and queue)',
    )
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
      const size = clientKind(command) === 'spark' ? sparkSize(opts, command) : jobSize(opts, command);
      if (typeof size === 'string') {
        process.stderr.write(`run: ${size}\n`);
        process.exitCode = RUN_EXIT.usage;
        return;
      }
      process.exitCode = await runWithTicket(
        {
          sidecar: (opts.sidecar as string | undefined) ?? process.env.YSS_URL ?? 'http://127.0.0.1:8080',
          token,
          deadline: opts.deadline as number | string,
          ...size,
          driver: opts.driver as boolean | undefined,
          inputBytes: opts.inputBytes as number | undefined,
          input: opts.input as string[] | undefined,
          type: opts.type as string | undefined,
          workloadClass: opts.class as string | undefined,
          profile: opts.profile as string | undefined,
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
