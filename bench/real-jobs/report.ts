/**
 * The real-jobs measurement's figures: per job what the sidecar decided and estimated and what
 * the RM says happened; per stream the counts and errors the issue asks about; the acceptance
 * thresholds, checked only where a caller turns them on (ACCEPTANCE, below).
 */
import type { KindName } from './kinds';
import { maxOnTimeOneAtATime, ORACLE_MAX_JOBS } from './oracle';

/** first: a dense stream of each kind's first run (no history); then the warm-ups and streams. */
export type Phase = 'first' | 'warm-up' | 'sparse' | 'dense';

export interface AppRecord {
  id: string;
  state: string;
  finalStatus: string;
  startedTime: number;
  finishedTime: number;
}

export interface JobRecord {
  phase: Phase;
  /** 1-based within its phase. */
  seq: number;
  kind: KindName;
  /** The job name given to `run` (and the output folder's name). */
  name: string;
  /** The sidecar's job (ticket) id; null when `run` got no answer. */
  id: string | null;
  deadlineSeconds: number;
  /** deadlineSeconds over the kind's lone duration. */
  deadlineFactor: number;
  loneSeconds: number;
  decision: 'admitted' | 'rejected' | 'error';
  /** What went wrong (decision error), or why the sidecar rejected it. */
  error: string | null;
  reason: string | null;
  /** The sidecar's arrival time of the job (the deadline counts from it), epoch ms. */
  arrivalMs: number | null;
  /** estimatedFinish - arrival, from the sidecar's answer: the bound admission judged with. */
  estimatedSeconds: number | null;
  /** expectedFinish - arrival, from the admission: the point prediction (null when not said). */
  expectedSeconds: number | null;
  /** Where the answer says its estimate came from, when it says so. */
  estimateFrom: unknown;
  /** `run`'s exit code (the client's, once admitted; 75 when rejected). */
  exitCode: number | null;
  /** The RM's apps carrying the ticket's tag. */
  apps: AppRecord[];
  /** Every app FINISHED and SUCCEEDED, as many as the kind submits; null when nothing ran. */
  succeeded: boolean | null;
  /** The last app's finishedTime - arrival. */
  actualSeconds: number | null;
  finishedMs: number | null;
  /** Finished by the deadline (the RM's finishedTime against the sidecar's deadline). */
  met: boolean | null;
  /** The sidecar's own outcome (met / missed), once it recorded the end. */
  sidecarOutcome: string | null;
  /** The lone duration fits the deadline. */
  feasibleAlone: boolean;
  /** Earlier runs of its kind through the sidecar, admitted and succeeded, ended before it arrived. */
  pastRuns: number;
}

export interface ErrorStats {
  n: number;
  median: number;
  p90: number;
  max: number;
}

export interface Summary {
  jobs: number;
  admitted: number;
  rejected: number;
  errors: number;
  /** Admitted jobs whose clients did not succeed. */
  failed: number;
  missedAmongAdmitted: number;
  /** Admitted jobs whose estimate (the bound) was below their actual duration. */
  underestimated: number;
  /**
   * abs(prediction - actual) / actual over admitted jobs with both: the prediction is the
   * admission's expected finish where it says one, else its estimate.
   */
  relError: ErrorStats | null;
  /** abs(estimate - actual) / actual: the same of the bound admission judged with. */
  boundRelError: ErrorStats | null;
  /** The same over admitted jobs with 3 or more past runs of their kind. */
  relErrorRecurring: ErrorStats | null;
  feasibleAlone: number;
  feasibleAloneAdmitted: number;
  /** feasibleAloneAdmitted / feasibleAlone; null without a feasible job. */
  feasibleAdmittedShare: number | null;
  /** Rejected jobs whose lone duration fit their deadline. */
  rejectedFeasibleAlone: number;
  /** Jobs whose answer says they were judged on a profile of their own past runs. */
  judgedOnHistory: number;
  /**
   * With hindsight: the most of these jobs that one-at-a-time at their lone durations could
   * finish by their deadlines (oracle.ts); null when the group is too large for the exact search.
   */
  hindsightOnTime: number | null;
}

