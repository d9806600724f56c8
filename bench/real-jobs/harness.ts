/**
 * Real jobs through the sidecar, measured (the instrument for the issue "real jobs break the
 * sidecar's promise"): against a running real cluster (hadoop/launch.ts's ready line) and a
 * running sidecar, it
 *   1. writes the inputs on HDFS (text by RandomTextWriter, TeraSort's rows by TeraGen),
 *   2. runs each kind alone, from the client's start to its last app's end (its lone duration),
 *   3. runs warm-ups of each kind through `yarn-sched-sidecar run` with loose deadlines,
 *   4. runs a sparse stream (each job when the previous one has ended) and a dense one (jobs
 *      4-8 s apart, overlapping), deadlines 0.6x to 4x each job's lone duration, from a seed,
 * and records per job the decision, the sidecar's estimate and what the RM says happened
 * (report.ts). Used by bench/real-jobs.bench.ts and test/hadoop/real-jobs.test.ts.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import type { HadoopInfo } from '../../hadoop/launch';
import { mulberry32, type Rng } from '../../src/sim/rng';
import {
  DEFAULT_SIZES,
  KINDS,
  ROOT,
  TERA_INPUT,
  TEXT_INPUT,
  parseKinds,
  randomTextWriter,
  teraGen,
  type InputFile,
  type KindName,
  type KindRun,
  type RealJobSizes,
} from './kinds';
import { countPastRuns, summarize, type AppRecord, type JobRecord, type Phase, type Summary } from './report';

const CLI_ENTRY = path.join(__dirname, '..', '..', 'test', 'e2e', 'support', 'entry.ts');
const REPO = path.join(__dirname, '..', '..');

export interface RealJobsPlan {
  kinds: KindName[];
  sizes: RealJobSizes;
  /** Warm-up runs of each kind through `run`, one after another. */
  warmups: number;
  /** Their deadline, as a multiple of the lone duration. */
  warmupDeadlineFactor: number;
  /**
   * Jobs of a dense stream run before the warm-ups, each under a profile of its own
   * (`run --profile first-SEQ-KIND`): judged with no history, as a cluster's first day is.
   */
  firstJobs: number;
  sparseJobs: number;
  denseJobs: number;
  /** Seconds between two dense submissions: uniform in [min, max]. */
  denseGapSeconds: [number, number];
  /** Stream deadlines as multiples of each job's lone duration: uniform in [min, max]. */
  deadlineFactors: [number, number];
  seed: number;
  /** A client still running after this long is killed (and recorded as an error). */
  jobTimeoutSeconds: number;
  /** Each kind is its own workload class (`run --class KIND`), learned on its own. */
  classPerKind: boolean;
}

export const DEFAULT_PLAN: RealJobsPlan = {
  kinds: ['wordcount', 'grep', 'terasort', 'pi', 'teragen', 'randomtextwriter'],
  sizes: DEFAULT_SIZES,
  warmups: 1,
  warmupDeadlineFactor: 10,
  firstJobs: 0,
  sparseJobs: 12,
  denseJobs: 12,
  denseGapSeconds: [4, 8],
  deadlineFactors: [0.6, 4],
  seed: 1,
  jobTimeoutSeconds: 900,
  classPerKind: true,
};

export interface RealJobsEnv {
  info: HadoopInfo;
  sidecarUrl: string;
  token: string;
  /** Which cluster it is (clusterKinds), for the result; overcommitted when not said. */
  nodes?: NodesKind;
  /** The sidecar's admission.nodeCores, for the result; unset when not said. */
  nodeCores?: number;
  log?: (message: string) => void;
}

export interface LoneRun {
  kind: KindName;
  seconds: number;
  apps: AppRecord[];
}

