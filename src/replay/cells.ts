import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { JobOutcome } from '../sim/engine';

/**
 * What each policy's run did to each job (a row's per-policy cells, docs/replay.md "Output"),
 * kept between the run and the writing of jobs.csv and jobs.jsonl. A run's outcomes are turned
 * into cells and let go as soon as it ends, so the runs of every policy are never held at once:
 * in memory (a small history, the tests) or spilled to one file per policy and read back in step,
 * a job at a time, when the rows are written (FileCells: what the command uses).
 */

export interface PolicyCell {
  readonly decision: 'admitted' | 'rejected';
  /** The policy's estimated finish, s after submission. */
  readonly estimateSeconds: number | null;
  /** Finish in the simulation, s after submission. */
  readonly finishSeconds: number | null;
  readonly met: boolean | null;
  readonly earliestDeadlineSeconds: number | null;
  readonly reason: string | null;
}

/** A run's outcome as its cell (times from the job's arrival). */
export function cellOf(o: JobOutcome): PolicyCell {
  return {
    decision: o.admitted ? 'admitted' : 'rejected',
    estimateSeconds: o.estimatedFinish === null ? null : o.estimatedFinish - o.arrival,
    finishSeconds: o.finish === null ? null : o.finish - o.arrival,
    met: o.admitted ? o.metDeadline : null,
    earliestDeadlineSeconds: o.earliestDeadline,
    reason: o.reason,
  };
}

export interface PolicyCellStore {
  /** One policy's cells, a job at a time in the workload's order; once per label. */
  put(label: string, cells: Iterable<PolicyCell>): void;
  /** Per job, in order: each label's cell (undefined where that label was not put). */
  rows(labels: readonly string[]): Iterable<ReadonlyArray<PolicyCell | undefined>>;
  /** Lets go of what it holds (FileCells: removes its files). */
  close(): void;
}

/** Cells held in memory: a small history, or a caller that wants no files. */
export class MemoryCells implements PolicyCellStore {
  private readonly byLabel = new Map<string, PolicyCell[]>();

  put(label: string, cells: Iterable<PolicyCell>): void {
    this.byLabel.set(label, [...cells]);
  }

  *rows(labels: readonly string[]): Iterable<ReadonlyArray<PolicyCell | undefined>> {
    const cols = labels.map((l) => this.byLabel.get(l) ?? []);
    const n = Math.max(0, ...cols.map((c) => c.length));
    for (let i = 0; i < n; i++) yield cols.map((c) => c[i]);
  }

  close(): void {
    this.byLabel.clear();
  }
}

/** A cell as one line: [decision (1 admitted), estimate, finish, met, earliest, reason]. */
function cellLine(c: PolicyCell): string {
  return JSON.stringify([
    c.decision === 'admitted' ? 1 : 0,
    c.estimateSeconds,
    c.finishSeconds,
    c.met,
    c.earliestDeadlineSeconds,
    c.reason,
  ]);
}

function cellOfLine(line: string, where: string): PolicyCell {
  const v = JSON.parse(line) as unknown;
  if (!Array.isArray(v) || v.length !== 6)
    throw new RangeError(`${where}: not a policy cell: ${line.slice(0, 80)}`);
  const [d, estimateSeconds, finishSeconds, met, earliestDeadlineSeconds, reason] = v as [
    number,
    number | null,
    number | null,
    boolean | null,
    number | null,
    string | null,
  ];
  return {
    decision: d === 1 ? 'admitted' : 'rejected',
    estimateSeconds,
    finishSeconds,
    met,
    earliestDeadlineSeconds,
    reason,
  };
}

/** Reads a file's lines a chunk at a time (no whole file in memory). */
export class LineReader {
  private readonly fd: number;
  private readonly chunk = Buffer.alloc(1 << 16);
  /** Keeps a character cut by a chunk's end for the next chunk. */
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private lines: string[] = [];
  private next = 0;
  private eof = false;

  constructor(path: string) {
    this.fd = openSync(path, 'r');
  }

  /** The next line, or null at the end. */
  line(): string | null {
    while (this.next >= this.lines.length) {
      if (this.eof) {
        if (this.pending === '') return null;
        const last = this.pending;
        this.pending = '';
        return last;
      }
      const n = readSync(this.fd, this.chunk, 0, this.chunk.length, null);
      if (n === 0) {
        this.eof = true;
        continue;
      }
      const parts = (this.pending + this.decoder.write(this.chunk.subarray(0, n))).split('\n');
      this.pending = parts.pop() as string;
      this.lines = parts;
      this.next = 0;
    }
    return this.lines[this.next++] as string;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * Cells spilled to `dir`, one file per policy (`<n>.cells`, a line per job), read back in
 * step: memory holds one job's cells of every policy, whatever the history's size.
 */
export class FileCells implements PolicyCellStore {
  private readonly files = new Map<string, string>();

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  put(label: string, cells: Iterable<PolicyCell>): void {
    const path = join(this.dir, `${this.files.size}.cells`);
    const fd = openSync(path, 'w');
    try {
      let buf: string[] = [];
      let size = 0;
      for (const c of cells) {
        const l = cellLine(c);
        buf.push(l);
        size += l.length + 1;
        if (size > 1 << 20) {
          writeSync(fd, buf.join('\n') + '\n');
          buf = [];
          size = 0;
        }
      }
      if (buf.length > 0) writeSync(fd, buf.join('\n') + '\n');
    } finally {
      closeSync(fd);
    }
    this.files.set(label, path);
  }

  *rows(labels: readonly string[]): Iterable<ReadonlyArray<PolicyCell | undefined>> {
    const readers = labels.map((l) => {
      const path = this.files.get(l);
      return path === undefined ? null : { path, r: new LineReader(path) };
    });
    try {
      for (;;) {
        let any = false;
        const row = readers.map((x) => {
          const line = x?.r.line() ?? null;
          if (line === null || x === null) return undefined;
          any = true;
          return cellOfLine(line, x.path);
        });
        if (!any) return;
        yield row;
      }
    } finally {
      for (const x of readers) x?.r.close();
    }
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
    this.files.clear();
  }
}