/** Nearest-rank percentile of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

function errorStats(values: number[]): ErrorStats | null {
  if (values.length === 0) return null;
  return {
    n: values.length,
    median: percentile(values, 50),
    p90: percentile(values, 90),
    max: Math.max(...values),
  };
}

export const RECURRING_PAST_RUNS = 3;

export function summarize(jobs: readonly JobRecord[]): Summary {
  const admitted = jobs.filter((j) => j.decision === 'admitted');
  const relOf =
    (of: (j: JobRecord) => number | null) =>
    (j: JobRecord): number | null => {
      const e = of(j);
      return e === null || j.actualSeconds === null || j.actualSeconds <= 0
        ? null
        : Math.abs(e - j.actualSeconds) / j.actualSeconds;
    };
  const predicted = relOf((j) => j.expectedSeconds ?? j.estimatedSeconds);
  const errs = (list: JobRecord[], rel = predicted) => list.map(rel).filter((e): e is number => e !== null);
  const feasible = jobs.filter((j) => j.feasibleAlone && j.decision !== 'error');
  const feasibleAdmitted = feasible.filter((j) => j.decision === 'admitted').length;
  return {
    jobs: jobs.length,
    admitted: admitted.length,
    rejected: jobs.filter((j) => j.decision === 'rejected').length,
    errors: jobs.filter((j) => j.decision === 'error').length,
    failed: admitted.filter((j) => j.succeeded !== true).length,
    missedAmongAdmitted: admitted.filter((j) => j.met === false).length,
    underestimated: admitted.filter(
      (j) => j.estimatedSeconds !== null && j.actualSeconds !== null && j.estimatedSeconds < j.actualSeconds,
    ).length,
    relError: errorStats(errs(admitted)),
    boundRelError: errorStats(
      errs(
        admitted,
        relOf((j) => j.estimatedSeconds),
      ),
    ),
    relErrorRecurring: errorStats(errs(admitted.filter((j) => j.pastRuns >= RECURRING_PAST_RUNS))),
    feasibleAlone: feasible.length,
    feasibleAloneAdmitted: feasibleAdmitted,
    feasibleAdmittedShare: feasible.length === 0 ? null : feasibleAdmitted / feasible.length,
    rejectedFeasibleAlone: feasible.filter((j) => j.decision === 'rejected').length,
    judgedOnHistory: jobs.filter((j) => sourceOf(j.estimateFrom) === 'profile').length,
    hindsightOnTime: hindsightOnTime(jobs),
  };
}

/**
 * The most jobs of a group any one-at-a-time schedule could have finished on time, each arriving
 * when the sidecar saw it and running for its kind's lone duration; null without an arrival or
 * beyond the exact search's size.
 */
export function hindsightOnTime(jobs: readonly JobRecord[]): number | null {
  const arrived = jobs.filter((j) => j.arrivalMs !== null && j.decision !== 'error');
  if (arrived.length === 0) return null;
  const origin = Math.min(...arrived.map((j) => j.arrivalMs!));
  const fits = arrived.filter((j) => j.loneSeconds <= j.deadlineSeconds);
  if (fits.length > ORACLE_MAX_JOBS) return null;
  return maxOnTimeOneAtATime(
    fits.map((j) => {
      const releaseS = (j.arrivalMs! - origin) / 1000;
      return { releaseS, processS: j.loneSeconds, deadlineS: releaseS + j.deadlineSeconds };
    }),
  ).onTime;
}

/** Sets each job's pastRuns: runs of its kind admitted, succeeded and ended before it arrived. */
export function countPastRuns(jobs: JobRecord[]): void {
  for (const j of jobs) {
    j.pastRuns =
      j.arrivalMs === null
        ? 0
        : jobs.filter(
            (o) =>
              o !== j &&
              o.kind === j.kind &&
              o.decision === 'admitted' &&
              o.succeeded === true &&
              o.finishedMs !== null &&
              o.finishedMs < j.arrivalMs!,
          ).length;
  }
}