export interface RealJobsResult {
  plan: RealJobsPlan;
  cluster: {
    /** Overcommitted (the launcher's 16 vcores a node) or honest (as many vcores as cores). */
    kind: NodesKind;
    version: string;
    examplesVersion: string | null;
    nmVcores: number;
    nmMemoryMb: number;
    nodes: number;
    /** The sidecar's admission.nodeCores; null: it counted the advertised vcores. */
    sidecarNodeCores: number | null;
  };
  startedAt: string;
  seconds: number;
  /** The machine's 1-minute load average at the start, at each phase's end, and at the end. */
  load: Record<string, number>;
  lone: LoneRun[];
  jobs: JobRecord[];
  summaries: { first?: Summary; warmups: Summary; sparse: Summary; dense: Summary; streams: Summary };
}

// ------------------------------------------------------------------ the cluster's REST APIs

async function getJson(url: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, { headers: { Accept: 'application/json', ...headers } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

const asList = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);

/** The RM's apps carrying a tag, as the RM reports them (it matches tags in lower case). */
export async function appsTagged(info: HadoopInfo, tag: string): Promise<AppRecord[]> {
  const body = await getJson(
    `${info.rm}/ws/v1/cluster/apps?applicationTags=${encodeURIComponent(tag.toLowerCase())}&user.name=${encodeURIComponent(info.user)}`,
  );
  const apps = asList((body.apps as { app?: unknown } | null)?.app) as Array<Record<string, unknown>>;
  return apps
    .map((a) => ({
      id: String(a.id),
      state: String(a.state),
      finalStatus: String(a.finalStatus),
      startedTime: Number(a.startedTime),
      finishedTime: Number(a.finishedTime),
    }))
    .sort((a, b) => a.startedTime - b.startedTime);
}

/** The files of an HDFS folder (WebHDFS LISTSTATUS). */
export async function listInput(info: HadoopInfo, dir: string): Promise<InputFile[]> {
  const body = await getJson(`${info.webhdfs}/webhdfs/v1${dir}?op=LISTSTATUS&user.name=${info.user}`);
  const statuses = (body.FileStatuses as { FileStatus: Array<Record<string, unknown>> }).FileStatus;
  return statuses
    .filter((s) => s.type === 'FILE')
    .map((s) => ({ name: String(s.pathSuffix), length: Number(s.length), blockSize: Number(s.blockSize) }));
}

export async function deletePath(info: HadoopInfo, p: string): Promise<void> {
  const res = await fetch(`${info.webhdfs}/webhdfs/v1${p}?op=DELETE&recursive=true&user.name=${info.user}`, {
    method: 'DELETE',
  });
  await res.text();
  if (res.status !== 200) throw new Error(`WebHDFS DELETE ${p}: ${res.status}`);
}

// ------------------------------------------------------------------ processes

interface Exit {
  code: number | null;
  output: string;
  startMs: number;
  endMs: number;
}

function runCommand(
  command: string,
  args: string[],
  timeoutMs: number,
  env?: NodeJS.ProcessEnv,
): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const startMs = Date.now();
    const child = spawn(command, args, {
      cwd: REPO,
      env: env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (b: Buffer) => {
      output += b.toString();
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code: timedOut ? null : code,
        output: timedOut ? `${output}\n(killed after ${timeoutMs} ms)` : output,
        startMs,
        endMs: Date.now(),
      });
    });
  });
}

function javaClient(info: HadoopInfo, run: KindRun, extra: string[] = []): string[] {
  return [
    'java',
    '-Xmx256m',
    ...info.javaOpts,
    '-cp',
    info.clientClasspath,
    run.mainClass,
    ...extra,
    ...run.args,
  ];
}

/**
 * A client run alone (not through the sidecar), tagged so its apps can be found: in the
 * `realtime` queue unless told, with more tags when given (test/hadoop/replay.test.ts).
 */
