/**
 * RTMR admission decision time, fast vs literal vector calculations, measured in one run.
 * Queues of 10 / 100 / 1,000 admitted jobs on unified clusters of 100 / 1,000 / 20,000 slots.
 * Job sizes follow the Facebook bins of He et al., RTMR, Table II (1 to 5,000 maps, 128 MB splits),
 * drawn with a small seeded PRNG here (the core takes no randomness).
 * Then the scale cells: 1,000 jobs x 20,000 and 10,000 jobs x 200,000 containers,
 * fast engine only: admission, the earliest-deadline search of a refused job, heap per job.
 */
import { loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { percentile, recordResult } from './results';
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

// He et al., RTMR, Table II: bins of maps per job and the share of Facebook jobs in each.
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

const pct = percentile;

/**
 * `queue` drawn jobs admitted into `state`, each with a deadline a little after its finish at
 * the tail, so all fit; `last` is the last deadline given.
 */
function fillQueue(
  engine: ReturnType<typeof rtmr>,
  state: RtmrState,
  rnd: () => number,
  queue: number,
): { state: RtmrState; last: number } {
  let s = state;
  let last = 0;
  for (let i = 0; i < queue; i++) {
    const j = drawJob(rnd, `q${i}`);
    const probe = engine.admit(s, { ...j, deadline: 1e12 }, 0, { searchEarliest: false });
    if (!probe.admitted) throw new Error('probe refused');
    last = Math.max(last, probe.estimatedFinish) + rnd() * 600;
    const r = engine.admit(s, { ...j, deadline: last }, 0, { searchEarliest: false });
    if (!r.admitted) throw new Error(`queue job ${i} refused`);
    s = r.state;
  }
  return { state: s, last };
}

/** A full garbage collection (for heap figures), exposed without a command-line flag. */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
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
      const { state: s, last } = fillQueue(
        fast,
        busy
          ? fast.fromSnapshot({
              now: 0,
              slots: [Array.from({ length: slots }, () => rnd() * 600)],
              queue: [],
            })
          : fast.initialState(0),
        rnd,
        queue,
      );
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
      if (queue === 1000 && slots === 20000 && !busy)
        recordResult({
          name: 'admission 1000x20000 fast vs literal engine (decision)',
          unit: 'ms',
          median: f50,
          p99: f99,
          ratio: l50 / f50,
        });
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
  scaleCells();
}

/**
 * The scale cells: a queue built so that every job fits (each deadline a little after its
 * finish at the tail), then candidates with deadlines spread over the queue (admission), and
 * refused candidates (deadlines of a few seconds) with the earliest-deadline search.
 */
function scaleCells(): void {
  const cells = [
    { queue: 1000, slots: 20000, decisions: 1000, searches: 200 },
    { queue: 10000, slots: 200000, decisions: 1000, searches: 100 },
  ];
  const lines: string[] = [];
  for (const { queue, slots, decisions, searches } of cells) {
    const rnd = mulberry32(queue * 31 + slots);
    const fast = rtmr({ slotModel: { name: 'unified', containers: slots }, estimates: EST });
    collect();
    const heap0 = process.memoryUsage().heapUsed;
    const idle = fast.initialState(0);
    const b0 = nowMs();
    const { state: s, last } = fillQueue(fast, idle, rnd, queue);
    const buildS = (nowMs() - b0) / 1000;
    const first = s.entries[0]!.job.deadline;
    const admit: number[] = [];
    const admitCpu: number[] = [];
    let admitted = 0;
    for (let i = 0; i < decisions + 5; i++) {
      const c = { ...drawJob(rnd, `n${i}`), deadline: first + rnd() * (last * 1.05 - first) };
      const c0 = cpuMs();
      const t0 = nowMs();
      const r = fast.admit(s, c, 0, { searchEarliest: false });
      if (i < 5) continue; // warm-up
      admit.push(nowMs() - t0);
      admitCpu.push(cpuMs() - c0);
      if (r.admitted) admitted++;
    }
    const search: number[] = [];
    const searchCpu: number[] = [];
    let found = 0;
    for (let i = 0; i < searches; i++) {
      const c = { ...drawJob(rnd, `r${i}`), deadline: 1 + rnd() * 20 };
      const c0 = cpuMs();
      const t0 = nowMs();
      const r = fast.admit(s, c, 0);
      search.push(nowMs() - t0);
      searchCpu.push(cpuMs() - c0);
      if (!r.admitted && r.earliestAdmissibleDeadline !== null) found++;
    }
    collect();
    // The state after the decisions, with the checkpoints they memoised.
    const kb = (process.memoryUsage().heapUsed - heap0) / queue / 1024;
    if (s.entries.length !== queue) throw new Error('queue changed');
    const name = `admission ${queue}x${slots}`;
    recordResult({ name: `${name} admit`, unit: 'ms', median: pct(admit, 50), p99: pct(admit, 99) });
    recordResult({
      name: `${name} admit (cpu)`,
      unit: 'ms',
      median: pct(admitCpu, 50),
      p99: pct(admitCpu, 99),
    });
    recordResult({
      name: `${name} earliest deadline`,
      unit: 'ms',
      median: pct(search, 50),
      p99: pct(search, 99),
    });
    recordResult({
      name: `${name} earliest deadline (cpu)`,
      unit: 'ms',
      median: pct(searchCpu, 50),
      p99: pct(searchCpu, 99),
    });
    recordResult({ name: `${name} heap per queued job`, unit: 'KB', median: kb, p99: kb });
    lines.push(
      [
        String(queue).padStart(6),
        String(slots).padStart(7),
        `${admitted}/${admit.length}`.padStart(10),
        pct(admit, 50).toFixed(3).padStart(9),
        pct(admit, 99).toFixed(3).padStart(9),
        pct(admitCpu, 99).toFixed(3).padStart(8),
        `${found}/${search.length}`.padStart(8),
        pct(search, 50).toFixed(2).padStart(9),
        pct(search, 99).toFixed(2).padStart(9),
        pct(searchCpu, 99).toFixed(2).padStart(8),
        kb.toFixed(2).padStart(7),
        buildS.toFixed(1).padStart(7),
      ].join(' '),
    );
    console.error(lines[lines.length - 1]);
  }
  console.log(
    '\nAt scale (fast engine): admission and earliest-deadline search in ms (wall clock; cpu = process CPU time)',
  );
  console.log(
    ' queue   slots   admitted admit p50 admit p99  cpu p99  refused  earl p50  earl p99  cpu p99 KB/job build s',
  );
  for (const l of lines) console.log(l);
}
