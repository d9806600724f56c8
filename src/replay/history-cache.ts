import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * The history read from a JobHistory server, kept on disk (docs/replay.md, "The history
 * cache"): what a job's listing does not say (its tasks' times, its counters, or that it has no
 * task or no history left), so that a second replay of the same window, or one resumed after
 * Ctrl-C or a crash mid-read, reads only the jobs it has not read yet. The listings themselves
 * are read again every time (a window may have gained jobs); a job's details never change once
 * it has finished.
 *
 * Layout: `DIR/jhs-<hash of the server's address>/<YYYY-MM-DD>.jsonl`, a file per server and
 * UTC day of the jobs' start, so a window reads the files of its days alone and memory holds at
 * most two days of them. A file's first line names its format, version, server and day; then
 * a job a line, written as soon as it is read (an interrupted run keeps every job it finished):
 *
 *   {"id":"job_…","b":BASE,"m":[start-BASE,finish-BASE,…],"r":[…],"in":BYTES,"sh":BYTES|null,"mb":[…]|null}
 *   {"id":"job_…","left":"no-tasks"|"history-deleted"}
 *
 * A last line cut short (a crash while writing it) is dropped. A file of another format,
 * version, server or day, or with a line that is not a job, is set aside (renamed `*.corrupt`)
 * with a warning, and its jobs are read again from the server. Invalidation: a job's details are
 * taken as final; delete the folder (or give --no-cache) to read everything again.
 */

/** What the JobHistory server says of a job beyond its listing. */
export interface JobDetail {
  /** Each successful map's start and finish (ms), in task order. */
  readonly maps: readonly number[];
  readonly reduces: readonly number[];
  /** The maps' HDFS_BYTES_READ (job counter), 0 when unknown. */
  readonly inputBytes: number;
  /** REDUCE_SHUFFLE_BYTES, null when unknown. */
  readonly shuffleBytes: number | null;
  /** Each map's own HDFS_BYTES_READ (`--task-counters`), else null. */
  readonly mapBytes: readonly number[] | null;
}

/** A job's details, or why it has none to replay. */
export type DetailOrLeft = JobDetail | 'no-tasks' | 'history-deleted';

/** Where a reader keeps and finds job details (the file cache, or none). */
export interface HistoryCache {
  /** The job's details when kept (with each map's bytes when `taskCounters`), else undefined. */
  get(jobId: string, startMs: number, taskCounters: boolean): DetailOrLeft | undefined;
  put(jobId: string, startMs: number, detail: DetailOrLeft): void;
  close(): void;
}

export const CACHE_FORMAT = 'yarn-sched-sidecar-history-cache';
export const CACHE_VERSION = 1;

interface Header {
  readonly format: string;
  readonly version: number;
  readonly server: string;
  readonly day: string;
}

const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** A server's address as the cache knows it: without blanks or a trailing slash. */
const serverKey = (server: string): string => server.trim().replace(/\/+$/, '');

/** The folder of a server's files: its address, hashed. */
export function serverFolder(server: string): string {
  return `jhs-${createHash('sha256').update(serverKey(server)).digest('hex').slice(0, 16)}`;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isNums = (v: unknown): v is number[] => Array.isArray(v) && v.every(isNum);

/** A line as a job's details, or a reason it is not one. */
function parseLine(line: string): { id: string; detail: DetailOrLeft } | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  if (typeof v !== 'object' || v === null || typeof (v as { id?: unknown }).id !== 'string')
    return 'no job id';
  const o = v as Record<string, unknown>;
  const id = o.id as string;
  const left = o.left;
  if (left === 'no-tasks' || left === 'history-deleted') return { id, detail: left };
  const { b, m, r, mb, sh, in: input } = o;
  if (!isNum(b) || !isNums(m) || !isNums(r) || m.length === 0 || m.length % 2 || r.length % 2)
    return `job ${id}: its task times are not pairs of numbers`;
  if (!isNum(input) || !(sh === null || isNum(sh)) || !(mb === null || isNums(mb)))
    return `job ${id}: its bytes are not numbers`;
  return {
    id,
    detail: {
      maps: m.map((x) => x + b),
      reduces: r.map((x) => x + b),
      inputBytes: input,
      shuffleBytes: sh,
      mapBytes: mb,
    },
  };
}

function lineOf(id: string, d: DetailOrLeft): string {
  if (typeof d === 'string') return JSON.stringify({ id, left: d });
  const b = d.maps[0] as number;
  return JSON.stringify({
    id,
    b,
    m: d.maps.map((x) => x - b),
    r: d.reduces.map((x) => x - b),
    in: d.inputBytes,
    sh: d.shuffleBytes,
    mb: d.mapBytes,
  });
}

/** One day's file: the jobs it holds, and where new ones are appended. */
interface Day {
  readonly jobs: Map<string, DetailOrLeft>;
  fd: number | null;
}