export async function runAlone(
  info: HadoopInfo,
  label: string,
  run: KindRun,
  timeoutMs: number,
  o: { queue?: string; tags?: readonly string[] } = {},
): Promise<LoneRun & { tag: string }> {
  const tag = `real-jobs-alone-${label}-${Date.now().toString(36)}`;
  const [cmd, ...args] = javaClient(info, run, [
    `-Dmapreduce.job.tags=${[tag, ...(o.tags ?? [])].join(',')}`,
    `-Dmapreduce.job.queuename=${o.queue ?? 'realtime'}`,
  ]);
  const exit = await runCommand(cmd!, args, timeoutMs);
  if (exit.code !== 0) throw new Error(`${label} alone exited ${exit.code}:\n${exit.output.slice(-3000)}`);
  const apps = await appsTagged(info, tag);
  if (apps.length !== run.apps || apps.some((a) => a.finalStatus !== 'SUCCEEDED'))
    throw new Error(`${label} alone: apps ${JSON.stringify(apps)}, expected ${run.apps} SUCCEEDED`);
  const end = Math.max(...apps.map((a) => a.finishedTime));
  return { kind: label as KindName, seconds: (end - exit.startMs) / 1000, apps, tag };
}

// ------------------------------------------------------------------ one job through `run`

interface SidecarJob {
  arrival: string;
  deadline: string;
  estimatedFinish: string | null;
  outcome: string | null;
  state: string;
  reason: { message?: string } | null;
  decisions?: Array<{ decision: string; detail: unknown }>;
  [key: string]: unknown;
}

async function sidecarJob(env: RealJobsEnv, id: string): Promise<SidecarJob> {
  return (await getJson(`${env.sidecarUrl}/api/v1/jobs/${encodeURIComponent(id)}`, {
    authorization: `Bearer ${env.token}`,
  })) as SidecarJob;
}

/** The admission decision's detail, if the job was admitted. */
function admissionDetail(job: SidecarJob): Record<string, unknown> | undefined {
  const d = (job.decisions ?? []).find((x) => x.decision === 'admitted');
  return d !== undefined && d.detail !== null && typeof d.detail === 'object'
    ? (d.detail as Record<string, unknown>)
    : undefined;
}

/** What the answer or the admission decision says its estimate came from, if it says so. */
function estimateFrom(job: SidecarJob): unknown {
  for (const key of ['estimateFrom', 'estimateSource', 'estimatesFrom'])
    if (job[key] !== undefined) return job[key];
  for (const d of job.decisions ?? []) {
    const detail = d.detail as Record<string, unknown> | null;
    if (detail === null || typeof detail !== 'object') continue;
    for (const key of ['estimateFrom', 'estimateSource', 'estimatesFrom', 'estimates'])
      if (detail[key] !== undefined) return detail[key];
  }
  return null;
}

export interface JobSpec {
  phase: Phase;
  seq: number;
  kind: KindName;
  deadlineFactor: number;
}

