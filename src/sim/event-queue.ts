/**
 * The simulator's agenda: a binary min-heap of events keyed by (time, sequence).
 * The sequence number makes the order of simultaneous events the order they were
 * scheduled in, so a run never depends on heap internals.
 *
 * CodeQueue holds each event as one number (the engine packs an event kind and its subject
 * into it) in parallel typed arrays: a large run schedules tens of millions of events, and an
 * object per event plus a wrapper per heap entry was a tenth of its time in the collector.
 */
export class CodeQueue {
  private times = new Float64Array(1024);
  private seqs = new Float64Array(1024);
  private codes = new Float64Array(1024);
  private n = 0;
  private seq = 0;
  private _time = Number.NaN;
  private _code = Number.NaN;

  get size(): number {
    return this.n;
  }

  /** Time of the event `pop` returned last. */
  get time(): number {
    return this._time;
  }

  /** Code of the event `pop` returned last. */
  get code(): number {
    return this._code;
  }

  push(time: number, code: number): void {
    if (!Number.isFinite(time)) throw new RangeError(`event time must be finite, got ${time}`);
    if (this.n === this.times.length) this.grow();
    const seq = this.seq++;
    const t = this.times;
    const s = this.seqs;
    const c = this.codes;
    let i = this.n++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = t[parent] as number;
      if (pt < time || (pt === time && (s[parent] as number) < seq)) break;
      t[i] = pt;
      s[i] = s[parent] as number;
      c[i] = c[parent] as number;
      i = parent;
    }
    t[i] = time;
    s[i] = seq;
    c[i] = code;
  }

  peekTime(): number | undefined {
    return this.n > 0 ? this.times[0] : undefined;
  }

  /** Removes the earliest event; read it from `time` and `code`. False when empty. */
  pop(): boolean {
    if (this.n === 0) return false;
    const t = this.times;
    const s = this.seqs;
    const c = this.codes;
    this._time = t[0] as number;
    this._code = c[0] as number;
    const n = --this.n;
    if (n > 0) {
      // Sift the last entry down from the root.
      const lt = t[n] as number;
      const ls = s[n] as number;
      const lc = c[n] as number;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        let m = l;
        let mt = t[l] as number;
        let ms = s[l] as number;
        if (r < n) {
          const rt = t[r] as number;
          const rs = s[r] as number;
          if (rt < mt || (rt === mt && rs < ms)) {
            m = r;
            mt = rt;
            ms = rs;
          }
        }
        if (lt < mt || (lt === mt && ls < ms)) break;
        t[i] = mt;
        s[i] = ms;
        c[i] = c[m] as number;
        i = m;
      }
      t[i] = lt;
      s[i] = ls;
      c[i] = lc;
    }
    return true;
  }

  private grow(): void {
    const size = this.times.length * 2;
    const t = new Float64Array(size);
    const s = new Float64Array(size);
    const c = new Float64Array(size);
    t.set(this.times);
    s.set(this.seqs);
    c.set(this.codes);
    this.times = t;
    this.seqs = s;
    this.codes = c;
  }
}

export interface Scheduled<E> {
  time: number;
  seq: number;
  event: E;
}

/** The same agenda for events of any type: each event's payload waits in a slot table. */
export class EventQueue<E> {
  private readonly heap = new CodeQueue();
  private readonly slots: Array<Scheduled<E> | undefined> = [];
  private readonly free: number[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.size;
  }

  push(time: number, event: E): void {
    if (!Number.isFinite(time)) throw new RangeError(`event time must be finite, got ${time}`);
    const slot = this.free.pop() ?? this.slots.length;
    this.slots[slot] = { time, seq: this.seq++, event };
    this.heap.push(time, slot);
  }

  peekTime(): number | undefined {
    return this.heap.peekTime();
  }

  pop(): Scheduled<E> | undefined {
    if (!this.heap.pop()) return undefined;
    const slot = this.heap.code;
    const item = this.slots[slot] as Scheduled<E>;
    this.slots[slot] = undefined;
    this.free.push(slot);
    return item;
  }
}
