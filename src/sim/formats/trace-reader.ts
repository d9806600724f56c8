import { readFileSync } from 'node:fs';
import { MAX_TRACE_ISSUES, TraceInvalidError } from '../../errors/trace-invalid';
import type { ValidationIssue } from '../../errors/validation';
import type { ClusterSpec, TraceJob } from '../model';
import { JsonObjectScanner, readTextChunks, type ScanProblem } from './json-stream';
import { type RecordResult } from './record';
import { rumenRecord } from './rumen';
import { slsRecord } from './sls';
import { parseSynthSpec, synthJobs } from './synth';
import { traceLine } from './trace-file';

/**
 * One entry point for every trace format `simulate` reads (docs/simulator.md, "Trace formats"):
 *
 * - `jsonl`: ours, one job per line (trace-file.ts);
 * - `sls`: SLS's JSON job objects (inputsls.json, sls_dag.json; sls.ts);
 * - `rumen`: Rumen job histories (SLS's 2jobs2min-rumen-jh.json; rumen.ts);
 * - `synth`: SLS's synthetic-load description (syn.json, syn_generic.json; synth.ts).
 *
 * Files are read in chunks and each record (line, job object) is converted as soon as it is
 * complete, so memory holds the jobs, never the file: a 10 GB Rumen history whose job objects
 * are mostly counters and configuration keeps a few numbers per task. (A synthetic-load file is
 * a small description and is read whole.) Time is linear in the file's size.
 *
 * A bad record is a TraceInvalidError naming file, line and field; all records are read first,
 * so one run reports every bad record (the first MAX_TRACE_ISSUES problems, and how many
 * records were bad). With `skipBad`, bad records are left out and counted instead.
 */
export const TRACE_FORMATS = ['jsonl', 'sls', 'rumen', 'synth'] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

export interface TraceReadOptions {
  format?: TraceFormat | 'auto';
  skipBad?: boolean;
  /** SLS and Rumen record no deadline: deadline = factor x the job's recorded duration. */
  deadlineFactor?: number | null;
  bytesPerMap?: number;
  /** For cross-checks of JSON Lines jobs (labels of gpu jobs). */
  cluster?: ClusterSpec | null;
}

export interface TraceRead {
  format: TraceFormat;
  /** The jobs for a run's seed (the same for every seed but for synthetic load, which is drawn). */
  jobs: (seed: number) => TraceJob[];
  /** Records left out with skipBad, and the first problems of those. */
  skipped: { records: number; issues: ValidationIssue[] };
}

/** Names the format from the start of a file (its first 64 KiB suffice). */
export function detectFormat(head: string): TraceFormat {
  const firstLine =
    head
      .replace(/^\uFEFF/, '')
      .trimStart()
      .split('\n', 1)[0] ?? '';
  try {
    const v = JSON.parse(firstLine) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      if ('job.tasks' in v || 'num.nodes' in v) return 'sls';
      if ('jobID' in v) return 'rumen';
      if ('workloads' in v && 'num_jobs' in v) return 'synth';
      return 'jsonl';
    }
  } catch {
    // Not a one-line object: a pretty-printed stream, or a bad JSON Lines file.
  }
  if (/"job\.tasks"\s*:|"num\.nodes"\s*:|"job\.start\.ms"\s*:/.test(head)) return 'sls';
  if (/"jobID"\s*:|"mapTasks"\s*:/.test(head)) return 'rumen';
  if (/"workloads"\s*:/.test(head) && /"num_jobs"\s*:/.test(head)) return 'synth';
  return 'jsonl';
}

class Collector {
  readonly jobs: TraceJob[] = [];
  readonly issues: ValidationIssue[] = [];
  bad = 0;
  private readonly seen = new Map<string, number>();

  constructor(
    readonly file: string,
    readonly skipBad: boolean,
  ) {}

  record(line: number, r: RecordResult): void {
    if (!r.ok) return this.fault(r.problems.map((p) => ({ ...p, file: this.file, line })));
    for (const job of r.jobs) {
      const prev = this.seen.get(job.id);
      if (prev !== undefined) {
        this.fault([
          {
            path: 'id',
            message: `duplicate job id ${job.id} (first on line ${prev})`,
            file: this.file,
            line,
          },
        ]);
        continue;
      }
      this.seen.set(job.id, line);
      this.jobs.push(job);
    }
  }

  scanProblem(p: ScanProblem): void {
    const message =
      p.kind === 'stray'
        ? 'text outside a JSON object'
        : p.kind === 'unclosed'
          ? 'a JSON object that the file ends inside (unclosed)'
          : `a JSON object of ${p.chars} characters, more than one record may hold`;
    this.fault([{ path: '(syntax)', message, file: this.file, line: p.line }]);
  }

  fault(issues: ValidationIssue[]): void {
    this.bad++;
    for (const i of issues) if (this.issues.length < MAX_TRACE_ISSUES) this.issues.push(i);
  }
}