async function runThroughSidecar(
  env: RealJobsEnv,
  plan: RealJobsPlan,
  spec: JobSpec,
  lone: number,
  inputs: Record<'text' | 'tera', InputFile[]>,
): Promise<JobRecord> {
  const kind = KINDS[spec.kind];
  const name = `real-jobs-${spec.phase}-${spec.seq}-${spec.kind}`;
  const out = `${ROOT}/out/${name}-${Date.now().toString(36)}`;
  const run = kind.run(plan.sizes, out, kind.reads === null ? [] : inputs[kind.reads]);
  const deadlineSeconds = Math.max(1, Math.round(spec.deadlineFactor * lone));
  const runArgs = [
    'run',
    '--deadline',
    String(deadlineSeconds),
    '--maps',
    String(run.maps),
    '--reduces',
    String(run.reduces),
    ...('path' in run.input ? ['--input', run.input.path] : ['--input-bytes', String(run.input.bytes)]),
    ...(plan.classPerKind ? ['--class', spec.kind] : []),
    // The first-run stream: a profile of its own per job, so none is judged on history.
    ...(spec.phase === 'first' ? ['--profile', `first-${spec.seq}-${spec.kind}`] : []),
    // No --name: `run` names the job after its program (wordcount, pi, ...), so that every run of
    // a kind, warm-up or stream, is learned into and judged by one profile.
    '--sidecar',
    env.sidecarUrl,
    '--token',
    env.token,
    '--',
    ...javaClient(env.info, run),
  ];
  const childEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('YSS_')));
  const exit = await runCommand(
    process.execPath,
    ['--require', 'tsx/cjs', CLI_ENTRY, ...runArgs],
    plan.jobTimeoutSeconds * 1000,
    childEnv,
  );
  const record: JobRecord = {
    phase: spec.phase,
    seq: spec.seq,
    kind: spec.kind,
    name,
    id: null,
    deadlineSeconds,
    deadlineFactor: deadlineSeconds / lone,
    loneSeconds: lone,
    decision: 'error',
    error: null,
    reason: null,
    arrivalMs: null,
    estimatedSeconds: null,
    expectedSeconds: null,
    estimateFrom: null,
    exitCode: exit.code,
    apps: [],
    succeeded: null,
    actualSeconds: null,
    finishedMs: null,
    met: null,
    sidecarOutcome: null,
    feasibleAlone: lone <= deadlineSeconds,
    pastRuns: 0,
  };
  const admitted = /run: admitted as (\S+?):/.exec(exit.output)?.[1];
  const rejected = /run: rejected \(([^)]+)\)/.exec(exit.output)?.[1];
  record.id = admitted ?? rejected ?? null;
  if (record.id === null) {
    record.error = `run exited ${exit.code} without a decision: ${lastLines(exit.output)}`;
    return record;
  }
  const job = await sidecarJob(env, record.id);
  record.arrivalMs = Date.parse(job.arrival);
  const deadlineMs = Date.parse(job.deadline);
  record.estimatedSeconds =
    job.estimatedFinish === null ? null : (Date.parse(job.estimatedFinish) - record.arrivalMs) / 1000;
  record.estimateFrom = estimateFrom(job);
  const expected = admissionDetail(job)?.expectedFinish;
  record.expectedSeconds =
    typeof expected === 'string' ? (Date.parse(expected) - record.arrivalMs) / 1000 : null;
  if (rejected !== undefined) {
    record.decision = 'rejected';
    record.reason = job.reason?.message ?? null;
    if (exit.code !== 75) record.error = `rejected, but run exited ${exit.code}`;
    return record;
  }
  record.decision = 'admitted';
  record.apps = await appsTagged(env.info, `sidecar-id:${record.id}`);
  record.succeeded =
    exit.code === 0 &&
    record.apps.length === run.apps &&
    record.apps.every((a) => a.state === 'FINISHED' && a.finalStatus === 'SUCCEEDED');
  if (!record.succeeded)
    record.error = `run exited ${exit.code}, apps ${appsText(record.apps)}: ${lastLines(exit.output)}`;
  if (record.apps.length > 0 && record.apps.every((a) => a.finishedTime > 0)) {
    record.finishedMs = Math.max(...record.apps.map((a) => a.finishedTime));
    record.actualSeconds = (record.finishedMs - record.arrivalMs) / 1000;
    record.met = record.finishedMs <= deadlineMs;
  }
  // The sidecar records the end at its next poll of the RM (every second here).
  for (let i = 0; i < 20 && record.sidecarOutcome === null; i++) {
    const j = await sidecarJob(env, record.id);
    if (j.state === 'finished' || j.outcome !== null) record.sidecarOutcome = j.outcome ?? j.state;
    else await sleep(500);
  }
  if (spec.kind !== 'pi') await deletePath(env.info, out).catch(() => undefined);
  return record;
}

const appsText = (apps: AppRecord[]) =>
  apps.map((a) => `${a.id} ${a.state}/${a.finalStatus}`).join(', ') || 'none';
