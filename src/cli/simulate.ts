import { readFileSync } from 'node:fs';
import { TraceInvalidError } from '../errors/trace-invalid';
import { Command, InvalidArgumentError } from 'commander';
import { SimulationStalledError } from '../errors/simulation-stalled';
import { ValidationError, type ValidationIssue } from '../errors/validation';
import { runPolicies, type RunResult } from '../sim/driver';
import { EXPERIMENTS, experiment, type Experiment } from '../sim/experiments';
import { parseClusterFile } from '../sim/formats/cluster-file';
import { TRACE_FORMATS, readTraceFile, type TraceFormat } from '../sim/formats/trace-reader';
import type { ClusterSpec, TraceJob } from '../sim/model';
import { parsePolicyList, type EstimateBasis, type PolicySpec } from '../sim/policies';
import { aggregate, writeReport, type SummaryFile } from '../sim/report';
import { parseSweep, sweepFile, writeSweep, type SweepFile, type SweepRequest } from '../sim/sweep';
import type { EstimateModel } from '../core/learning';
import { tenantIssues, tenantOf, type TenantSpec } from '../sim/tenant';

/**
 * `simulate`: run a built-in experiment of the papers, or any cluster and trace under a list
 * of policies, and write summary.json, jobs.csv and the plots (Vega-Lite spec, SVG, PNG) to --out.
 *
 *   simulate --experiment rtmr-workload-2 --seed 1 --runs 5 --out out/w2
 *   simulate --cluster examples/cluster.yaml --trace examples/trace.jsonl --policies rtmr,dc,fifo-all --out out/mine
 *
 * Inputs are validated completely (every problem with file and line) before anything runs.
 */
interface SimulateOptions {
  experiment?: string;
  cluster?: string;
  trace?: string;
  policies?: string;
  seed: number;
  runs: number;
  out: string;
  slsDeadlineFactor?: number;
  traceFormat?: TraceFormat | 'auto';
  skipBad?: boolean;
  estimateModel?: EstimateModel;
  tenantShare?: number;
  tenantMax?: number;
  preemption?: 'on' | 'off';
  tenantReleases?: 'known' | 'unknown';
  sweep?: string;
}

function int(name: string, min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min)
      throw new InvalidArgumentError(`${name} must be a whole number >= ${min}`);
    return n;
  };
}

function positive(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a number > 0');
  return n;
}

/** A share of the cluster, a number in [0, 1]. */
function share(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError('must be a number in [0, 1]');
  return n;
}

function oneOf<T extends string>(...values: readonly T[]) {
  return (v: string): T => {
    if (!(values as readonly string[]).includes(v))
      throw new InvalidArgumentError(`must be ${values.map((x) => `'${x}'`).join(' or ')}`);
    return v as T;
  };
}

/**
 * The other tenant the options ask for (--tenant-share and the options that shape it), or
 * undefined for none; a usage error for a shaping option without --tenant-share, or for a run
 * whose experiment brings its own tenants.
 */
export function tenantFromOptions(
  opts: Pick<SimulateOptions, 'tenantShare' | 'tenantMax' | 'preemption' | 'tenantReleases'>,
  plan: Pick<SimulationPlan, 'cluster' | 'specs' | 'name'>,
): TenantSpec | undefined {
  const shaping = (
    [
      ['--tenant-max', opts.tenantMax],
      ['--preemption', opts.preemption],
      ['--tenant-releases', opts.tenantReleases],
    ] as const
  ).filter(([, v]) => v !== undefined);
  if (opts.tenantShare === undefined) {
    if (shaping.length > 0)
      throw new InvalidArgumentError(
        `${shaping.map(([k]) => k).join(', ')} ${shaping.length === 1 ? 'shapes' : 'shape'} another tenant: give --tenant-share too`,
      );
    return undefined;
  }
  if (plan.specs.some((s) => s.tenant !== undefined))
    throw new InvalidArgumentError(
      `the ${plan.name} experiment sets its own tenants; leave out --tenant-share`,
    );
  return tenantOf(plan.cluster, {
    share: opts.tenantShare,
    max: opts.tenantMax ?? 1,
    preemption: opts.preemption ?? 'off',
    releases: opts.tenantReleases ?? 'unknown',
  });
}

