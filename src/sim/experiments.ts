import type { EstimateModel } from '../core/learning';
import { DELAY_WAIT_RULES } from '../core/placement/delay';
import type { ClusterSpec, TaskCostSpec, TraceJob } from './model';
import { ESTIMATE_BASES, simulatorRegistry, type EstimateBasis, type PolicySpec } from './policies';
import { tenantOf } from './tenant';
import {
  MD_MAP_SECONDS,
  efhCluster,
  efhWorkload,
  localityCluster,
  localityWorkload,
  rtmrCluster,
  sharedClusterWorkload,
  typicalMapSeconds,
  workloadI,
  workloadII,
} from './workloads';

/**
 * The built-in experiments: each names its cluster, its workload generator (seeded) and the
 * policy combinations to compare, as in the papers' evaluations. Each also lists the settings
 * the papers leave open (`parameters`), which `simulate --sweep PARAM=a,b,c` varies, and the
 * figures of the paper that a sweep is judged against (`headline`).
 */
export interface Experiment {
  name: string;
  description: string;
  cluster: ClusterSpec;
  jobs(seed: number): TraceJob[];
  specs: PolicySpec[];
  jobsFor?: (spec: PolicySpec, jobs: readonly TraceJob[]) => readonly TraceJob[];
  /**
   * How admission's estimates are modelled unless the caller says otherwise (docs/estimates.md):
   * the papers' reproductions use the papers' model, as docs/results.md records them.
   */
  estimateModel?: EstimateModel;
  /** What admission's figures are taken from, and a factor on them (policies/estimates.ts). */
  estimateBasis?: EstimateBasis;
  estimateScale?: number;
  /** What the x axis of the locality plots is (delay D, seconds), when the experiment sweeps one. */
  sweep?: { parameter: string; values: number[] };
  /** The settings the papers leave open, with their defaults; `settings` holds this build's. */
  parameters: readonly ExperimentParameter[];
  settings: Readonly<Record<string, SettingValue>>;
  headline: readonly HeadlinePanel[];
}

export type SettingValue = number | string;

/** One setting an experiment can be built with (and swept over). */
export type ExperimentParameter = {
  name: string;
  description: string;
} & (
  | { kind: 'number'; default: number; min: number; max: number; integer?: boolean }
  | { kind: 'choice'; default: string; choices: readonly string[] }
);

/**
 * A headline figure of a sweep: a policy's summary figure, or one computed from several
 * (`of`), with the paper's published value when it gives one (drawn as a reference line).
 */
export interface HeadlineSeries {
  name: string;
  policy?: string;
  key?: 'acceptRatio' | 'successRatio' | 'utilization' | 'localityRate' | 'energyKWh' | 'makespanSeconds';
  of?: (policies: Readonly<Record<string, Readonly<Record<string, unknown>>>>) => number | null;
  seed?: number;
}

/** One panel of the sweep plot: a y axis and its series. */
export interface HeadlinePanel {
  title: string;
  yLabel: string;
  percent?: boolean;
  series: readonly HeadlineSeries[];
}

/**
 * The admission policies of He et al., RTMR, section V, plus YARN's own ReservationSystem agent.
 * RTMR's feedback threshold DeltaT is "a typical map task execution time" (He et al., RTMR, V), taken
 * from the cluster's loadgen cost model rather than the policy's generic 30 s default.
 */
function admissionSpecs(cluster: ClusterSpec, dcEstimates: string): PolicySpec[] {
  const feedbackThresholdSeconds = typicalMapSeconds(cluster.costs.cpu);
  return [
    {
      label: 'dc',
      admission: 'dc',
      placement: 'fifo',
      ...(dcEstimates === 'same' ? {} : { estimates: { basis: dcEstimates as EstimateBasis } }),
    },
    { label: 'rtmr', admission: 'rtmr', admissionArgs: { feedbackThresholdSeconds }, placement: 'fifo' },
    { label: 'rtmr-no-feedback', admission: 'rtmr-no-feedback', placement: 'fifo' },
    { label: 'yarn-greedy', admission: 'yarn-greedy', placement: 'fifo' },
    { label: 'fifo-all', admission: 'fifo-all', placement: 'fifo' },
  ];
}

/** He, dissertation, 4.4.1: D from 0.1 to 10 heartbeat intervals of 3 s, 8 values. */
export const DELAY_VALUES_SECONDS = [0.3, 0.9, 1.5, 3, 4.5, 9, 15, 30];