const lastLines = (text: string) => text.trim().split('\n').slice(-6).join(' / ').slice(-800);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ streams

/**
 * A stream's jobs from the seed: kinds in shuffled rounds (every kind once before any twice),
 * deadline factors uniform in plan.deadlineFactors, and (dense) submission offsets in seconds.
 */
export function streamSpecs(
  plan: RealJobsPlan,
  phase: 'first' | 'sparse' | 'dense',
  count: number,
): Array<JobSpec & { offsetSeconds: number }> {
  const spaced = phase !== 'sparse';
  const rng: Rng = mulberry32(plan.seed).fork(`real-jobs-${phase}`);
  const out: Array<JobSpec & { offsetSeconds: number }> = [];
  let round: KindName[] = [];
  let offset = 0;
  for (let seq = 1; seq <= count; seq++) {
    if (round.length === 0) round = rng.shuffle(plan.kinds);
    const kind = round.shift()!;
    const factor = rng.uniform(plan.deadlineFactors[0], plan.deadlineFactors[1]);
    if (seq > 1 && spaced) offset += rng.uniform(plan.denseGapSeconds[0], plan.denseGapSeconds[1]);
    out.push({ phase, seq, kind, deadlineFactor: factor, offsetSeconds: spaced ? offset : 0 });
  }
  return out;
}

