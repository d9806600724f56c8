import { Engine, worstMapSecondsOn, worstReduceSecondsOn, type TaskRecord } from '../../src/sim/engine';
import type { ClusterSpec, SlotModel, TraceJob } from '../../src/sim/model';
import { admissionPort, placementPort, worstCaseEstimates } from '../../src/sim/policies';
import { cluster, nodeClass, traceJob } from './doubles';

/**
 * DC's dispatcher in the full simulator (Kc and Anyanwu, DC, III.B): each job runs at most its minimum
 * n_m^min maps at once, a slot beyond every job's minimum stays idle, and reduces start only
 * after all the job's maps, at most n_r^min of them.
 */
const MB = 1024 * 1024;

/** One node, 5 map slots (or 5 containers), 4 reduce slots; 1 s per MB in maps and reduces. */
function oneNode(slotModel: SlotModel): ClusterSpec {
  const cost = {
    mapFixedSeconds: 0,
    mapSecondsPerMB: 1,
    reduceFixedSeconds: 0,
    reduceSecondsPerMB: 1,
    shuffleRatio: 1,
    jitter: [1, 1] as [number, number],
  };
  return cluster({
    slotModel,
    heartbeatSeconds: 1,
    remoteReadPenalty: 0,
    nodeClasses: [nodeClass('n', 1, { mapSlots: 5, reduceSlots: 4, containers: 5 })],
    hdfs: { blockMB: 128, replication: 1, blocks: 0 },
    costs: { cpu: cost, gpu: cost },
  });
}

function run(c: ClusterSpec, jobs: TraceJob[]): { engine: Engine; tasks: readonly TaskRecord[] } {
  const estimates = worstCaseEstimates(
    jobs,
    (j) => worstMapSecondsOn(c, j),
    (j) => worstReduceSecondsOn(c, j),
    c,
    // DC has unit costs only (Kc and Anyanwu, DC): the papers' figures, as the driver gives it.
    'paper',
  );
  let engine: Engine | null = null;
  const placement = placementPort('fifo', {}, c, {
    nodeId: (i) => (engine as Engine).nodeId(i),
    orderKeyMs: (j) => (engine as Engine).queueRank(j.id),
  });
  engine = new Engine(c, { seed: 1, admission: admissionPort('dc', {}, c, estimates), placement });
  for (const j of jobs) engine.submit(j);
  engine.run();
  return { engine, tasks: engine.taskRecords() };
}

/** The most tasks of `kind` of job `id` running at any one instant. */
function peak(tasks: readonly TaskRecord[], id: string, kind: 'map' | 'reduce'): number {
  const mine = tasks.filter((t) => t.job === id && t.kind === kind);
  let best = 0;
  for (const t of mine)
    best = Math.max(best, mine.filter((u) => u.start <= t.start && t.start < u.end).length);
  return best;
}

// Both jobs: 4 maps of 10 MB (delta = 40), R = 2. The estimates are the model's worst case
// plus one heartbeat: c_m = (10 + 1) / 10 = 1.1 s per MB, c_r = (20 + 1) / 20 = 1.05, f = 1.
// A (D = 60): S_r^max = 60 - 40*1.05/2 = 39, n_m^min = ceil(40*1.1 / 39) = 2.
// B (D = 64): S_r^max = 43, n_m^min = ceil(44 / 43) = 2. DC admits both: 2 + 2 map slots free
// at 0, and at 43 A's reduce window holds 2 of the 4 reduce slots.
const jobs = [
  traceJob('a', { arrival: 0, deadline: 60, maps: 4, reduces: 2, inputBytes: 40 * MB }),
  traceJob('b', { arrival: 0, deadline: 64, maps: 4, reduces: 2, inputBytes: 40 * MB }),
];

describe('DC dispatcher in the simulator', () => {
  for (const slotModel of ['mr1', 'unified'] as const) {
    it(`A (n_m^min = 2) gets 2 of the node's 5 map slots, B the next 2, and the fifth stays idle (${slotModel})`, () => {
      const { engine, tasks } = run(oneNode(slotModel), jobs);
      const outcomes = engine.outcomes();
      expect(outcomes.map((o) => [o.id, o.admitted, o.metDeadline])).toEqual([
        ['a', true, true],
        ['b', true, true],
      ]);
      const first = Math.min(...tasks.map((t) => t.start));
      const atFirst = tasks.filter((t) => t.kind === 'map' && t.start === first).map((t) => t.job);
      expect(atFirst.sort()).toEqual(['a', 'a', 'b', 'b']);
      expect(peak(tasks, 'a', 'map')).toBe(2);
      expect(peak(tasks, 'b', 'map')).toBe(2);
      // Never more than 4 maps at once on the 5 slots: the fifth is left idle.
      const maps = tasks.filter((t) => t.kind === 'map');
      for (const t of maps)
        expect(maps.filter((u) => u.start <= t.start && t.start < u.end).length).toBeLessThanOrEqual(4);
      // Reduces start only after the job's last map ended.
      for (const id of ['a', 'b']) {
        const lastMap = Math.max(...tasks.filter((t) => t.job === id && t.kind === 'map').map((t) => t.end));
        for (const r of tasks.filter((t) => t.job === id && t.kind === 'reduce'))
          expect(r.start).toBeGreaterThanOrEqual(lastMap);
      }
    });
  }

  it('n_r^min: a job whose maps finish early runs fewer reduces at once than R (mr1)', () => {
    // C: 2 maps of 10 MB (delta = 20), R = 4, D = 200. c_m = 1.1, c_r = (5 + 1) / 5 = 1.2.
    // S_r^max = 200 - 20*1.2/4 = 194, n_m^min = ceil(22 / 194) = 1: the two maps run one
    // after the other, done by the heartbeat at about 21 s. Then
    // n_r^min = ceil(20*1.2 / (200 - 21)) = 1: the 4 reduces run one at a time.
    const c = traceJob('c', { arrival: 0, deadline: 200, maps: 2, reduces: 4, inputBytes: 20 * MB });
    const { engine, tasks } = run(oneNode('mr1'), [c]);
    expect(engine.outcomes()[0]!.metDeadline).toBe(true);
    expect(peak(tasks, 'c', 'map')).toBe(1);
    expect(peak(tasks, 'c', 'reduce')).toBe(1);
    expect(tasks.filter((t) => t.kind === 'reduce')).toHaveLength(4);
  });
});
