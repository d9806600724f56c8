/**
 * The simulator's agenda: a binary min-heap of events keyed by (time, sequence).
 * The sequence number makes the order of simultaneous events the order they were
 * scheduled in, so a run never depends on heap internals.
 */
export interface Scheduled<E> {
  time: number;
  seq: number;
  event: E;
}

export class EventQueue<E> {
  private heap: Scheduled<E>[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(time: number, event: E): void {
    if (!Number.isFinite(time)) throw new RangeError(`event time must be finite, got ${time}`);
    const item: Scheduled<E> = { time, seq: this.seq++, event };
    const h = this.heap;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(item, h[parent] as Scheduled<E>)) break;
      h[i] = h[parent] as Scheduled<E>;
      i = parent;
    }
    h[i] = item;
  }

  peekTime(): number | undefined {
    return this.heap[0]?.time;
  }

  pop(): Scheduled<E> | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0] as Scheduled<E>;
    const last = h.pop() as Scheduled<E>;
    if (h.length > 0) {
      let i = 0;
      const n = h.length;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        let mItem = last;
        if (l < n && less(h[l] as Scheduled<E>, mItem)) {
          m = l;
          mItem = h[l] as Scheduled<E>;
        }
        if (r < n && less(h[r] as Scheduled<E>, mItem)) {
          m = r;
          mItem = h[r] as Scheduled<E>;
        }
        if (m === i) break;
        h[i] = mItem;
        i = m;
      }
      h[i] = last;
    }
    return top;
  }
}

function less<E>(a: Scheduled<E>, b: Scheduled<E>): boolean {
  return a.time < b.time || (a.time === b.time && a.seq < b.seq);
}