/** The cache in a folder (see the module's comment). */
export class FileHistoryCache implements HistoryCache {
  private readonly dir: string;
  private readonly days = new Map<string, Day>();
  /** Jobs found in the cache, jobs put into it, files set aside. */
  readonly stats = { hits: 0, stored: 0, setAside: 0 };

  /**
   * @param root the cache's folder (made when missing)
   * @param server the JobHistory server's address: its files are its own
   * @param warn told of each file set aside
   */
  private readonly server: string;

  constructor(
    root: string,
    server: string,
    private readonly warn: (text: string) => void = () => undefined,
  ) {
    this.server = serverKey(server);
    this.dir = join(root, serverFolder(server));
    mkdirSync(this.dir, { recursive: true });
  }

  get(jobId: string, startMs: number, taskCounters: boolean): DetailOrLeft | undefined {
    const d = this.day(dayOf(startMs)).jobs.get(jobId);
    if (d === undefined || (taskCounters && typeof d !== 'string' && d.mapBytes === null)) return undefined;
    this.stats.hits++;
    // Each map's bytes kept by a run with --task-counters are not this run's to use.
    return !taskCounters && typeof d !== 'string' && d.mapBytes !== null ? { ...d, mapBytes: null } : d;
  }

  put(jobId: string, startMs: number, detail: DetailOrLeft): void {
    const name = dayOf(startMs);
    const day = this.day(name);
    day.jobs.set(jobId, detail);
    if (day.fd === null) {
      const path = join(this.dir, `${name}.jsonl`);
      const fresh = !existsSync(path);
      day.fd = openSync(path, 'a');
      if (fresh) writeSync(day.fd, `${JSON.stringify(this.header(name))}\n`);
    }
    // One write a line: an interrupted run loses at most the line being written.
    writeSync(day.fd, `${lineOf(jobId, detail)}\n`);
    this.stats.stored++;
  }

  close(): void {
    for (const d of this.days.values()) if (d.fd !== null) closeSync(d.fd);
    this.days.clear();
  }

  private header(day: string): Header {
    return { format: CACHE_FORMAT, version: CACHE_VERSION, server: this.server, day };
  }

  /**
   * A day's jobs, read from its file once. Windows are read in time order and a window of an
   * hour spans two days at most: two days are held, the oldest other one let go past them (a
   * day asked for again is read again from its file).
   */
  private day(name: string): Day {
    let d = this.days.get(name);
    if (d) return d;
    d = { jobs: this.load(name), fd: null };
    this.days.set(name, d);
    while (this.days.size > 2) {
      const oldest = [...this.days.keys()].filter((k) => k !== name).sort()[0] as string;
      const old = this.days.get(oldest) as Day;
      if (old.fd !== null) closeSync(old.fd);
      this.days.delete(oldest);
    }
    return d;
  }

  private load(name: string): Map<string, DetailOrLeft> {
    const path = join(this.dir, `${name}.jsonl`);
    const jobs = new Map<string, DetailOrLeft>();
    if (!existsSync(path)) return jobs;
    const text = readFileSync(path, 'utf8');
    const lines = text.split('\n');
    // A last line without its newline was cut short by an interruption: dropped, and cut off
    // the file, so that the next job is appended after the last whole line.
    const cut = lines.pop() as string;
    if (lines.length === 0) {
      unlinkSync(path);
      return jobs;
    }
    if (cut !== '') truncateSync(path, Buffer.byteLength(text) - Buffer.byteLength(cut));
    const problem = this.check(lines[0], name) ?? this.fill(lines, jobs);
    if (problem === undefined) return jobs;
    renameSync(path, `${path}.corrupt`);
    this.stats.setAside++;
    this.warn(
      `history cache: ${path} set aside as ${name}.jsonl.corrupt (${problem}); its jobs are read again from the server`,
    );
    return new Map();
  }

  /** Why the header is not this cache's, or undefined. */
  private check(first: string | undefined, day: string): string | undefined {
    let h: Partial<Header>;
    try {
      h = JSON.parse(first ?? '') as Partial<Header>;
    } catch {
      return 'its first line is not a header';
    }
    if (h.format !== CACHE_FORMAT || h.version !== CACHE_VERSION)
      return `not a history cache of version ${CACHE_VERSION}`;
    if (h.server !== this.server) return `written for another server, ${String(h.server)}`;
    if (h.day !== day) return `written for another day, ${String(h.day)}`;
    return undefined;
  }

  /** Reads the job lines into `jobs` (a later line of a job wins); the first bad line's problem. */
  private fill(lines: string[], jobs: Map<string, DetailOrLeft>): string | undefined {
    for (let i = 1; i < lines.length; i++) {
      if (lines[i] === '') continue;
      const r = parseLine(lines[i] as string);
      if (typeof r === 'string') return `line ${i + 1}: ${r}`;
      jobs.set(r.id, r.detail);
    }
    return undefined;
  }
}