export const EXPERIMENTS = ['rtmr-workload-1', 'rtmr-workload-2', 'locality', 'efh', 'tenants'];

const heartbeat: ExperimentParameter = {
  name: 'heartbeatSeconds',
  description: "each node's heartbeat interval, s (Hadoop 1's default and the papers': 3)",
  kind: 'number',
  default: 3,
  min: 0.1,
  max: 60,
};

/** The RTMR paper's admission experiments: what the paper leaves open about its workloads and estimates. */
const ADMISSION_PARAMETERS: readonly ExperimentParameter[] = [
  {
    name: 'deadlineScale',
    description: "every job's relative deadline times this (deadline tightness; Tables III-IV: 1)",
    kind: 'number',
    default: 1,
    min: 0.01,
    max: 100,
  },
  {
    name: 'mapsScale',
    description: "every job's map count times this, rounded, at least 1 (job size; Tables II-IV: 1)",
    kind: 'number',
    default: 1,
    min: 0.01,
    max: 10,
  },
  {
    name: 'taskScale',
    description: "loadgen's task times times this (ours: 0.15 s/MB, about 19 s a block)",
    kind: 'number',
    default: 1,
    min: 0.01,
    max: 100,
  },
  {
    name: 'jitterMin',
    description: 'the fastest a task runs, as a fraction of its slowest (task time spread; ours: 0.6)',
    kind: 'number',
    default: 0.6,
    min: 0.01,
    max: 1,
  },
  {
    name: 'estimates',
    description:
      "what every admission policy's figures are taken from: worst (remote read, slowest jitter, plus a heartbeat), local-worst (slowest local task), local-mean (mean local task), measured (He et al., RTMR, IV.A: the largest time per MB observed in a FIFO run of the workload)",
    kind: 'choice',
    default: 'worst',
    choices: ESTIMATE_BASES,
  },
  {
    name: 'estimateScale',
    description: "every admission policy's figures times this",
    kind: 'number',
    default: 1,
    min: 0.01,
    max: 100,
  },
  {
    name: 'dcEstimates',
    description:
      "DC's own figures: local-worst (Kc and Anyanwu, DC, IV: the largest task time observed, with the cluster to itself; III.B: non-local reads not accounted), same (as estimates), or another basis",
    kind: 'choice',
    default: 'local-worst',
    choices: ['same', ...ESTIMATE_BASES],
  },
  heartbeat,
];

/** He et al., RTMR, Tables V and VI, per policy: accept, success, utilisation. */
const RTMR_PAPER_TABLES: Record<
  string,
  Record<string, { accept?: number; success?: number; util: number }>
> = {
  'rtmr-workload-1': {
    dc: { accept: 0.716, success: 0.857, util: 0.057 },
    rtmr: { accept: 0.568, success: 1, util: 0.155 },
    'rtmr-no-feedback': { accept: 0.466, success: 1, util: 0.116 },
    'fifo-all': { util: 0.213 },
  },
  'rtmr-workload-2': {
    dc: { accept: 0.494, success: 0.225, util: 0.007 },
    rtmr: { accept: 0.247, success: 1, util: 0.646 },
    'rtmr-no-feedback': { accept: 0.157, success: 1, util: 0.498 },
    'fifo-all': { util: 0.697 },
  },
};

function admissionHeadline(name: string): HeadlinePanel[] {
  const published = RTMR_PAPER_TABLES[name] as (typeof RTMR_PAPER_TABLES)[string];
  const series = (key: 'acceptRatio' | 'successRatio' | 'utilization', policies: string[]) =>
    policies.map((policy) => {
      const s = published[policy];
      const v = key === 'acceptRatio' ? s?.accept : key === 'successRatio' ? s?.success : s?.util;
      return { name: policy, policy, key, ...(v === undefined ? {} : { seed: v }) };
    });
  return [
    {
      title: 'accept ratio',
      yLabel: 'accepted / jobs',
      percent: true,
      series: series('acceptRatio', ['dc', 'rtmr', 'rtmr-no-feedback']),
    },
    {
      title: 'success ratio',
      yLabel: 'met deadline / accepted',
      percent: true,
      series: series('successRatio', ['dc', 'rtmr', 'rtmr-no-feedback']),
    },
    {
      title: 'utilisation',
      yLabel: 'successful slot time / available',
      percent: true,
      series: series('utilization', ['dc', 'rtmr', 'rtmr-no-feedback', 'fifo-all']),
    },
  ];
}

