import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  experimentParameters,
  settingProblem,
  type Experiment,
  type ExperimentParameter,
  type HeadlinePanel,
  type SettingValue,
} from './experiments';
import { writePlots } from './plot/render';
import { sweepChart } from './plot/specs';
import type { PolicyReport, SummaryFile } from './report';

/**
 * `simulate --experiment NAME --sweep PARAM=a,b,c`: the experiment built once per value of one
 * of its parameters (experimentParameters), each run over the usual seeds, and its headline
 * figures (Experiment.headline) against the parameter, beside the source papers' published figures.
 *
 *   sweep.json   per value: the settings and every policy's summary (as summary.json's)
 *   sweep.csv    one row per value: the value, then each headline figure and its sd
 *   sweep-PARAM.vl.json, .svg, .png   the headline figures against PARAM
 */

export interface SweepRequest {
  parameter: ExperimentParameter;
  values: SettingValue[];
}

/** Most values one sweep takes: each is a whole experiment run per seed. */
export const MAX_SWEEP_VALUES = 40;

function describe(p: ExperimentParameter): string {
  return p.kind === 'choice'
    ? `${p.name} (one of ${p.choices.join(', ')}; default ${p.default})`
    : `${p.name} (${p.integer ? 'whole number' : 'number'} in [${p.min}, ${p.max}]; default ${p.default})`;
}

/** The experiment's sweepable parameters, one per line, for usage errors and `--help`. */
export function parameterList(experiment: string): string {
  return experimentParameters(experiment)
    .map((p) => `  ${describe(p)}: ${p.description}`)
    .join('\n');
}

/**
 * Parses `PARAM=a,b,c` for `experiment`; throws RangeError with a usage message naming what is
 * wrong (format, unknown parameter with the known ones, a value of the wrong type or range, a
 * repeated value, too many values).
 */
export function parseSweep(experiment: string, text: string): SweepRequest {
  const params = experimentParameters(experiment);
  const m = /^\s*([A-Za-z][A-Za-z0-9]*)\s*=(.*)$/.exec(text);
  if (!m)
    throw new RangeError(
      `--sweep must be PARAM=a,b,c, e.g. --sweep ${params[0]?.name}=${params[0]?.default},...; ${experiment}'s parameters:\n${parameterList(experiment)}`,
    );
  const [, name, list] = m as unknown as [string, string, string];
  const parameter = params.find((p) => p.name === name);
  if (!parameter)
    throw new RangeError(
      `experiment ${experiment} has no parameter "${name}"; its parameters:\n${parameterList(experiment)}`,
    );
  const items = list.split(',').map((s) => s.trim());
  if (items.some((s) => s === ''))
    throw new RangeError(`--sweep ${name}: give one or more values separated by commas, none empty`);
  if (items.length > MAX_SWEEP_VALUES)
    throw new RangeError(`--sweep ${name}: at most ${MAX_SWEEP_VALUES} values, got ${items.length}`);
  const values: SettingValue[] = items.map((s) => {
    const v: SettingValue = parameter.kind === 'number' ? (/^[-+.\d]/.test(s) ? Number(s) : NaN) : s;
    const problem = settingProblem(parameter, Number.isNaN(v) ? s : v);
    if (problem) throw new RangeError(`--sweep: ${problem}`);
    return v;
  });
  const seen = new Set<SettingValue>();
  for (const v of values) {
    if (seen.has(v)) throw new RangeError(`--sweep ${name}: ${v} is given twice`);
    seen.add(v);
  }
  return { parameter, values };
}

/** One headline figure of one run: its mean, its sd over the seeds (policy figures only), and the paper's published value (`seed`, the name format version 1 keeps). */
export interface HeadlineFigure {
  panel: string;
  series: string;
  value: number | null;
  sd: number | null;
  seed: number | null;
}

