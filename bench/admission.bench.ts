/**
 * RTMR admission decision time, fast vs literal vector calculations, measured in one run.
 * Queues of 10 / 100 / 1,000 admitted jobs on unified clusters of 100 / 1,000 / 20,000 slots.
 * Job sizes follow the Facebook bins of seed 000 Table II (1 to 5,000 maps, 128 MB splits),
 * drawn with a small seeded PRNG here (the core takes no randomness).
 */
import { loadavg } from 'node:os';
import { rtmr, type RtmrState } from '../src/core/admission';
import type { Estimates } from '../src/core/estimates';
import type { DeadlineJob } from '../src/core/job';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Seed 000 Table II: bins of maps per job and the share of Facebook jobs in each.
const BINS: [number, number, number][] = [
  [1, 1, 39],
  [2, 2, 16],
  [3, 20, 14],
  [21, 60, 9],
  [61, 150, 6],
  [151, 300, 6],
  [301, 500, 4],
  [501, 1500, 4],
  [1501, 5000, 3],
];
const EST: Estimates = { eta: 0.3, mapCostMax: 0.25, reduceCostMax: 0.5 };
const SPLIT_MB = 128;

function drawJob(rnd: () => number, id: string): DeadlineJob {
  let u = rnd() * 100;
  let bin = BINS[BINS.length - 1]!;
  for (const b of BINS) {
    if (u < b[2]) {
      bin = b;
      break;
    }
    u -= b[2];
  }
  const maps = bin[0] + Math.floor(rnd() * (bin[1] - bin[0] + 1));
  const reduces = 1 + Math.floor(rnd() * Math.max(1, Math.min(100, Math.ceil(maps / 10))));
  return { id, arrival: 0, deadline: 1, maps, reduces, inputSize: maps * SPLIT_MB };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;
/** CPU time of this process (all its threads, so garbage collection helpers count too), in ms. */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export default async function (): Promise<void> {
  const QUEUES = [10, 100, 1000];
  const SLOTS = [100, 1000, 20000];
  const FAST_DECISIONS = 1000;
  const LITERAL_BUDGET_MS = 8000;
  const LITERAL_MAX = 200;
  const rows: string[] = [];
  const notes: string[] = [];
  // The nine cells start from an idle cluster (every slot free now). The last row starts from a
  // busy one rebuilt from a snapshot, every slot free at a different time: the worst case for
  // the run-length lanes of the fast engine, since no two slot times are equal.
  const cells = SLOTS.flatMap((slots) => QUEUES.map((queue) => ({ slots, queue, busy: false })));
  cells.push({ slots: 20000, queue: 1000, busy: true });
  for (const { slots, queue, busy } of cells) {
    {
      const rnd = mulberry32(slots * 7919 + queue + (busy ? 1 : 0));
      const model = { name: 'unified' as const, containers: slots };
      const fast = rtmr({ slotModel: model, estimates: EST, engine: 'fast' });
      const literal = rtmr({ slotModel: model, estimates: EST, engine: 'literal' });
      // Build the queue: each job gets a deadline a little after its finish at the tail, so all fit.
      let s: RtmrState = busy
        ? fast.fromSnapshot({ now: 0, slots: [Array.from({ length: slots }, () => rnd() * 600)], queue: [] })
        : fast.initialState(0);
      let last = 0;
      for (let i = 0; i < queue; i++) {
        const j = drawJob(rnd, `q${i}`);
        const probe = fast.admit(s, { ...j, deadline: 1e12 }, 0, { searchEarliest: false });
        if (!probe.admitted) throw new Error('probe refused');
        last = Math.max(last, probe.estimatedFinish) + rnd() * 600;
        const r = fast.admit(s, { ...j, deadline: last }, 0, { searchEarliest: false });
        if (!r.admitted) throw new Error(`queue job ${i} refused`);
        s = r.state;
      }
      const first = s.entries[0]!.job.deadline;
      const candidates = Array.from({ length: FAST_DECISIONS }, (_, i) => ({
        ...drawJob(rnd, `n${i}`),
        deadline: first + rnd() * (last * 1.05 - first),
      }));
      // Warm up, then time the fast engine.
      for (let i = 0; i < 5; i++) fast.admit(s, candidates[i]!, 0, { searchEarliest: false });
      const tf: number[] = [];
      const cf: number[] = [];
      let admitted = 0;
      for (const c of candidates) {
        const c0 = cpuMs();
        const t0 = nowMs();
        const r = fast.admit(s, c, 0, { searchEarliest: false });
        tf.push(nowMs() - t0);
        cf.push(cpuMs() - c0);
        if (r.admitted) admitted++;
      }
      // The literal engine on the same queue and the same candidates, within a time budget.
      const sl = literal.withEngine(s, 'literal');
      const tl: number[] = [];
      let disagreements = 0;
      const start = nowMs();
      for (const c of candidates) {
        if (tl.length >= LITERAL_MAX || (tl.length > 0 && nowMs() - start > LITERAL_BUDGET_MS)) break;
        const t0 = nowMs();
        const r = literal.admit(sl, c, 0, { searchEarliest: false });
        tl.push(nowMs() - t0);
        const f = fast.admit(s, c, 0, { searchEarliest: false });
        if (JSON.stringify({ ...r, state: 0 }) !== JSON.stringify({ ...f, state: 0 })) disagreements++;
      }
      if (tl.length < Math.min(LITERAL_MAX, candidates.length))
        notes.push(
          `${queue} jobs x ${slots}${busy ? '*' : ''} slots: literal sampled ${tl.length} of ${candidates.length} decisions (budget ${LITERAL_BUDGET_MS / 1000} s)`,
        );
      if (disagreements > 0)
        notes.push(`${queue} x ${slots}: ${disagreements} DISAGREEMENTS between engines`);
      const f50 = pct(tf, 50);
      const f99 = pct(tf, 99);
      const fc99 = pct(cf, 99);
      const l50 = pct(tl, 50);
      const l99 = pct(tl, 99);
      rows.push(
        [
          String(queue).padStart(5),
          (String(slots) + (busy ? '*' : '')).padStart(6),
          `${admitted}/${tf.length}`.padStart(8),
          f50.toFixed(3).padStart(9),
          f99.toFixed(3).padStart(9),
          fc99.toFixed(3).padStart(8),
          pct(tf, 100).toFixed(2).padStart(8),
          l50.toFixed(2).padStart(10),
          l99.toFixed(2).padStart(10),
          String(tl.length).padStart(5),
          (l50 / f50).toFixed(0).padStart(7),
          (l99 / f99).toFixed(0).padStart(7),
        ].join(' '),
      );
      console.error(rows[rows.length - 1]);
    }
  }
  console.log(
    '\nRTMR (EDF) admission decision time in ms (wall clock), unified slot model, fast vs literal engine, same queue and candidates',
  );
  console.log(
    `${FAST_DECISIONS} fast decisions per cell; cpu p99 = process CPU time of the fast decision (no time waiting for a core); load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on this machine`,
  );
  console.log(
    'queue  slots admitted  fast p50  fast p99 cpu p99 fast max  literal p50 literal p99     n  x p50   x p99',
  );
  for (const r of rows) console.log(r);
  console.log('* busy cluster: every slot free at a different time (rebuilt from a snapshot)');
  for (const n of notes) console.log(`note: ${n}`);
}
