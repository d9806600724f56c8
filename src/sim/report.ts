import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from './driver';
import { meanSd, type PolicySummary, type TenantSummary } from './metrics';
import { writePlots, type Plot } from './plot/render';
import { barChart, ganttChart, lineChart } from './plot/specs';

/**
 * What `simulate` writes to its output directory:
 *   summary.json   per policy label: the metrics (mean over seeds) and their spread
 *   jobs.csv       one row per job, policy and seed
 *   NAME.vl.json, NAME.svg, NAME.png   each plot's Vega-Lite spec and its renderings (docs/simulator.md lists them)
 */

export const SUMMARY_KEYS = [
  'acceptRatio',
  'successRatio',
  'utilization',
  'jobs',
  'accepted',
  'succeeded',
  'makespanSeconds',
  'meanMapResponseSeconds',
  'localityRate',
  'energyKWh',
] as const;

export type SummaryKey = (typeof SUMMARY_KEYS)[number];

export interface PolicyReport extends Record<SummaryKey, number | null> {
  taskEnergyKWh: number | null;
  meanTurnaroundSeconds: number | null;
  missed: number | null;
  /** With another tenant: the means over the seeds of what metrics.ts's TenantSummary counts. */
  tenant?: Record<keyof TenantSummary, number>;
  /** Sample standard deviation of each figure over the seeds (0 with one seed). */
  sd: Partial<Record<SummaryKey | 'taskEnergyKWh' | 'meanTurnaroundSeconds', number>>;
  runs: number;
}

export interface SummaryFile {
  format: 'yarn-sched-sidecar-sim-summary';
  version: 1;
  experiment: string;
  seeds: number[];
  policies: Record<string, PolicyReport>;
}

const AGG_KEYS = [...SUMMARY_KEYS, 'taskEnergyKWh', 'meanTurnaroundSeconds', 'missed'] as const;