export function headlineFigures(
  headline: readonly HeadlinePanel[],
  policies: Readonly<Record<string, PolicyReport>>,
): HeadlineFigure[] {
  return headline.flatMap((panel) =>
    panel.series.map((s) => {
      let value: number | null = null;
      let sd: number | null = null;
      if (s.of) value = s.of(policies as unknown as Record<string, Record<string, unknown>>);
      else if (s.policy && s.key) {
        const p = policies[s.policy];
        value = p?.[s.key] ?? null;
        sd = p?.sd[s.key] ?? null;
      }
      return {
        panel: panel.title,
        series: s.name,
        value: value === null || !Number.isFinite(value) ? null : value,
        sd,
        seed: s.seed ?? null,
      };
    }),
  );
}

export interface SweepRow {
  value: SettingValue;
  settings: Readonly<Record<string, SettingValue>>;
  headline: HeadlineFigure[];
  summary: SummaryFile;
}

export interface SweepFile {
  format: 'yarn-sched-sidecar-sim-sweep';
  version: 1;
  experiment: string;
  parameter: string;
  values: SettingValue[];
  seeds: number[];
  rows: SweepRow[];
}

export function sweepFile(
  experiment: Experiment,
  req: SweepRequest,
  seeds: number[],
  results: Array<{ experiment: Experiment; summary: SummaryFile }>,
): SweepFile {
  return {
    format: 'yarn-sched-sidecar-sim-sweep',
    version: 1,
    experiment: experiment.name,
    parameter: req.parameter.name,
    values: req.values,
    seeds,
    rows: results.map((r, i) => ({
      value: req.values[i] as SettingValue,
      settings: r.experiment.settings,
      headline: headlineFigures(r.experiment.headline, r.summary.policies),
      summary: r.summary,
    })),
  };
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'number' ? String(Math.round(v * 1e6) / 1e6) : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One row per swept value: the value, then per headline figure its mean and sd (`panel: series`, `... sd`). */
export function sweepCsv(file: SweepFile): string {
  const first = file.rows[0]?.headline ?? [];
  const head = [
    file.parameter,
    ...first.flatMap((h) => [`${h.panel}: ${h.series}`, `${h.panel}: ${h.series} sd`]),
  ];
  const lines = [head.map(cell).join(',')];
  for (const r of file.rows)
    lines.push([r.value, ...r.headline.flatMap((h) => [h.value, h.sd])].map(cell).join(','));
  return lines.join('\n') + '\n';
}

/** The sweep's plot: each headline panel against the parameter, the papers' figures as reference lines. */
export function sweepPlot(
  file: SweepFile,
  headline: readonly HeadlinePanel[],
  parameter: ExperimentParameter,
) {
  const seedNote =
    file.seeds.length > 1
      ? `mean of ${file.seeds.length} seeds (${file.seeds.join(', ')}), whiskers +/- 1 sd; dashed: the paper's figure`
      : `seed ${file.seeds[0]}; dashed: the paper's figure`;
  return sweepChart({
    title: `${file.experiment}: headline figures against ${parameter.name}`,
    subtitle: `${seedNote}; default ${parameter.name} = ${parameter.default}`,
    xLabel: parameter.name,
    x: file.values,
    panels: headline.map((panel) => ({
      title: panel.title,
      yLabel: panel.yLabel,
      ...(panel.percent ? { percent: true } : {}),
      series: panel.series.map((s) => {
        const figs = file.rows.map(
          (r) => r.headline.find((h) => h.panel === panel.title && h.series === s.name) as HeadlineFigure,
        );
        return {
          name: s.name,
          values: figs.map((f) => f.value),
          errors: figs.map((f) => f.sd),
          ...(s.seed === undefined ? {} : { seed: s.seed }),
        };
      }),
    })),
  });
}

/** Writes sweep.json, sweep.csv and the plot; returns the file names written. */
export async function writeSweep(
  dir: string,
  file: SweepFile,
  headline: readonly HeadlinePanel[],
  parameter: ExperimentParameter,
  options: { png?: boolean } = {},
): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'sweep.json'), JSON.stringify(file, null, 2) + '\n');
  writeFileSync(join(dir, 'sweep.csv'), sweepCsv(file));
  const plots = await writePlots(
    dir,
    [{ name: `sweep-${parameter.name}`, spec: sweepPlot(file, headline, parameter) }],
    {
      png: options.png ?? true,
    },
  );
  return ['sweep.json', 'sweep.csv', ...plots];
}