const LOCALITY_PARAMETERS: readonly ExperimentParameter[] = [
  {
    name: 'delayWait',
    description:
      "how delay scheduling counts a skipped job's wait: first-skip (time since first skipped) or hadoop1 (Hadoop 1's fair scheduler: only over heartbeats after one it was skipped at, reset by every launch)",
    kind: 'choice',
    default: 'first-skip',
    choices: DELAY_WAIT_RULES,
  },
  heartbeat,
  {
    name: 'remoteReadPenalty',
    description: 'a non-local map takes (1 + this) times as long (ours: 1)',
    kind: 'number',
    default: 1,
    min: 0,
    max: 20,
  },
  {
    name: 'taskScale',
    description:
      "loadgen's task times times this (0.15 s/MB, about 19 s a block, at 1): the cluster's load; 3 by default, where waiting for locality delays tasks as He, dissertation, 4.4.2 describes",
    kind: 'number',
    default: 3,
    min: 0.01,
    max: 100,
  },
];

/** Locality of the best delay scheduling over every D, for the sweep's margin. */
function bestDelay(policies: Readonly<Record<string, Readonly<Record<string, unknown>>>>): number | null {
  const rates = Object.entries(policies)
    .filter(([l]) => l.startsWith('delay:D='))
    .map(([, p]) => p.localityRate)
    .filter((v): v is number => typeof v === 'number');
  return rates.length ? Math.max(...rates) : null;
}

const LOCALITY_HEADLINE: HeadlinePanel[] = [
  {
    title: 'data locality',
    yLabel: 'local maps / all maps',
    percent: true,
    series: [
      { name: 'fifo', policy: 'fifo', key: 'localityRate' },
      { name: 'matchmaking', policy: 'matchmaking', key: 'localityRate' },
      { name: 'delay:D=0.3', policy: 'delay:D=0.3', key: 'localityRate' },
      { name: 'delay:D=4.5', policy: 'delay:D=4.5', key: 'localityRate' },
      { name: 'delay:D=30', policy: 'delay:D=30', key: 'localityRate' },
    ],
  },
  {
    title: 'matchmaking above the best delay D',
    yLabel: 'locality difference (points)',
    series: [
      {
        name: 'matchmaking - best delay',
        of: (p) => {
          const best = bestDelay(p);
          const mm = p.matchmaking?.localityRate;
          return best === null || typeof mm !== 'number' ? null : (mm - best) * 100;
        },
        // He, dissertation, 4.4.2: matchmaking's locality is "better than any of those achieved with the delay algorithm".
        seed: 0,
      },
    ],
  },
];

const EFH_PARAMETERS: readonly ExperimentParameter[] = [
  {
    name: 'aeScope',
    description:
      "which MD jobs EFH's adaptive execution lets onto CPU containers: all (Table 6.2 as written) or long-waiting (6.3.3: it \"allows some 'long waiting' GPU jobs to run on a CPU node\")",
    kind: 'choice',
    default: 'all',
    choices: ['all', 'long-waiting'],
  },
  {
    name: 'mdCpuSeconds',
    description: `an MD map's time on a CPU core, s (derived: ${MD_MAP_SECONDS.cpu}; GPUs ${MD_MAP_SECONDS.gpu9800gt} s and ${MD_MAP_SECONDS.gpu210} s)`,
    kind: 'number',
    default: MD_MAP_SECONDS.cpu,
    min: 1,
    max: 100_000,
  },
  {
    name: 'aeThresholdSeconds',
    description:
      "EFH's waiting-time threshold T, s: a job waiting longer takes whatever relevant containers are free (ours: 300)",
    kind: 'number',
    default: 300,
    min: 0,
    max: 1_000_000,
  },
  {
    name: 'mdMapKWh',
    description:
      'energy of an MD map on a CPU server beyond idle, kWh (Table 6.8: 0.0269; GPU servers by Tables 6.9-6.10)',
    kind: 'number',
    default: 0.0269,
    min: 0.0001,
    max: 10,
  },
];

/**
 * A panel of `figure` of EFH and EFH without adaptive execution over FIFO's, minus 1 (negative:
 * less than FIFO's), beside the dissertation's: its EFH and EFH-no-AE figures over its FIFO one.
 */