/** Limits the figures must keep; a limit left out is not checked. */
export interface Thresholds {
  maxMissedAmongAdmitted?: number;
  maxUnderestimated?: number;
  maxMedianRelError?: number;
  maxP90RelError?: number;
  maxRecurringMedianRelError?: number;
  maxRecurringP90RelError?: number;
  minFeasibleAdmittedShare?: number;
  maxRejectedFeasibleAlone?: number;
  maxJudgedOnHistory?: number;
}

/**
 * The acceptance asked of real jobs after the warm-up, per stream:
 * - sparse (each job about when the previous one ends): no admitted job missed, at least 90 % of
 *   the jobs that meet their deadline alone admitted, recurring jobs (3 or more past runs)
 *   predicted within 15 % (median of abs(estimate - actual) / actual) and 30 % (p90);
 * - dense (4-8 s apart, overlapping): no admitted job missed, at least 50 % of the jobs feasible
 *   alone admitted, predicted within 30 % (median).
 * - first (a dense stream of first runs, before any history): at most 1 admitted job missed, and
 *   every answer judged on a default, none on a profile.
 * The prediction is the admission's expected finish; the bound it admitted on (its estimated
 * finish) is what keeps a deadline: only misses count, not bounds above the actual.
 * Asserted with REAL_JOBS_ENFORCE=1.
 */
export const ACCEPTANCE: {
  readonly first: Thresholds;
  readonly sparse: Thresholds;
  readonly dense: Thresholds;
} = {
  first: { maxMissedAmongAdmitted: 1, maxJudgedOnHistory: 0 },
  sparse: {
    maxMissedAmongAdmitted: 0,
    minFeasibleAdmittedShare: 0.9,
    maxRecurringMedianRelError: 0.15,
    maxRecurringP90RelError: 0.3,
  },
  dense: { maxMissedAmongAdmitted: 0, minFeasibleAdmittedShare: 0.5, maxMedianRelError: 0.3 },
};

/**
 * Each acceptance threshold a measurement breaks, prefixed with its stream; empty when kept. The
 * first-run stream is judged when it was run.
 */
export function acceptanceViolations(summaries: {
  first?: Summary;
  sparse: Summary;
  dense: Summary;
}): string[] {
  const streams =
    summaries.first === undefined ? (['sparse', 'dense'] as const) : (['first', 'sparse', 'dense'] as const);
  return streams.flatMap((stream) =>
    thresholdViolations(summaries[stream]!, ACCEPTANCE[stream]).map((v) => `${stream}: ${v}`),
  );
}

