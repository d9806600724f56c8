import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writePlots, type Plot } from '../sim/plot/render';
import { barChart, ganttChart } from '../sim/plot/specs';
import { taskCount, type HistoryJob } from './history';
import { AS_RAN, type ReplayJobRow, type ReplayReport, type ReplayResult } from './replay';

/**
 * What `replay` writes to its output folder (docs/replay.md, "Output"):
 *   replay.json   the report: window, jobs read and left out, clock skew, cluster, deadlines,
 *                 fidelity of the as-ran run, and per policy admitted, rejected, met, missed,
 *                 utilisation
 *   jobs.csv      one row per job: what it was, and per policy its decision, estimate, finish,
 *                 met or missed, earliest feasible deadline when rejected
 *   jobs.jsonl    the same rows as JSON, one a line
 *   sls.json      the history as a Scheduler Load Simulator trace (SLS JSON), for Hadoop's SLS
 *   rumen.json    its MapReduce jobs as a Rumen trace (LoggedJob objects), likewise
 *   policies, fidelity (and, up to 400 jobs, gantt-as-ran and gantt-rtmr): .vl.json, .svg, .png
 * Files are written as the rows come: a history of 100,000 jobs is never held as text whole.
 */

/** Lines written to a file a chunk at a time. */
class LineFile {
  private readonly fd: number;
  private buf: string[] = [];
  private size = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  line(text: string): void {
    this.buf.push(text);
    this.size += text.length;
    if (this.size > 1 << 20) this.flush();
  }