function finish(c: Collector, format: TraceFormat): TraceRead {
  if (c.bad > 0 && !c.skipBad) throw new TraceInvalidError({ format, badRecords: c.bad, issues: c.issues });
  if (c.jobs.length === 0)
    throw new TraceInvalidError({
      format,
      badRecords: c.bad,
      issues: [...c.issues, { path: 'jobs', message: 'the trace has no jobs', file: c.file, line: 1 }],
    });
  if (format === 'rumen') {
    // Rumen times are epoch ms: the replay starts at the earliest submission, as SLS's does.
    let t0 = Infinity;
    for (const j of c.jobs) t0 = Math.min(t0, j.arrival);
    for (const j of c.jobs) j.arrival = (j.arrival - t0) / 1000;
  }
  const jobs = c.jobs;
  return {
    format,
    jobs: () => jobs,
    skipped: { records: c.skipBad ? c.bad : 0, issues: c.skipBad ? c.issues : [] },
  };
}

/** Feeds text chunks of a trace to the reader of its format. */
function readChunks(
  feed: (onChunk: (text: string) => void) => void,
  file: string,
  format: Exclude<TraceFormat, 'synth'>,
  options: TraceReadOptions,
): TraceRead {
  const c = new Collector(file, options.skipBad ?? false);
  if (format === 'jsonl') {
    let carry = '';
    let line = 0;
    let first = true;
    const onLine = (raw: string): void => {
      line++;
      const text = raw.trim();
      if (text === '') return;
      const r = traceLine(text, first, options.cluster ?? null);
      first = false;
      if (r.kind === 'header') {
        if (r.problems.length) c.record(line, { ok: false, problems: r.problems });
      } else if (r.kind === 'bad' || r.problems.length) c.record(line, { ok: false, problems: r.problems });
      else c.record(line, { ok: true, jobs: [r.job] });
    };
    feed((chunk) => {
      const parts = (carry + chunk).split('\n');
      carry = parts.pop() ?? '';
      for (const p of parts) onLine(p);
    });
    if (carry !== '') onLine(carry);
    return finish(c, format);
  }
  const scanner = new JsonObjectScanner();
  let autoId = 0;
  const nextId = (): number => autoId++;
  const onObject = (o: { text: string; line: number }): void => {
    let value: unknown;
    try {
      value = JSON.parse(o.text);
    } catch (e) {
      c.record(o.line, {
        ok: false,
        problems: [{ path: '(syntax)', message: `not valid JSON: ${(e as Error).message}` }],
      });
      return;
    }
    c.record(o.line, format === 'sls' ? slsRecord(value, options, nextId) : rumenRecord(value, options));
  };
  const onProblem = (p: ScanProblem): void => c.scanProblem(p);
  feed((chunk) => scanner.push(chunk, onObject, onProblem));
  scanner.end(onProblem);
  return finish(c, format);
}

function readSynth(text: string, file: string): TraceRead {
  const { spec, issues } = parseSynthSpec(text, file);
  if (!spec)
    throw new TraceInvalidError({
      format: 'synth',
      badRecords: 1,
      issues: issues.slice(0, MAX_TRACE_ISSUES),
    });
  return { format: 'synth', jobs: (seed) => synthJobs(spec, seed), skipped: { records: 0, issues: [] } };
}

/** Reads a trace file of any format, streaming it. */
export function readTraceFile(file: string, options: TraceReadOptions = {}): TraceRead {
  let format = options.format ?? 'auto';
  if (format === 'auto') {
    let head = '';
    try {
      readTextChunks(
        file,
        (t) => {
          if (head === '') head = t;
        },
        64 * 1024,
      );
    } catch (e) {
      throw new TraceInvalidError(
        { format: 'auto', badRecords: 0, issues: [{ path: '(file)', message: (e as Error).message, file }] },
        { cause: e },
      );
    }
    format = detectFormat(head);
  }
  if (format === 'synth') return readSynth(readFileSync(file, 'utf8'), file);
  return readChunks((onChunk) => readTextChunks(file, onChunk), file, format, options);
}

/** Reads a trace held as text (tests, small inputs). */
export function readTraceText(text: string, file: string, options: TraceReadOptions = {}): TraceRead {
  const format =
    options.format === undefined || options.format === 'auto'
      ? detectFormat(text.slice(0, 65536))
      : options.format;
  if (format === 'synth') return readSynth(text, file);
  return readChunks((onChunk) => onChunk(text), file, format, options);
}

/** An SLS text's jobs (the earlier reader's interface). */
export function parseSlsTrace(
  text: string,
  file: string,
  options: { deadlineFactor?: number | null; bytesPerMap?: number } = {},
): TraceJob[] {
  return readTraceText(text, file, { ...options, format: 'sls' }).jobs(0);
}