/** Each threshold the summary breaks, in words; empty when it keeps them all. */
export function thresholdViolations(s: Summary, t: Thresholds): string[] {
  // Nothing measured keeps no threshold.
  if (s.jobs === 0) return ['no jobs to judge'];
  const out: string[] = [];
  const over = (what: string, value: number | null | undefined, max: number | undefined) => {
    if (max !== undefined && value !== null && value !== undefined && value > max)
      out.push(`${what} ${fmt(value)} > ${fmt(max)}`);
  };
  over('missed among admitted', s.missedAmongAdmitted, t.maxMissedAmongAdmitted);
  over('underestimated admitted jobs', s.underestimated, t.maxUnderestimated);
  over('median relative error', s.relError?.median, t.maxMedianRelError);
  over('p90 relative error', s.relError?.p90, t.maxP90RelError);
  over('median relative error of recurring jobs', s.relErrorRecurring?.median, t.maxRecurringMedianRelError);
  over('p90 relative error of recurring jobs', s.relErrorRecurring?.p90, t.maxRecurringP90RelError);
  over('rejected jobs feasible alone', s.rejectedFeasibleAlone, t.maxRejectedFeasibleAlone);
  over('jobs judged on a profile', s.judgedOnHistory, t.maxJudgedOnHistory);
  if (
    t.minFeasibleAdmittedShare !== undefined &&
    s.feasibleAdmittedShare !== null &&
    s.feasibleAdmittedShare < t.minFeasibleAdmittedShare
  )
    out.push(
      `share of feasible-alone jobs admitted ${fmt(s.feasibleAdmittedShare)} < ${fmt(t.minFeasibleAdmittedShare)}` +
        (s.hindsightOnTime === null
          ? ''
          : ` (with hindsight, one at a time: at most ${s.hindsightOnTime} of ${s.feasibleAlone} on time)`),
    );
  return out;
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

const sec = (n: number | null): string => (n === null ? '-' : n.toFixed(1));
const pct = (n: number | null | undefined): string =>
  n === null || n === undefined ? '-' : `${Math.round(n * 100)}%`;

function markdown(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The source an answer's estimateFrom names (profile, class, default), else null. */
function sourceOf(from: unknown): string | null {
  if (from === null || typeof from !== 'object') return null;
  const source = (from as { source?: unknown }).source;
  return typeof source === 'string' ? source : null;
}

/** Where a job's estimate came from, short: `profile x1.08 (12 runs)`, `default x1.25`, `-`. */
export function estimateSource(from: unknown): string {
  if (sourceOf(from) === null) return '-';
  const f = from as { source: string; factor?: unknown; runs?: unknown };
  const factor = typeof f.factor === 'number' ? ` x${f.factor.toFixed(2)}` : '';
  const runs = typeof f.runs === 'number' ? ` (${f.runs} runs)` : '';
  return `${f.source}${factor}${runs}`;
}

/** One row per job. */
export function jobsTable(jobs: readonly JobRecord[]): string {
  return markdown(
    [
      'phase',
      '#',
      'kind',
      'deadline s (x lone)',
      'lone s',
      'decision',
      'expected s',
      'estimate s',
      'actual s',
      'met',
      'sidecar',
      'past runs',
      'estimate from',
      'apps',
    ],
    jobs.map((j) => [
      j.phase,
      String(j.seq),
      j.kind,
      `${j.deadlineSeconds.toFixed(0)} (${j.deadlineFactor.toFixed(2)})`,
      sec(j.loneSeconds),
      j.decision === 'error' ? `error: ${j.error ?? ''}`.slice(0, 80) : j.decision,
      sec(j.expectedSeconds),
      sec(j.estimatedSeconds),
      sec(j.actualSeconds),
      j.met === null ? '-' : j.met ? 'yes' : 'NO',
      j.sidecarOutcome ?? '-',
      String(j.pastRuns),
      estimateSource(j.estimateFrom),
      j.apps.map((a) => a.finalStatus).join(',') || '-',
    ]),
  );
}

/** One row per named group of jobs (a stream, the warm-ups, all streams). */
export function summaryTable(groups: ReadonlyArray<{ name: string; summary: Summary }>): string {
  const err = (e: ErrorStats | null) =>
    e === null ? '-' : `${pct(e.median)} / ${pct(e.p90)} / ${pct(e.max)} (n=${e.n})`;
  return markdown(
    [
      'jobs',
      'n',
      'admitted',
      'missed among admitted',
      'underestimated',
      'failed',
      'abs(expected - act) / act: median / p90 / max',
      'same, recurring (3+ past runs)',
      'abs(bound - act) / act: median / p90 / max',
      'judged on a profile',
      'feasible alone admitted',
      'rejected but feasible alone',
      'on time one at a time, with hindsight',
    ],
    groups.map(({ name, summary: s }) => [
      name,
      String(s.jobs),
      `${s.admitted}${s.errors ? ` (+${s.errors} errors)` : ''}`,
      String(s.missedAmongAdmitted),
      String(s.underestimated),
      String(s.failed),
      err(s.relError),
      err(s.relErrorRecurring),
      err(s.boundRelError),
      String(s.judgedOnHistory),
      `${s.feasibleAloneAdmitted}/${s.feasibleAlone} (${pct(s.feasibleAdmittedShare)})`,
      String(s.rejectedFeasibleAlone),
      s.hindsightOnTime === null ? '-' : String(s.hindsightOnTime),
    ]),
  );
}