  flush(): void {
    if (this.buf.length === 0) return;
    writeSync(this.fd, this.buf.join('\n') + '\n');
    this.buf = [];
    this.size = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'number' ? String(Math.round(v * 1000) / 1000) : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const POLICY_COLUMNS = ['decision', 'estimate', 'finish', 'met', 'earliestDeadline', 'reason'] as const;

/** The CSV's header: the job's columns, then each policy's. */
export function csvHeader(labels: readonly string[]): string {
  return [
    'job',
    'name',
    'user',
    'queue',
    'source',
    'submit',
    'realSeconds',
    'deadlineSeconds',
    'deadlineSource',
    'realMet',
    'estimateAloneSeconds',
    'estimateFrom',
    ...labels.flatMap((l) => POLICY_COLUMNS.map((c) => `${l}.${c}`)),
  ].join(',');
}

/** One job's CSV row. */
export function csvRow(r: ReplayJobRow, labels: readonly string[]): string {
  return [
    r.id,
    r.name,
    r.user,
    r.queue,
    r.source,
    r.submit,
    r.realSeconds,
    r.deadlineSeconds,
    r.deadlineSource,
    r.realMet,
    r.estimateAloneSeconds,
    r.estimateFrom,
    ...labels.flatMap((l) => {
      const p = r.policies[l];
      return p
        ? [p.decision, p.estimateSeconds, p.finishSeconds, p.met, p.earliestDeadlineSeconds, p.reason]
        : POLICY_COLUMNS.map(() => null);
    }),
  ]
    .map(csvCell)
    .join(',');
}

/** One job as an SLS JSON job (times in ms from the first submission). */
export function slsJob(j: HistoryJob, originMs: number): Record<string, unknown> {
  const tasks: Array<Record<string, unknown>> = [];
  const add = (times: readonly number[], type: 'map' | 'reduce') => {
    for (let i = 0; i < times.length; i += 2)
      tasks.push({
        'container.host': '/default-rack/node',
        'container.start.ms': (times[i] as number) - originMs,
        'container.end.ms': (times[i + 1] as number) - originMs,
        'container.priority': type === 'map' ? 20 : 10,
        'container.type': type,
      });
  };
  add(j.maps, 'map');
  add(j.reduces, 'reduce');
  return {
    'am.type': j.source === 'jobhistory' ? 'mapreduce' : 'stream',
    'job.start.ms': j.submitMs - originMs,
    'job.end.ms': j.finishMs - originMs,
    'job.queue.name': j.queue,
    'job.id': j.id,
    'job.user': j.user,
    'job.tasks': tasks,
  };
}

/** One MapReduce job as a Rumen LoggedJob (epoch ms, as Rumen records them). */
export function rumenJob(j: HistoryJob): Record<string, unknown> {
  const suffix = j.id.replace(/^job_/, '');
  const tasks = (times: readonly number[], type: 'MAP' | 'REDUCE', bytes: readonly number[] | null) => {
    const out: Array<Record<string, unknown>> = [];
    for (let i = 0; i < times.length; i += 2) {
      const k = i / 2;
      const taskID = `task_${suffix}_${type === 'MAP' ? 'm' : 'r'}_${String(k).padStart(6, '0')}`;
      out.push({
        taskID,
        taskType: type,
        taskStatus: 'SUCCESS',
        startTime: times[i],
        finishTime: times[i + 1],
        ...(bytes ? { inputBytes: bytes[k] ?? 0 } : {}),
        attempts: [
          {
            attemptID: `attempt_${taskID.slice('task_'.length)}_0`,
            result: 'SUCCESS',
            startTime: times[i],
            finishTime: times[i + 1],
          },
        ],
      });
    }
    return out;
  };
  return {
    jobID: j.id,
    jobName: j.name,
    user: j.user,
    queue: j.queue,
    submitTime: j.submitMs,
    launchTime: j.appStartMs ?? j.submitMs,
    finishTime: j.finishMs,
    outcome: 'SUCCESS',
    jobtype: 'JAVA',
    totalMaps: taskCount(j.maps),
    totalReduces: taskCount(j.reduces),
    mapTasks: tasks(j.maps, 'MAP', j.mapBytes),
    reduceTasks: tasks(j.reduces, 'REDUCE', null),
    otherTasks: [],
  };
}

/** The plots: per policy, the fidelity buckets, and Gantt views of a small history. */
export function replayPlots(result: ReplayResult): Plot[] {
  const { report } = result;
  const labels = Object.keys(report.policies);
  const p = (l: string) => report.policies[l]!;
  const window = `${report.window.from} to ${report.window.to}, ${report.jobs} jobs`;
  const out: Plot[] = [
    {
      name: 'policies',
      spec: barChart({
        title: 'Replay of the history: jobs admitted, met and missed per policy',
        subtitle: `${window}; ${AS_RAN}: FIFO as the jobs really ran, no admission`,
        groups: ['admitted', 'rejected', 'met', 'missed'],
        series: labels.map((l) => ({
          name: l,
          values: [p(l).admitted, p(l).rejected, p(l).met, p(l).missed],
        })),
        yLabel: 'jobs',
      }),
    },
    {
      name: 'utilisation',
      spec: barChart({
        title: 'Replay of the history: accept ratio, success ratio and utilisation per policy',
        subtitle: window,
        groups: ['accept ratio', 'success ratio', 'utilisation'],
        series: labels.map((l) => ({
          name: l,
          values: [p(l).acceptRatio, p(l).successRatio, p(l).utilization],
        })),
        yLabel: 'share (%)',
        percent: true,
      }),
    },
    {
      name: 'fidelity',
      spec: barChart({
        title: 'Fidelity: each job\u2019s simulated finish against its real one (as-ran)',
        subtitle: `|simulated - real| / real duration, ${report.fidelity.jobs} jobs; median ${pct(report.fidelity.medianAbsError)}, p90 ${pct(report.fidelity.p90AbsError)}`,
        groups: ['share of jobs'],
        series: report.fidelity.buckets.map((b) => ({ name: b.label, values: [b.share] })),
        yLabel: 'share of jobs (%)',
        percent: true,
        seriesTitle: '|error|',
      }),
    },
  ];
  for (const r of result.smallRuns)
    out.push({
      name: `gantt-${r.spec.label}`,
      spec: ganttChart(
        `Replay / ${r.spec.label}: each job's wait, run and deadline`,
        r.outcomes.map((o) => ({
          id: o.id,
          arrival: o.arrival,
          absDeadline: o.absDeadline,
          start: o.start,
          finish: o.finish,
          status: o.status,
        })),
        window,
      ),
    });
  return out;
}

function pct(x: number | null): string {
  return x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`;
}

/** Writes the folder (see the module's comment); returns the files written. */
export async function writeReplay(
  dir: string,
  result: ReplayResult,
  history: readonly HistoryJob[],
  options: { png?: boolean; plots?: boolean } = {},
): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  const open = (name: string) => {
    files.push(name);
    return new LineFile(join(dir, name));
  };
  const json = open('replay.json');
  json.line(JSON.stringify(result.report, null, 2));
  json.close();
  const labels = Object.keys(result.report.policies);
  const csv = open('jobs.csv');
  const jsonl = open('jobs.jsonl');
  csv.line(csvHeader(labels));
  for (const row of result.rows()) {
    csv.line(csvRow(row, labels));
    jsonl.line(JSON.stringify(row));
  }
  csv.close();
  jsonl.close();
  const sls = open('sls.json');
  const rumen = open('rumen.json');
  const origin = result.workload.originMs;
  for (const j of history) {
    sls.line(JSON.stringify(slsJob(j, origin)));
    if (j.source === 'jobhistory') rumen.line(JSON.stringify(rumenJob(j), null, 1));
  }
  sls.close();
  rumen.close();
  if (options.plots !== false)
    files.push(...(await writePlots(dir, replayPlots(result), { png: options.png ?? true })));
  return files;
}

/** The report's policy table as text (the CLI prints it). */
export function policyTable(report: ReplayReport): string {
  const head = ['policy', 'admitted', 'rejected', 'met', 'missed', 'utilisation'];
  const rows = Object.entries(report.policies).map(([l, f]) => [
    l,
    String(f.admitted),
    String(f.rejected),
    String(f.met),
    String(f.missed),
    f.utilization === null ? 'n/a' : `${(f.utilization * 100).toFixed(1)} %`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** The fidelity in one sentence. */
export function fidelityText(report: ReplayReport): string {
  const f = report.fidelity;
  if (f.jobs === 0) return 'fidelity: no job finished in the as-ran run';
  return (
    `fidelity (as-ran vs real, ${f.jobs} jobs): median |error| ${pct(f.medianAbsError)}` +
    ` (signed ${pct(f.medianError)}), p90 ${pct(f.p90AbsError)}, max ${pct(f.maxAbsError)},` +
    ` ${pct(f.within10)} of jobs within 10 %`
  );
}