export async function measureRealJobs(env: RealJobsEnv, plan: RealJobsPlan): Promise<RealJobsResult> {
  const log = env.log ?? (() => {});
  const t0 = Date.now();
  const load: Record<string, number> = { start: loadavg()[0]! };
  const timeoutMs = plan.jobTimeoutSeconds * 1000;

  // 1. Inputs.
  await deletePath(env.info, ROOT);
  const needs = new Set(plan.kinds.map((k) => KINDS[k].reads));
  const inputs: Record<'text' | 'tera', InputFile[]> = { text: [], tera: [] };
  if (needs.has('text')) {
    const r = await runAlone(
      env.info,
      'input-text',
      randomTextWriter(plan.sizes.textBytes, plan.sizes.textFiles, TEXT_INPUT),
      timeoutMs,
    );
    inputs.text = await listInput(env.info, TEXT_INPUT);
    log(
      `text input: ${inputs.text.length} files, ${sum(inputs.text.map((f) => f.length))} bytes, block ${inputs.text[0]?.blockSize} (${r.seconds.toFixed(1)} s)`,
    );
  }
  if (needs.has('tera')) {
    const r = await runAlone(
      env.info,
      'input-tera',
      teraGen(plan.sizes.teraRows, plan.sizes.teraFiles, TERA_INPUT),
      timeoutMs,
    );
    inputs.tera = await listInput(env.info, TERA_INPUT);
    log(
      `tera input: ${inputs.tera.length} files, ${sum(inputs.tera.map((f) => f.length))} bytes (${r.seconds.toFixed(1)} s)`,
    );
  }
  load.inputs = loadavg()[0]!;

  // 2. Each kind alone.
  const lone: LoneRun[] = [];
  for (const k of plan.kinds) {
    const kind = KINDS[k];
    const out = `${ROOT}/out/alone-${k}`;
    const r = await runAlone(
      env.info,
      k,
      kind.run(plan.sizes, out, kind.reads === null ? [] : inputs[kind.reads]),
      timeoutMs,
    );
    lone.push({ kind: k, seconds: r.seconds, apps: r.apps });
    log(`${k} alone: ${r.seconds.toFixed(1)} s (${r.apps.length} app${r.apps.length > 1 ? 's' : ''})`);
    if (k !== 'pi') await deletePath(env.info, out);
  }
  load.lone = loadavg()[0]!;
  const loneOf = (k: KindName) => lone.find((l) => l.kind === k)!.seconds;

  const jobs: JobRecord[] = [];
  // 3a. First runs (none judged on history), submitted at their offsets, overlapping.
  if (plan.firstJobs > 0) {
    jobs.push(...(await spacedStream(env, plan, 'first', plan.firstJobs, loneOf, inputs, log)));
    load.first = loadavg()[0]!;
  }

  // 3b. Warm-ups, one at a time, loose deadlines.
  let seq = 0;
  for (let w = 0; w < plan.warmups; w++) {
    for (const k of plan.kinds) {
      const spec: JobSpec = {
        phase: 'warm-up',
        seq: ++seq,
        kind: k,
        deadlineFactor: plan.warmupDeadlineFactor,
      };
      const r = await runThroughSidecar(env, plan, spec, loneOf(k), inputs);
      jobs.push(r);
      log(line(r));
    }
  }
  load.warmups = loadavg()[0]!;

  // 4a. Sparse: each job once the previous one has ended (at once when it was rejected).
  for (const spec of streamSpecs(plan, 'sparse', plan.sparseJobs)) {
    const r = await runThroughSidecar(env, plan, spec, loneOf(spec.kind), inputs);
    jobs.push(r);
    log(line(r));
  }
  load.sparse = loadavg()[0]!;

  // 4b. Dense: submitted at their offsets, overlapping.
  jobs.push(...(await spacedStream(env, plan, 'dense', plan.denseJobs, loneOf, inputs, log)));
  load.dense = loadavg()[0]!;

  countPastRuns(jobs);
  const of = (p: Phase) => jobs.filter((j) => j.phase === p);
  return {
    plan,
    cluster: {
      kind: env.nodes ?? 'overcommitted',
      version: env.info.version,
      examplesVersion: env.info.examplesVersion,
      nmVcores: env.info.nmVcores,
      nmMemoryMb: env.info.nmMemoryMb,
      nodes: env.info.nodes.length,
      sidecarNodeCores: env.nodeCores ?? null,
    },
    startedAt: new Date(t0).toISOString(),
    seconds: (Date.now() - t0) / 1000,
    load,
    lone,
    jobs,
    summaries: {
      ...(plan.firstJobs > 0 ? { first: summarize(of('first')) } : {}),
      warmups: summarize(of('warm-up')),
      sparse: summarize(of('sparse')),
      dense: summarize(of('dense')),
      streams: summarize([...of('sparse'), ...of('dense')]),
    },
  };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** A stream whose jobs are submitted at their offsets from its start, overlapping. */
async function spacedStream(
  env: RealJobsEnv,
  plan: RealJobsPlan,
  phase: 'first' | 'dense',
  count: number,
  loneOf: (k: KindName) => number,
  inputs: Record<'text' | 'tera', InputFile[]>,
  log: (line: string) => void,
): Promise<JobRecord[]> {
  const start = Date.now();
  return Promise.all(
    streamSpecs(plan, phase, count).map(async (spec) => {
      await sleep(Math.max(0, start + spec.offsetSeconds * 1000 - Date.now()));
      const r = await runThroughSidecar(env, plan, spec, loneOf(spec.kind), inputs);
      log(line(r));
      return r;
    }),
  );
}

function line(r: JobRecord): string {
  const s = (n: number | null) => (n === null ? '-' : n.toFixed(1));
  return `${r.phase} #${r.seq} ${r.kind}: deadline ${r.deadlineSeconds} s (${r.deadlineFactor.toFixed(2)}x lone ${r.loneSeconds.toFixed(1)}), ${r.decision}${r.reason ? ` (${r.reason})` : ''}${r.error ? ` [${r.error}]` : ''}, estimate ${s(r.estimatedSeconds)} s, actual ${s(r.actualSeconds)} s${r.met === null ? '' : r.met ? ', met' : ', MISSED'}`;
}

// ------------------------------------------------------------------ the sidecar for a measurement

/**
 * The sidecar's configuration for a measurement on a launcher cluster: the config's default
 * estimates (nothing set), containers as the MapReduce jobs ask (512 MB, 1 vcore), a poll every
 * second, and no lifetime timeouts (a late app runs to its end, so its real duration is seen).
 * With `nodeCores` (an honest cluster: clusterKinds) admission counts each node's vcores at it.
 */
export function realJobsSidecarConfig(
  info: HadoopInfo,
  token: string,
  options: { nodeCores?: number | undefined } = {},
): Record<string, unknown> {
  return {
    rm: {
      addresses: info.rms,
      jobHistoryAddress: info.jhs,
      webHdfsAddress: info.webhdfs,
      format: 'json',
      timeoutMs: 10_000,
      retries: 1,
      user: info.user,
    },
    admission: {
      containerMemoryMb: 512,
      containerVcores: 1,
      ...(options.nodeCores === undefined ? {} : { nodeCores: options.nodeCores }),
    },
    enforcement: { lifetimeTimeouts: false },
    loop: { pollCron: '* * * * * *' },
    auth: { tokens: [{ name: 'real-jobs', token }] },
    server: { port: 0, host: '127.0.0.1' },
    ledger: { path: ':memory:' },
  };
}

// ------------------------------------------------------------------ overcommitted and honest clusters

/**
 * The clusters the same streams run on: `overcommitted`, the launcher's defaults (16 vcores and
 * 16 GB a NodeManager, whatever the machine's cores; the sidecar counts the advertised vcores),
 * and `honest`, NodeManagers advertising the machine's cores (`--nm-vcores 2 --nm-memory-mb
 * 4096` on a 2-core machine) with the sidecar's admission.nodeCores set to match.
 */
export type NodesKind = 'overcommitted' | 'honest';

export const NODES_KINDS: readonly NodesKind[] = ['overcommitted', 'honest'];

/** REAL_JOBS_NODES: overcommitted (the default), honest, or both (overcommitted first). */
export function clusterKinds(env: NodeJS.ProcessEnv): NodesKind[] {
  const cluster = env.REAL_JOBS_CLUSTER;
  if (cluster !== undefined && ['honest', 'overcommitted', 'both'].includes(cluster))
    throw new Error(
      `REAL_JOBS_CLUSTER names a running cluster's ready-line file; say REAL_JOBS_NODES=${cluster} to choose the nodes`,
    );
  const v = env.REAL_JOBS_NODES;
  if (v === undefined || v === '') return ['overcommitted'];
  if (v === 'both') return [...NODES_KINDS];
  if ((NODES_KINDS as readonly string[]).includes(v)) return [v as NodesKind];
  throw new Error(`REAL_JOBS_NODES must be overcommitted, honest or both, not "${v}"`);
}

/**
 * What the launcher starts for a kind (hadoop/launch.ts's nmVcores, nmMemoryMb, realtimeCapacity
 * and priorityCap): priorities up to 10 on both; for overcommitted the node defaults; for honest REAL_JOBS_NM_VCORES (2)
 * and REAL_JOBS_NM_MEMORY_MB (4096), what a 2-core machine runs at full speed
 * (docs/real-hadoop.md), with the realtime queue guaranteed REAL_JOBS_REALTIME_CAPACITY (100) %
 * of it: at its default 50 % the queue's lane would be one container, too few for an MR job's
 * AM and one task, and nothing could be admitted.
 */
export function clusterOptions(
  kind: NodesKind,
  env: NodeJS.ProcessEnv,
): { nmVcores?: number; nmMemoryMb?: number; realtimeCapacity?: number; priorityCap: number } {
  // Priorities up to 10, as docs/deploy.md asks of a cluster the sidecar runs beside: at Hadoop's
  // default cap of 0 every app runs at 0, the queue runs its apps first come first served, and a
  // job admitted ahead of a running one in EDF order waits behind it (measured: a miss).
  const priorityCap = 10;
  if (kind === 'overcommitted') return { priorityCap };
  const realtimeCapacity = intFrom(env, 'REAL_JOBS_REALTIME_CAPACITY', 1, 100);
  if (realtimeCapacity > 100)
    throw new Error(`REAL_JOBS_REALTIME_CAPACITY must be at most 100, not ${realtimeCapacity}`);
  return {
    nmVcores: intFrom(env, 'REAL_JOBS_NM_VCORES', 1, 2),
    nmMemoryMb: intFrom(env, 'REAL_JOBS_NM_MEMORY_MB', 1024, 4096),
    realtimeCapacity,
    priorityCap,
  };
}

/**
 * The sidecar's admission.nodeCores on a cluster: REAL_JOBS_NODE_CORES when set (the
 * overcommitted cluster counted at the machine's cores: the case the cap changes), else the
 * vcores an honest node advertises (the cap as an operator would write it; it changes no count
 * there), else unset.
 */
export function sidecarNodeCores(
  kind: NodesKind,
  info: Pick<HadoopInfo, 'nmVcores'>,
  env: NodeJS.ProcessEnv = {},
): number | undefined {
  if (env.REAL_JOBS_NODE_CORES) return intFrom(env, 'REAL_JOBS_NODE_CORES', 1, 1);
  return kind === 'honest' ? info.nmVcores : undefined;
}

// ------------------------------------------------------------------ settings from the environment

function intFrom(env: NodeJS.ProcessEnv, name: string, min: number, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min)
    throw new Error(`${name} must be an integer >= ${min}, not "${v}"`);
  return Number(v);
}