/** A progress bar on a terminal, plain lines otherwise (CI logs, pipes). */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr): {
  update(label: string, done: number, total: number): void;
  finish(label: string, result: RunResult): void;
} {
  const tty = Boolean(stream.isTTY);
  let lastPlain = '';
  return {
    update(label, done, total) {
      if (tty) {
        const width = 30;
        const filled = total ? Math.round((done / total) * width) : 0;
        stream.write(
          `\r${label.padEnd(22).slice(0, 22)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} jobs`,
        );
      } else {
        const pct = total ? Math.floor((done / total) * 4) * 25 : 0;
        const line = `${label}: ${pct}%`;
        if (line !== lastPlain) {
          stream.write(`${line}\n`);
          lastPlain = line;
        }
      }
    },
    finish(label, r) {
      const s = r.summary;
      const text =
        `${label}: accepted ${s.accepted}/${s.jobs}, succeeded ${s.succeeded}, ` +
        `util ${s.utilization === null ? 'n/a' : (s.utilization * 100).toFixed(1) + '%'}, ` +
        `locality ${s.localityRate === null ? 'n/a' : (s.localityRate * 100).toFixed(1) + '%'}, ` +
        `${r.events} events in ${r.wallMs.toFixed(0)} ms`;
      stream.write(tty ? `\r${text.padEnd(80)}\n` : `${text}\n`);
    },
  };
}

export interface SimulationPlan {
  name: string;
  cluster: ClusterSpec;
  jobs: (seed: number) => TraceJob[];
  specs: PolicySpec[];
  jobsFor?: (spec: PolicySpec, jobs: readonly TraceJob[]) => readonly TraceJob[];
  sweep?: { parameter: string; values: number[] };
  /** How admission's worst-case estimates are modelled (docs/estimates.md); floored by default. */
  estimateModel?: EstimateModel;
  /** What admission's figures are taken from, and a factor on them (an experiment's settings). */
  estimateBasis?: EstimateBasis;
  estimateScale?: number;
}

/**
 * Reads and validates the inputs of a custom run; throws ValidationError (TraceInvalidError for
 * the trace) before any simulation. With `skipBad`, `skipped` counts the trace records left out.
 */
export function loadCustomPlan(
  clusterFile: string,
  traceFile: string,
  policies: string,
  slsDeadlineFactor?: number,
  trace: { format?: TraceFormat | 'auto'; skipBad?: boolean } = {},
): SimulationPlan & { traceFormat: TraceFormat; skipped: { records: number; issues: ValidationIssue[] } } {
  const cluster = parseClusterFile(readFileSync(clusterFile, 'utf8'), clusterFile);
  const read = readTraceFile(traceFile, {
    format: trace.format ?? 'auto',
    skipBad: trace.skipBad ?? false,
    deadlineFactor: slsDeadlineFactor ?? null,
    cluster,
  });
  const specs = parsePolicyList(policies);
  return { name: 'custom', cluster, jobs: read.jobs, specs, traceFormat: read.format, skipped: read.skipped };
}

function issueText(i: ValidationIssue): string {
  return `  ${i.file ? `${i.file}${i.line !== undefined ? `:${i.line}` : ''}: ` : ''}${i.path}: ${i.message}`;
}