function vsFifoPanel(
  title: string,
  yLabel: string,
  figure: 'energyKWh' | 'makespanSeconds',
  seed: { fifo: number; efh: number; 'efh-no-ae': number },
): HeadlinePanel {
  const of =
    (policy: string) =>
    (p: Readonly<Record<string, Readonly<Record<string, unknown>>>>): number | null => {
      const e = p[policy]?.[figure];
      const f = p.fifo?.[figure];
      return typeof e === 'number' && typeof f === 'number' && f > 0 ? e / f - 1 : null;
    };
  const series = (['efh', 'efh-no-ae'] as const).map((name) => ({
    name,
    of: of(name),
    seed: seed[name] / seed.fifo - 1,
  }));
  return { title, yLabel, percent: true, series };
}

/** He, dissertation, Tables 6.11-6.12: energy (6.5 h window) and turnaround against FIFO's 13.19 kWh and 4.54 h. */
const EFH_HEADLINE: HeadlinePanel[] = [
  vsFifoPanel('energy against FIFO', 'energy / FIFO energy - 1', 'energyKWh', {
    fifo: 13.19,
    efh: 11.78,
    'efh-no-ae': 11.75,
  }),
  vsFifoPanel('turnaround against FIFO', 'makespan / FIFO makespan - 1', 'makespanSeconds', {
    fifo: 4.54,
    efh: 4.59,
    'efh-no-ae': 4.84,
  }),
];

/** Whether `spec`'s admission test runs all of a job's reduces at once (the registry's capability). */
const reducesAtOnce = (spec: PolicySpec): boolean =>
  spec.admission !== null && simulatorRegistry().admissionCapabilities(spec.admission).reducesAtOnce;

/** The parameters `name` can be built with; throws RangeError for an unknown experiment. */
export function experimentParameters(name: string): readonly ExperimentParameter[] {
  switch (name) {
    case 'rtmr-workload-1':
    case 'rtmr-workload-2':
      return ADMISSION_PARAMETERS;
    case 'locality':
      return LOCALITY_PARAMETERS;
    case 'efh':
      return EFH_PARAMETERS;
    case 'tenants':
      return [];
    default:
      throw new RangeError(`unknown experiment "${name}"; known: ${EXPERIMENTS.join(', ')}`);
  }
}

/**
 * Why `value` is not a valid setting of `p`, or null when it is. Numbers must be finite and in
 * [min, max] (whole when `integer`); choices one of the listed.
 */
export function settingProblem(p: ExperimentParameter, value: SettingValue): string | null {
  if (p.kind === 'choice') {
    return typeof value === 'string' && p.choices.includes(value)
      ? null
      : `${p.name} must be one of ${p.choices.join(', ')}, got "${value}"`;
  }
  if (typeof value !== 'number' || !Number.isFinite(value))
    return `${p.name} must be a number in [${p.min}, ${p.max}], got "${value}"`;
  if (value < p.min || value > p.max) return `${p.name} must be in [${p.min}, ${p.max}], got ${value}`;
  if (p.integer && !Number.isInteger(value)) return `${p.name} must be a whole number, got ${value}`;
  return null;
}

/** Every parameter's default, overridden by `given` (checked: unknown names and bad values throw RangeError). */
function resolveSettings(
  name: string,
  given: Readonly<Record<string, SettingValue>>,
): Record<string, SettingValue> {
  const params = experimentParameters(name);
  const out: Record<string, SettingValue> = Object.fromEntries(params.map((p) => [p.name, p.default]));
  for (const [k, v] of Object.entries(given)) {
    const p = params.find((x) => x.name === k);
    if (!p)
      throw new RangeError(
        `experiment ${name} has no parameter "${k}"; its parameters: ${params.map((x) => x.name).join(', ')}`,
      );
    const problem = settingProblem(p, v);
    if (problem) throw new RangeError(problem);
    out[k] = v;
  }
  return out;
}

function scaledCosts(c: TaskCostSpec, taskScale: number, jitterMin?: number): TaskCostSpec {
  return {
    ...c,
    mapFixedSeconds: c.mapFixedSeconds * taskScale,
    mapSecondsPerMB: c.mapSecondsPerMB * taskScale,
    reduceFixedSeconds: c.reduceFixedSeconds * taskScale,
    reduceSecondsPerMB: c.reduceSecondsPerMB * taskScale,
    jitter: jitterMin === undefined ? c.jitter : [Math.min(jitterMin, c.jitter[1]), c.jitter[1]],
  };
}