/** Mean and spread over seeds, per policy label, in the order the policies ran. */
export function aggregate(experiment: string, seeds: number[], runs: RunResult[][]): SummaryFile {
  const labels = runs[0]?.map((r) => r.spec.label) ?? [];
  const policies: Record<string, PolicyReport> = {};
  for (const label of labels) {
    const per = runs.map((rs) => (rs.find((r) => r.spec.label === label) as RunResult).summary);
    const report: Partial<PolicyReport> = { sd: {}, runs: per.length };
    for (const k of AGG_KEYS) {
      const ms = meanSd(per.map((s) => (s as unknown as Record<string, number | null>)[k] ?? null));
      (report as Record<string, unknown>)[k] = ms ? round(ms.mean) : null;
      if (ms && k !== 'missed') (report.sd as Record<string, number>)[k] = round(ms.sd);
    }
    const tenants = per.map((s) => s.tenant).filter((t): t is TenantSummary => t !== undefined);
    if (tenants.length > 0) {
      const mean = (k: keyof TenantSummary) => round(tenants.reduce((a, t) => a + t[k], 0) / tenants.length);
      report.tenant = {
        preempted: mean('preempted'),
        borrowedContainerSeconds: mean('borrowedContainerSeconds'),
        rejectedNamingSharing: mean('rejectedNamingSharing'),
      };
    }
    policies[label] = report as PolicyReport;
  }
  return { format: 'yarn-sched-sidecar-sim-summary', version: 1, experiment, seeds, policies };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'number' ? String(round(v)) : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function jobsCsv(seeds: number[], runs: RunResult[][]): string {
  const head = [
    'seed',
    'policy',
    'job',
    'arrival',
    'deadline',
    'absDeadline',
    'maps',
    'reduces',
    'type',
    'class',
    'user',
    'status',
    'admitted',
    'estimatedFinish',
    'start',
    'finish',
    'metDeadline',
    'slotSeconds',
    'localMaps',
    'reason',
  ];
  const lines = [head.join(',')];
  runs.forEach((rs, i) => {
    for (const r of rs) {
      for (const o of r.outcomes) {
        lines.push(
          [
            seeds[i],
            r.spec.label,
            o.id,
            o.arrival,
            o.deadline,
            o.absDeadline,
            o.maps,
            o.reduces,
            o.type,
            o.workloadClass,
            o.user,
            o.status,
            o.admitted,
            o.estimatedFinish,
            o.start,
            o.finish,
            o.metDeadline,
            o.slotSeconds,
            o.localMaps,
            o.reason,
          ]
            .map(csvCell)
            .join(','),
        );
      }
    }
  });
  return lines.join('\n') + '\n';
}

export interface PlotOptions {
  /** For experiments that sweep a parameter (locality: D), its values by label. */
  sweep?: { parameter: string; values: number[] };
}

/** Builds every plot as its name and Vega-Lite spec. */
export function plots(summary: SummaryFile, runs: RunResult[][], options: PlotOptions = {}): Plot[] {
  const labels = Object.keys(summary.policies);
  const p = (l: string) => summary.policies[l] as PolicyReport;
  const at: PlotContext = {
    summary,
    labels,
    p,
    perPolicy: (keys) =>
      labels.map((l) => ({
        name: l,
        values: keys.map((k) => p(l)[k]),
        errors: keys.map((k) => p(l).sd[k] ?? null),
      })),
    seedNote:
      summary.seeds.length > 1
        ? `mean of ${summary.seeds.length} seeds (${summary.seeds.join(', ')}), whiskers +/- 1 sd`
        : `seed ${summary.seeds[0]}`,
  };
  return [
    ...admissionPlots(at),
    ...(options.sweep ? sweepPlots(at, options.sweep) : [localityPlot(at)]),
    ...energyPlots(at),
    // A sweep draws these against its parameter instead (one bar per swept value repeats colours).
    ...(options.sweep ? [] : [turnaroundPlot(at)]),
    ...ganttPlots(summary, runs, options),
  ];
}

/** What the plots of one summary share: its policies, their figures and the seeds' note. */
interface PlotContext {
  summary: SummaryFile;
  labels: string[];
  p: (label: string) => PolicyReport;
  /** One bar series per policy: the figures `keys` (one panel each) with their spread over the seeds. */
  perPolicy: (keys: Array<SummaryKey | 'taskEnergyKWh' | 'meanTurnaroundSeconds'>) => Array<{
    name: string;
    values: Array<number | null>;
    errors: Array<number | null>;
  }>;
  seedNote: string;
}

/** Accept, success and utilisation per policy, when some policy rejected or missed a job. */
function admissionPlots({ summary, labels, p, perPolicy, seedNote }: PlotContext): Plot[] {
  const hasAdmission = labels.some((l) => p(l).acceptRatio !== null && (p(l).acceptRatio as number) < 1);
  if (!hasAdmission && !labels.some((l) => p(l).successRatio !== null && (p(l).successRatio as number) < 1))
    return [];
  return [
    {
      name: 'admission',
      spec: barChart({
        title: `${summary.experiment}: accept, success and utilisation per policy`,
        subtitle: seedNote,
        groups: ['accept ratio', 'success ratio', 'utilisation'],
        series: perPolicy(['acceptRatio', 'successRatio', 'utilization']),
        yLabel: 'share (%)',
        percent: true,
      }),
    },
  ];
}

/**
 * A sweep's figures against its parameter: locality, map response, job turnaround and makespan.
 * The policies labelled `NAME:D=v` are one line each NAME; the others flat lines.
 */
function sweepPlots(
  { summary, labels, p, seedNote }: PlotContext,
  { parameter, values }: NonNullable<PlotOptions['sweep']>,
): Plot[] {
  const swept = new Map<string, Array<string>>();
  const flat: string[] = [];
  for (const l of labels) {
    const m = l.match(/^(.*):D=([\d.]+)$/);
    if (m) swept.set(m[1] as string, [...(swept.get(m[1] as string) ?? []), l]);
    else flat.push(l);
  }
  const series = (k: SummaryKey | 'meanTurnaroundSeconds') => [
    ...[...swept.entries()].map(([name, ls]) => ({
      name,
      values: values.map((v) => p(ls.find((x) => x.endsWith(`=${v}`)) as string)[k]),
    })),
    ...flat.map((l) => ({ name: l, values: values.map(() => p(l)[k]), flat: true })),
  ];
  const axis = {
    xLabel: `maximum delay ${parameter} (s, log scale)`,
    x: values,
    logX: true,
    kinds: {
      varying: `delay scheduling, varies with ${parameter}`,
      flat: `without ${parameter} (constant)`,
    },
  };
  const line = (name: string, figure: string, yLabel: string, key: SummaryKey | 'meanTurnaroundSeconds') => ({
    name,
    spec: lineChart({
      title: `${summary.experiment}: ${figure} against the delay ${parameter}`,
      subtitle: seedNote,
      yLabel,
      ...axis,
      series: series(key),
      ...(key === 'localityRate' ? { percent: true } : {}),
    }),
  });
  return [
    line('locality-vs-d', 'data locality rate', 'local map tasks / all map tasks (%)', 'localityRate'),
    line(
      'map-response-vs-d',
      'mean map task response time',
      'mean map finish - job arrival (s)',
      'meanMapResponseSeconds',
    ),
    line(
      'turnaround-vs-d',
      'mean job turnaround',
      'mean job finish - job arrival (s)',
      'meanTurnaroundSeconds',
    ),
    line(
      'makespan-vs-d',
      'workload turnaround (makespan)',
      'last finish - first arrival (s)',
      'makespanSeconds',
    ),
  ];
}

/** The data locality rate per policy (without a sweep). */
function localityPlot({ summary, perPolicy, seedNote }: PlotContext): Plot {
  return {
    name: 'locality',
    spec: barChart({
      title: `${summary.experiment}: data locality rate per policy`,
      subtitle: seedNote,
      groups: ['locality rate'],
      series: perPolicy(['localityRate']),
      yLabel: 'local map tasks / all map tasks (%)',
      percent: true,
    }),
  };
}

/** Total and task energy per policy, when the cluster has a power model. */
function energyPlots({ summary, labels, p, perPolicy, seedNote }: PlotContext): Plot[] {
  if (!labels.some((l) => p(l).energyKWh !== null)) return [];
  return [
    {
      name: 'energy',
      spec: barChart({
        title: `${summary.experiment}: energy per policy`,
        subtitle: seedNote,
        groups: ['total energy', 'task energy (no idle power)'],
        series: perPolicy(['energyKWh', 'taskEnergyKWh']),
        yLabel: 'energy (kWh)',
        independentScales: true,
      }),
    },
  ];
}

/** Makespan and mean job turnaround per policy. */
function turnaroundPlot({ summary, perPolicy, seedNote }: PlotContext): Plot {
  return {
    name: 'turnaround',
    spec: barChart({
      title: `${summary.experiment}: workload turnaround (makespan) and mean job turnaround`,
      subtitle: seedNote,
      groups: ['makespan', 'mean job turnaround'],
      series: perPolicy(['makespanSeconds', 'meanTurnaroundSeconds']),
      yLabel: 'time (s)',
      independentScales: true,
    }),
  };
}

/** Gantt views of the first seed, one per policy (a sweep's policies without deadlines left out). */
function ganttPlots(summary: SummaryFile, runs: RunResult[][], options: PlotOptions): Plot[] {
  const out: Plot[] = [];
  for (const r of runs[0] ?? []) {
    if (r.outcomes.every((o) => o.absDeadline === null) && options.sweep && /:D=/.test(r.spec.label))
      continue;
    out.push({
      name: `gantt-${r.spec.label.replace(/[^a-zA-Z0-9.-]+/g, '_')}`,
      spec: ganttChart(
        `${summary.experiment} / ${r.spec.label}: each job's wait, run and deadline`,
        r.outcomes.map((o) => ({
          id: o.id,
          arrival: o.arrival,
          absDeadline: o.absDeadline,
          start: o.start,
          finish: o.finish,
          status: o.status,
        })),
        `seed ${summary.seeds[0]}`,
      ),
    });
  }
  return out;
}

/** Writes summary.json, jobs.csv and the plots (spec, SVG and, unless png is false, PNG); returns the files written. */
export async function writeReport(
  dir: string,
  summary: SummaryFile,
  runs: RunResult[][],
  options: PlotOptions & { png?: boolean } = {},
): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  const put = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    files.push(name);
  };
  put('summary.json', JSON.stringify(summary, null, 2) + '\n');
  put('jobs.csv', jobsCsv(summary.seeds, runs));
  files.push(...(await writePlots(dir, plots(summary, runs, options), { png: options.png ?? true })));
  return files;
}

export type { PolicySummary };
