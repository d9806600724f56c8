/**
 * Every task attempt of a run, stored by column: one row per attempt, written when it starts
 * (job, task index, node, start; `open`) and closed when it ends (end time, completed or lost;
 * `close`).
 * A 2,000-node, 20,000-job run makes millions of attempts; an object per attempt (and a Map
 * entry per running one) cost more memory and collector time than the simulation itself.
 * The engine turns rows into TaskRecord objects only when asked (Engine.taskRecords).
 */

/** Flag bits of a row. */
export const TASK_MAP = 1;
export const TASK_GPU = 2;
export const TASK_LOCAL = 4;
export const TASK_RUNNING = 8;
export const TASK_COMPLETED = 16;

/** Read-only access to the attempts that have ended, in the order they ended (k = 0..length-1). */
export interface EndedTasks {
  readonly length: number;
  /** Row of the k-th attempt to end. */
  row(k: number): number;
  jobIndex(row: number): number;
  taskIndex(row: number): number;
  nodeIndex(row: number): number;
  start(row: number): number;
  end(row: number): number;
  flags(row: number): number;
}

export class TaskLog implements EndedTasks {
  private jobs = new Int32Array(1024);
  private indices = new Int32Array(1024);
  private nodes = new Int32Array(1024);
  private starts = new Float64Array(1024);
  private ends = new Float64Array(1024);
  private flagBits = new Uint8Array(1024);
  private rows = 0;
  private endOrder = new Int32Array(1024);
  private ended = 0;
  /** Rows the run is expected to need; the columns grow straight to it rather than by doubling. */
  private expected = 0;

  get length(): number {
    return this.ended;
  }

  /** Attempts started so far (rows). */
  get started(): number {
    return this.rows;
  }

  /** Announces `rows` more attempts to come (the tasks of a submitted job). */
  expect(rows: number): void {
    this.expected += rows;
  }

  /**
   * A new running attempt; returns its row. `due` is when it is scheduled to end (the end
   * column holds it while the attempt runs; `close` overwrites it with the actual end).
   */
  open(job: number, index: number, node: number, start: number, flags: number, due = Number.NaN): number {
    if (this.rows === this.jobs.length) this.growRows();
    const r = this.rows++;
    this.jobs[r] = job;
    this.indices[r] = index;
    this.nodes[r] = node;
    this.starts[r] = start;
    this.ends[r] = due;
    this.flagBits[r] = flags | TASK_RUNNING;
    return r;
  }

  isRunning(row: number): boolean {
    return ((this.flagBits[row] as number) & TASK_RUNNING) !== 0;
  }

  /** Ends a running attempt at `time`: completed, or lost (node failure, kill). */
  close(row: number, time: number, completed: boolean): void {
    const f = (this.flagBits[row] as number) & ~TASK_RUNNING;
    this.flagBits[row] = completed ? f | TASK_COMPLETED : f;
    this.ends[row] = time;
    if (this.ended === this.endOrder.length) this.endOrder = grown(this.endOrder, Int32Array, this.expected);
    this.endOrder[this.ended++] = row;
  }

  row(k: number): number {
    return this.endOrder[k] as number;
  }

  jobIndex(row: number): number {
    return this.jobs[row] as number;
  }

  taskIndex(row: number): number {
    return this.indices[row] as number;
  }

  nodeIndex(row: number): number {
    return this.nodes[row] as number;
  }

  start(row: number): number {
    return this.starts[row] as number;
  }

  end(row: number): number {
    return this.ends[row] as number;
  }

  /** When a running attempt is scheduled to end; NaN once it has ended. */
  due(row: number): number {
    return this.isRunning(row) ? (this.ends[row] as number) : Number.NaN;
  }

  flags(row: number): number {
    return this.flagBits[row] as number;
  }

  private growRows(): void {
    const e = this.expected;
    this.jobs = grown(this.jobs, Int32Array, e);
    this.indices = grown(this.indices, Int32Array, e);
    this.nodes = grown(this.nodes, Int32Array, e);
    this.starts = grown(this.starts, Float64Array, e);
    this.ends = grown(this.ends, Float64Array, e);
    this.flagBits = grown(this.flagBits, Uint8Array, e);
  }
}

type TypedArray = Int32Array | Float64Array | Uint8Array;

/** A longer copy of a full column: the expected size if still ahead, else half as long again. */
function grown<T extends TypedArray>(a: T, ctor: new (n: number) => T, expected: number): T {
  const b = new ctor(Math.max(expected, Math.ceil(a.length * 1.5)));
  b.set(a);
  return b;
}