/**
 * The experiment `name`, built with `given` settings (the rest at their defaults; see
 * experimentParameters). With no settings it is the experiment docs/results.md reports.
 */
export function experiment(name: string, given: Readonly<Record<string, SettingValue>> = {}): Experiment {
  const settings = resolveSettings(name, given);
  switch (name) {
    case 'rtmr-workload-1':
    case 'rtmr-workload-2':
      return rtmrExperiment(name, settings);
    case 'locality':
      return localityExperiment(settings);
    case 'efh':
      return efhExperiment(settings);
    case 'tenants':
      return tenantsExperiment(settings);
    default:
      throw new RangeError(`unknown experiment "${name}"; known: ${EXPERIMENTS.join(', ')}`);
  }
}

type Settings = Record<string, SettingValue>;

/** He et al., RTMR, Tables V and VI: workload I or II on the 30-node cluster, admission policies. */
function rtmrExperiment(name: 'rtmr-workload-1' | 'rtmr-workload-2', settings: Settings): Experiment {
  const num = (k: string) => settings[k] as number;
  const base = rtmrCluster('mr1');
  const cluster: ClusterSpec = {
    ...base,
    heartbeatSeconds: num('heartbeatSeconds'),
    costs: {
      cpu: scaledCosts(base.costs.cpu, num('taskScale'), num('jitterMin')),
      gpu: scaledCosts(base.costs.gpu, num('taskScale'), num('jitterMin')),
    },
  };
  const reduceSlots = cluster.nodeClasses.reduce((n, c) => n + c.count * c.reduceSlots, 0);
  const generate = name === 'rtmr-workload-1' ? workloadI : workloadII;
  const deadlineScale = num('deadlineScale');
  const mapsScale = num('mapsScale');
  const jobs = (seed: number): TraceJob[] =>
    generate(seed).map((j) => {
      if (deadlineScale === 1 && mapsScale === 1) return j;
      const maps = Math.max(1, Math.round(j.maps * mapsScale));
      return {
        ...j,
        deadline: j.deadline === null ? null : j.deadline * deadlineScale,
        maps,
        inputBytes: maps * (j.inputBytes / j.maps),
      };
    });
  return {
    name,
    description:
      name === 'rtmr-workload-1'
        ? 'He et al., RTMR, Table V: workload I (Facebook bins 1-6) on the 30-node heterogeneous cluster, mr1 slots'
        : 'He et al., RTMR, Table VI: workload II (Table IV) on the 30-node heterogeneous cluster, mr1 slots',
    cluster,
    jobs,
    specs: admissionSpecs(cluster, settings.dcEstimates as string),
    estimateModel: 'paper',
    estimateBasis: settings.estimates as EstimateBasis,
    estimateScale: num('estimateScale'),
    // He et al., RTMR, V: jobs with more reduces than the cluster's reduce slots are left out when DC
    // (whose test runs all of a job's reduces at once) is tested.
    ...(name === 'rtmr-workload-2'
      ? {
          jobsFor: (spec: PolicySpec, js: readonly TraceJob[]) =>
            reducesAtOnce(spec) ? js.filter((j) => j.reduces <= reduceSlots) : js,
        }
      : {}),
    parameters: ADMISSION_PARAMETERS,
    settings,
    headline: admissionHeadline(name),
  };
}