/** Runs `plan` once per seed, each policy on a fresh engine, and aggregates the figures over the seeds. */
export function runSeeds(
  plan: SimulationPlan,
  seeds: number[],
  log: (line: string) => void,
  stream?: NodeJS.WriteStream,
  labelPrefix = '',
): { summary: SummaryFile; runs: RunResult[][] } {
  const progress = progressReporter(stream);
  const runs: RunResult[][] = [];
  for (const seed of seeds) {
    log(`${labelPrefix}seed ${seed}`);
    const jobs = plan.jobs(seed);
    const results = runPolicies({
      cluster: plan.cluster,
      jobs,
      specs: plan.specs,
      seed,
      estimateModel: plan.estimateModel ?? 'floored',
      ...(plan.estimateBasis === undefined ? {} : { estimateBasis: plan.estimateBasis }),
      ...(plan.estimateScale === undefined ? {} : { estimateScale: plan.estimateScale }),
      jobsFor: plan.jobsFor
        ? (spec) => (plan.jobsFor as NonNullable<SimulationPlan['jobsFor']>)(spec, jobs)
        : undefined,
      onProgress: (label, done, total) => progress.update(labelPrefix + label, done, total),
    });
    for (const r of results) progress.finish(labelPrefix + r.spec.label, r);
    runs.push(results);
  }
  return { summary: aggregate(plan.name, seeds, runs), runs };
}

export async function runPlan(
  plan: SimulationPlan,
  seeds: number[],
  out: string,
  log: (line: string) => void,
  stream?: NodeJS.WriteStream,
  options: { png?: boolean } = {},
): Promise<string[]> {
  const { summary, runs } = runSeeds(plan, seeds, log, stream);
  return writeReport(out, summary, runs, {
    ...(plan.sweep ? { sweep: plan.sweep } : {}),
    png: options.png ?? true,
  });
}

/** A built-in experiment as a plan to run. */
export function planOf(e: Experiment): SimulationPlan {
  // runSeeds reads an unset estimate model, basis or scale as the default.
  const { name, cluster, jobs, specs, jobsFor, sweep, estimateModel, estimateBasis, estimateScale } = e;
  return { name, cluster, jobs, specs, jobsFor, sweep, estimateModel, estimateBasis, estimateScale };
}

/**
 * `--sweep`: builds `experimentName` once per value of the parameter, runs each over `seeds`
 * (progress on `stream`: which value, then each policy's bar), and writes sweep.json, sweep.csv
 * and the plot to `out` (src/sim/sweep.ts). `estimateModel` overrides the experiment's.
 */
export async function runSweep(
  experimentName: string,
  req: SweepRequest,
  seeds: number[],
  out: string,
  log: (line: string) => void,
  stream?: NodeJS.WriteStream,
  options: { png?: boolean; estimateModel?: EstimateModel } = {},
): Promise<{ files: string[]; file: SweepFile }> {
  const results: Array<{ experiment: Experiment; summary: SummaryFile }> = [];
  const n = req.values.length;
  req.values.forEach((value, i) => {
    const e = experiment(experimentName, { [req.parameter.name]: value });
    const plan = planOf(e);
    if (options.estimateModel !== undefined) plan.estimateModel = options.estimateModel;
    log(`sweep ${req.parameter.name}=${value} (${i + 1}/${n}) [${'#'.repeat(i)}${'.'.repeat(n - i)}]`);
    const { summary } = runSeeds(plan, seeds, log, stream, `[${i + 1}/${n}] `);
    results.push({ experiment: e, summary });
  });
  const first = experiment(experimentName);
  const file = sweepFile(first, req, seeds, results);
  const files = await writeSweep(out, file, first.headline, req.parameter, { png: options.png ?? true });
  return { files, file };
}

export function simulateCommand(): Command {
  const command = new Command('simulate').description(
    "Run the papers' experiments, or a cluster and trace under chosen policies, in the discrete-event simulator",
  );
  return withSimulateOptions(command).action(simulate);
}