function rangeFrom(env: NodeJS.ProcessEnv, name: string, fallback: [number, number]): [number, number] {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(v);
  if (!m || Number(m[1]) > Number(m[2]) || Number(m[1]) <= 0)
    throw new Error(`${name} must be MIN-MAX with 0 < MIN <= MAX (e.g. 0.6-4), not "${v}"`);
  return [Number(m[1]), Number(m[2])];
}

/**
 * The plan, with REAL_JOBS_* variables over `base`: KINDS (comma list), WARMUPS, SPARSE, DENSE,
 * SEED, DEADLINE_FACTORS (0.6-4), DENSE_GAP (4-8), TEXT_MB, TERA_ROWS, JOB_TIMEOUT (seconds).
 */
export function planFromEnv(env: NodeJS.ProcessEnv, base: RealJobsPlan): RealJobsPlan {
  const kinds = env.REAL_JOBS_KINDS ? parseKinds(env.REAL_JOBS_KINDS) : base.kinds;
  const textMb = intFrom(env, 'REAL_JOBS_TEXT_MB', 1, Math.round(base.sizes.textBytes / 2 ** 20));
  return {
    ...base,
    kinds,
    warmups: intFrom(env, 'REAL_JOBS_WARMUPS', 0, base.warmups),
    firstJobs: intFrom(env, 'REAL_JOBS_FIRST', 0, base.firstJobs),
    sparseJobs: intFrom(env, 'REAL_JOBS_SPARSE', 0, base.sparseJobs),
    denseJobs: intFrom(env, 'REAL_JOBS_DENSE', 0, base.denseJobs),
    seed: intFrom(env, 'REAL_JOBS_SEED', 0, base.seed),
    deadlineFactors: rangeFrom(env, 'REAL_JOBS_DEADLINE_FACTORS', base.deadlineFactors),
    denseGapSeconds: rangeFrom(env, 'REAL_JOBS_DENSE_GAP', base.denseGapSeconds),
    jobTimeoutSeconds: intFrom(env, 'REAL_JOBS_JOB_TIMEOUT', 10, base.jobTimeoutSeconds),
    sizes: {
      ...base.sizes,
      textBytes: textMb * 2 ** 20,
      teraRows: intFrom(env, 'REAL_JOBS_TERA_ROWS', 1000, base.sizes.teraRows),
    },
  };
}