/** He, dissertation, 4.4: locality under matchmaking and delay scheduling, swept over D. */
function localityExperiment(settings: Settings): Experiment {
  const name = 'locality';
  const num = (k: string) => settings[k] as number;
  const specs: PolicySpec[] = [
    { label: 'fifo', admission: null, placement: 'fifo' },
    { label: 'matchmaking', admission: null, placement: 'matchmaking' },
    { label: 'fair-matchmaking', admission: null, placement: 'fair-matchmaking' },
  ];
  const waitRule = settings.delayWait === 'first-skip' ? {} : { waitRule: settings.delayWait };
  for (const d of DELAY_VALUES_SECONDS) {
    specs.push({
      label: `delay:D=${d}`,
      admission: null,
      placement: 'delay',
      placementArgs: { maxDelayMs: d * 1000, ...waitRule },
    });
    specs.push({
      label: `fair-delay:D=${d}`,
      admission: null,
      placement: 'fair-delay',
      placementArgs: { maxDelayMs: d * 1000, ...waitRule },
    });
  }
  const base = localityCluster();
  return {
    name,
    description:
      'He, dissertation, 4.4: 30 nodes x 2 map slots, 100 blocks x 2 replicas, 3 s heartbeats, Facebook schedule',
    cluster: {
      ...base,
      heartbeatSeconds: num('heartbeatSeconds'),
      remoteReadPenalty: num('remoteReadPenalty'),
      costs: {
        cpu: scaledCosts(base.costs.cpu, num('taskScale')),
        gpu: scaledCosts(base.costs.gpu, num('taskScale')),
      },
    },
    jobs: localityWorkload,
    specs,
    sweep: { parameter: 'D', values: DELAY_VALUES_SECONDS },
    parameters: LOCALITY_PARAMETERS,
    settings,
    headline: LOCALITY_HEADLINE,
  };
}

/** He, dissertation, 6.3: energy under EFH on a hybrid CPU/GPU cluster. */
function efhExperiment(settings: Settings): Experiment {
  const name = 'efh';
  const num = (k: string) => settings[k] as number;
  const longWaitThresholdMs = num('aeThresholdSeconds') * 1000;
  const noAeArgs = longWaitThresholdMs === 300_000 ? undefined : { longWaitThresholdMs };
  const efhArgs =
    settings.aeScope === 'all' ? noAeArgs : { ...noAeArgs, aeScope: settings.aeScope as string };
  return {
    name,
    description:
      'He, dissertation, 6.3: 6 CPU + 2 GPU nodes, 87 jobs half loadgen half MD simulation, Zipf(1) data access',
    cluster: efhCluster({ mdCpuSeconds: num('mdCpuSeconds'), mdMapKWh: num('mdMapKWh') }),
    jobs: (seed) => efhWorkload(seed, 'adaptive'),
    specs: [
      { label: 'fifo', admission: null, placement: 'fifo' },
      {
        label: 'efh-no-ae',
        admission: null,
        placement: 'efh-no-ae',
        ...(noAeArgs && { placementArgs: noAeArgs }),
      },
      { label: 'efh', admission: null, placement: 'efh', ...(efhArgs && { placementArgs: efhArgs }) },
      { label: 'ideal-energy', admission: null, placement: 'ideal-energy' },
    ],
    parameters: EFH_PARAMETERS,
    settings,
    headline: EFH_HEADLINE,
  };
}

/** RTMR on a unified cluster shared with another tenant, with and without preemption. */
function tenantsExperiment(settings: Settings): Experiment {
  const name = 'tenants';
  // Shared clusters: the real-time queue guaranteed half of a unified cluster, another tenant the
  // other half and up to all of it; preemption on or off, its containers' ends known to
  // admission or not, and admission blind to it as it was before (to show why it must see it).
  const cluster = rtmrCluster('unified');
  const feedbackThresholdSeconds = typicalMapSeconds(cluster.costs.cpu);
  const rtmr = (label: string, tenant?: Parameters<typeof tenantOf>[1]): PolicySpec => ({
    label,
    admission: 'rtmr',
    admissionArgs: { feedbackThresholdSeconds },
    placement: 'fifo',
    ...(tenant ? { tenant: tenantOf(cluster, tenant) } : {}),
  });
  return {
    name,
    description:
      'shared cluster: rtmr on the 30-node cluster (unified) shared half and half with another tenant that may grow to all of it; no tenant, preemption on, preemption off with its run times known or not, and admission blind to it',
    cluster,
    jobs: sharedClusterWorkload,
    specs: [
      rtmr('no-tenant'),
      rtmr('preemption-on', { preemption: 'on' }),
      rtmr('preemption-off-known', { preemption: 'off', releases: 'known' }),
      rtmr('preemption-off-unknown', { preemption: 'off', releases: 'unknown' }),
      rtmr('blind-preemption-on', { preemption: 'on', admission: 'blind' }),
      rtmr('blind-preemption-off', { preemption: 'off', admission: 'blind' }),
    ],
    // No sweep yet: the tenant's shares and preemption are options of simulate.
    parameters: [],
    settings,
    headline: [],
  };
}