/** The options of `simulate`, in the order its help lists them. */
function withSimulateOptions(command: Command): Command {
  return command
    .option('--experiment <name>', `a built-in experiment: ${EXPERIMENTS.join(', ')}`)
    .option('--cluster <file>', 'cluster file (YAML or JSON, docs/simulator.md)')
    .option(
      '--trace <file>',
      'trace file: JSON Lines, Hadoop SLS JSON, a Rumen job history or an SLS synthetic-load description (docs/simulator.md)',
    )
    .option(
      '--trace-format <format>',
      `the trace's format: auto (detected from the file's start), ${TRACE_FORMATS.join(', ')}`,
      (v: string): TraceFormat | 'auto' => {
        if (v !== 'auto' && !(TRACE_FORMATS as readonly string[]).includes(v))
          throw new InvalidArgumentError(`must be auto or one of ${TRACE_FORMATS.join(', ')}`);
        return v as TraceFormat | 'auto';
      },
      'auto',
    )
    .option(
      '--skip-bad',
      'leave out bad trace records (jobs, lines) and report how many, instead of stopping',
    )
    .option(
      '--policies <list>',
      'comma-separated policies: ADMISSION, PLACEMENT or ADMISSION+PLACEMENT, e.g. rtmr,dc,fifo-all+fifo',
    )
    .option('--seed <n>', 'first seed', int('--seed', 0), 1)
    .option('--runs <k>', 'number of seeds (seed, seed+1, ...); figures are their mean', int('--runs', 1), 1)
    .option(
      '--sls-deadline-factor <f>',
      "for SLS and Rumen traces (which have none): deadline = f x the job's recorded duration",
      positive,
    )
    .option(
      '--estimate-model <model>',
      "admission's estimates: floored (a per-task floor plus seconds per MB) or paper (seconds per MB only)",
      (v: string): EstimateModel => {
        if (v !== 'floored' && v !== 'paper') throw new InvalidArgumentError("must be 'floored' or 'paper'");
        return v;
      },
    )
    .option(
      '--tenant-share <f>',
      "another tenant's guaranteed share of the CPU containers, in [0, 1): the admitted jobs' queue keeps the rest (unified clusters; docs/simulator.md)",
      share,
    )
    .option('--tenant-max <f>', "the tenant's maximum share, in [share, 1] (default 1)", share)
    .option(
      '--preemption <on|off>',
      "whether the RM's preemption takes the guarantee back from the tenant (default off)",
      oneOf('on', 'off'),
    )
    .option(
      '--tenant-releases <known|unknown>',
      "whether admission knows when the tenant's containers end (default unknown)",
      oneOf('known', 'unknown'),
    )
    .option(
      '--sweep <PARAM=a,b,c>',
      "with --experiment: run it once per value of one of its parameters and plot the headline figures against it (docs/simulator.md, 'Sweeps')",
    )
    .option('--out <dir>', 'output directory', 'sim-out')
    .option('--no-png', 'write only the Vega-Lite specs and SVGs of the plots, no PNG copies');
}

/** `simulate`'s options as commander gives them to the action. */
type SimulateCliOptions = SimulateOptions & { png: boolean };

/** `simulate`: a built-in experiment (or a sweep of it), or a cluster and trace under chosen policies. */
async function simulate(opts: SimulateCliOptions): Promise<void> {
  let plan: SimulationPlan | undefined;
  if (opts.experiment) {
    const name = opts.experiment;
    if (opts.cluster || opts.trace || opts.policies)
      throw new InvalidArgumentError(
        '--experiment runs on its own; leave out --cluster, --trace and --policies',
      );
    if (!EXPERIMENTS.includes(name)) {
      throw new InvalidArgumentError(`unknown experiment "${name}"; known: ${EXPERIMENTS.join(', ')}`);
    }
    if (opts.sweep !== undefined) return sweepExperiment(name, opts.sweep, opts);
    plan = planOf(experiment(name));
  } else {
    if (opts.sweep !== undefined)
      throw new InvalidArgumentError('--sweep varies a built-in experiment: give --experiment NAME');
    plan = customPlan(opts);
    if (plan === undefined) return;
  }
  if (opts.estimateModel !== undefined) plan.estimateModel = opts.estimateModel;
  if (!withTenant(plan, opts)) return;
  const seeds = Array.from({ length: opts.runs }, (_, i) => opts.seed + i);
  const runnable = plan;
  await writeOrStall(opts.out, () =>
    runPlan(runnable, seeds, opts.out, (line) => process.stderr.write(`${line}\n`), undefined, {
      png: opts.png,
    }),
  );
}

