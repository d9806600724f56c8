import { runPolicies } from '../../src/sim/driver';
import { Engine } from '../../src/sim/engine';
import type { ClusterSpec, TraceJob } from '../../src/sim/model';
import { unrunnableReason, type PolicySpec } from '../../src/sim/policies';
import { SimulationStalledError } from '../../src/errors/simulation-stalled';
import { acceptAll, cluster, greedyLocal, nodeClass, traceJob } from './doubles';

/**
 * The cluster shapes on which the RTMR guarantee broke before map lanes, zero-input floors and per-block locality, each a named regression:
 * admission counting slots a job can never use, a job no slot can run, and a placement rule
 * leaving slots idle that admission counted on.
 */
const MB = 1024 * 1024;

/** Maps of a fixed `mapSeconds`, reduces of a fixed `reduceSeconds`, no jitter. */
function fixedCosts(mapSeconds: number, reduceSeconds: number): ClusterSpec['costs'] {
  const cost = {
    mapFixedSeconds: mapSeconds,
    mapSecondsPerMB: 0,
    reduceFixedSeconds: reduceSeconds,
    reduceSecondsPerMB: 0,
    shuffleRatio: 0.1,
    jitter: [1, 1] as [number, number],
  };
  return { cpu: cost, gpu: cost };
}

const rtmrFifo: PolicySpec = { label: 'rtmr', admission: 'rtmr', placement: 'fifo' };