/** `simulate --experiment NAME --sweep PARAM=a,b,c`: the experiment once per value. */
async function sweepExperiment(name: string, sweep: string, opts: SimulateCliOptions): Promise<void> {
  let req: SweepRequest;
  try {
    req = parseSweep(name, sweep);
  } catch (e) {
    if (e instanceof RangeError) throw new InvalidArgumentError(e.message);
    throw e;
  }
  if ([opts.tenantShare, opts.tenantMax, opts.preemption, opts.tenantReleases].some((v) => v !== undefined))
    throw new InvalidArgumentError(
      '--sweep varies one parameter of an experiment as it is built; the tenant options do not apply to it',
    );
  const seeds = Array.from({ length: opts.runs }, (_, i) => opts.seed + i);
  await writeOrStall(opts.out, async () => {
    const swept = await runSweep(
      name,
      req,
      seeds,
      opts.out,
      (line) => process.stderr.write(`${line}\n`),
      undefined,
      {
        png: opts.png,
        ...(opts.estimateModel === undefined ? {} : { estimateModel: opts.estimateModel }),
      },
    );
    return swept.files;
  });
}

/**
 * The plan of `--cluster FILE --trace FILE --policies LIST`; undefined when the input is
 * invalid, said on stderr with exit code 2.
 */
function customPlan(opts: SimulateCliOptions): SimulationPlan | undefined {
  if (!opts.cluster || !opts.trace || !opts.policies) {
    throw new InvalidArgumentError(
      'give --experiment NAME, or all of --cluster FILE --trace FILE --policies LIST',
    );
  }
  try {
    const custom = loadCustomPlan(opts.cluster, opts.trace, opts.policies, opts.slsDeadlineFactor, {
      format: opts.traceFormat ?? 'auto',
      skipBad: opts.skipBad ?? false,
    });
    process.stderr.write(`trace ${opts.trace}: ${custom.traceFormat} format\n`);
    if (custom.skipped.records > 0)
      process.stderr.write(
        `skipped ${custom.skipped.records} bad trace record(s) (--skip-bad):\n${custom.skipped.issues.map(issueText).join('\n')}\n`,
      );
    return custom;
  } catch (e) {
    if (e instanceof ValidationError) {
      const count =
        e instanceof TraceInvalidError
          ? ` (${e.code}: ${e.badRecords} bad record(s) in the ${e.format} trace${e.issues.length < e.badRecords ? `; the first ${e.issues.length} problems shown` : ''}; --skip-bad leaves them out)`
          : '';
      process.stderr.write(
        `invalid input, nothing simulated${count}:\n${e.issues.map(issueText).join('\n')}\n`,
      );
      process.exitCode = 2;
      return undefined;
    }
    throw e;
  }
}

/**
 * The tenant of the --tenant-* options given to every policy of the plan; false when they do
 * not fit its cluster, said on stderr with exit code 2.
 */
function withTenant(plan: SimulationPlan, opts: SimulateCliOptions): boolean {
  const tenant = tenantFromOptions(opts, plan);
  if (tenant === undefined) return true;
  const issues = tenantIssues(plan.cluster, tenant).map((i) => ({
    ...i,
    path: i.path
      .replace(/^tenant\.(share|max)$/, (_, k: string) => `--tenant-${k}`)
      .replace(/^tenant\.cluster$/, 'cluster'),
  }));
  if (issues.length > 0) {
    process.stderr.write(`invalid input, nothing simulated:\n${issues.map(issueText).join('\n')}\n`);
    process.exitCode = 2;
    return false;
  }
  plan.specs = plan.specs.map((s) => ({ ...s, tenant }));
  return true;
}

/**
 * Runs a simulation that writes files into `out` and says which; a run in which no event can
 * make progress ends here instead, with the jobs left waiting (exit code 3).
 */
async function writeOrStall(out: string, run: () => Promise<string[]>): Promise<void> {
  let files: string[];
  try {
    files = await run();
  } catch (e) {
    if (e instanceof SimulationStalledError) {
      process.stderr.write(`${e.code}: ${e.message}\n`);
      process.exitCode = 3;
      return;
    }
    throw e;
  }
  process.stdout.write(`wrote ${files.length} files to ${out}: ${files.join(', ')}\n`);
}