describe('the counterexamples to the RTMR guarantee', () => {
  it('mr1 with GPU map slots: a CPU job of 8 maps of 10 s on one node with 4 map slots, 3 of them GPU, deadline 40 s, is refused', () => {
    // examples/cluster.yaml has this layout (1 GPU slot of 2 on each GPU node). Counting all 4
    // map slots, the job was admitted and ran its 8 maps one after another on the only CPU slot.
    const c = cluster({
      heartbeatSeconds: 1,
      remoteReadPenalty: 0,
      nodeClasses: [nodeClass('g', 1, { mapSlots: 4, reduceSlots: 1, gpuContainers: 3, labels: ['gpu'] })],
      hdfs: { blockMB: 128, replication: 1, blocks: 0 },
      costs: fixedCosts(10, 0),
    });
    const job = (deadline: number): TraceJob =>
      traceJob('a', { maps: 8, reduces: 0, inputBytes: 8 * MB, deadline });
    const [tight] = runPolicies({ cluster: c, jobs: [job(40)], specs: [rtmrFifo], seed: 1 });
    const o = tight!.outcomes[0]!;
    expect(o.admitted).toBe(false);
    // Estimated on the one CPU map slot: 8 maps of 10 s plus a heartbeat each = 88 s.
    expect(o.reason).toBe('cpu map lane: new-job-misses: a late by 48.0 s (class cpu estimates)');
    // With a deadline it can meet it is admitted, runs only in the CPU slot, and meets it.
    const [loose] = runPolicies({ cluster: c, jobs: [job(100)], specs: [rtmrFifo], seed: 1 });
    const ok = loose!.outcomes[0]!;
    expect([ok.admitted, ok.metDeadline]).toEqual([true, true]);
    expect(ok.estimatedFinish).toBeCloseTo(88, 6);
    expect(ok.finish!).toBeGreaterThan(80);
    expect(ok.finish!).toBeLessThanOrEqual(88);
  });

  it('mr1 with no CPU map slot: a CPU job is refused with the reason by every policy, and the run ends', () => {
    const c = cluster({
      nodeClasses: [nodeClass('g', 2, { mapSlots: 3, reduceSlots: 1, gpuContainers: 3, labels: ['gpu'] })],
      costs: fixedCosts(5, 2),
    });
    const jobs = [
      traceJob('cpu-job', { maps: 4, reduces: 1, deadline: 1000 }),
      traceJob('gpu-job', { arrival: 1, maps: 4, reduces: 1, deadline: 1000, type: 'gpu' }),
    ];
    const why = "no-usable-slots: no cpu map slot in the cluster can run a cpu job's maps";
    expect(unrunnableReason(c, jobs[0]!)).toBe(why);
    expect(unrunnableReason(c, jobs[1]!)).toBeNull();
    const specs: PolicySpec[] = [
      rtmrFifo,
      { label: 'dc', admission: 'dc', placement: 'fifo' },
      { label: 'yarn-greedy', admission: 'yarn-greedy', placement: 'fifo' },
      { label: 'fifo-all', admission: 'fifo-all', placement: 'fifo' },
      { label: 'fifo', admission: null, placement: 'fifo' },
    ];
    for (const r of runPolicies({ cluster: c, jobs, specs, seed: 1 })) {
      const [cpu, gpu] = r.outcomes;
      expect([r.spec.label, cpu!.status, cpu!.reason]).toEqual([r.spec.label, 'rejected', why]);
      expect([r.spec.label, gpu!.status]).toEqual([r.spec.label, 'finished']);
    }
  });

  it('mr1 with no CPU map slot: an engine whose ports let such a job in ends with SimulationStalledError, not a hang', () => {
    const c = cluster({
      heartbeatSeconds: 3,
      nodeClasses: [nodeClass('g', 1, { mapSlots: 2, reduceSlots: 1, gpuContainers: 2, labels: ['gpu'] })],
    });
    const engine = new Engine(c, {
      seed: 1,
      admission: acceptAll(),
      placement: greedyLocal(),
      stallSeconds: 600,
    });
    engine.submit(traceJob('stuck', { arrival: 5, maps: 2 }));
    let err: unknown;
    try {
      engine.run();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SimulationStalledError);
    const stalled = err as SimulationStalledError;
    expect(stalled.code).toBe('SIMULATION_STALLED');
    expect(stalled.waiting).toEqual([{ id: 'stuck', pendingMaps: 2, pendingReduces: 1 }]);
    // It gave up at the first heartbeat more than 600 s after the job arrived.
    expect(stalled.now).toBeGreaterThan(605);
    expect(stalled.now).toBeLessThanOrEqual(608);
    expect(stalled.message).toContain('no task ran for 600 s');
  });

  it('partial replication + fifo: 4 maps of one block on a reduce-only node, estimated 13 s, deadline 14 s, finish by 14 s', () => {
    // The block's only replica is on `data`, which has no map slot: every map is non-local. The
    // estimates (papers' model, as the issue measured) are 3 s per map (2 s, 1.5 x remote read)
    // plus a 3 s heartbeat, and 4 + 3 s per reduce: 4 maps on 4 slots, then the reduce, 13 s.
    const c = cluster({
      heartbeatSeconds: 3,
      remoteReadPenalty: 0.5,
      nodeClasses: [
        nodeClass('data', 1, { mapSlots: 0, reduceSlots: 1 }),
        nodeClass('work', 1, { mapSlots: 4, reduceSlots: 0 }),
      ],
      hdfs: { blockMB: 128, replication: 1, blocks: 1 },
      costs: fixedCosts(2, 4),
    });
    const jobs = [
      traceJob('p', {
        maps: 4,
        reduces: 1,
        inputBytes: 4 * MB,
        deadline: 14,
        blocks: ['blk_0', 'blk_0', 'blk_0', 'blk_0'],
      }),
    ];
    const [rtmr, fifoAll] = runPolicies({
      cluster: c,
      jobs,
      specs: [rtmrFifo, { label: 'fifo-all', admission: 'fifo-all', placement: 'fifo' }],
      seed: 3,
      estimateModel: 'paper',
    });
    const o = rtmr!.outcomes[0]!;
    expect(o.localMaps).toBe(0);
    expect(o.estimatedFinish).toBeCloseTo(13, 6);
    expect([o.admitted, o.metDeadline]).toEqual([true, true]);
    // RTMR's dispatcher gives each of the 4 free map slots a map at the first heartbeat.
    expect(o.finish!).toBeLessThanOrEqual(13);
    // Without a dispatcher (fifo-all: the same estimate, FIFO placement alone), FIFO starts one
    // non-local map per heartbeat, the maps end 9 s later than admission assumed: 19.08 s.
    const f = fifoAll!.outcomes[0]!;
    expect(f.estimatedFinish).toBeCloseTo(13, 6);
    expect(f.finish!).toBeCloseTo(19.076, 3);
  });
});
