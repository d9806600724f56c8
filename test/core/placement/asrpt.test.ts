import fc from 'fast-check';
import {
  createAsrpt,
  simulateAsrpt,
  srptLowerBound,
  type SlottedJob,
} from '../../../src/core/placement/asrpt';
import { ValidationError } from '../../../src/errors/validation';
import { job, node } from './builders';

describe('SRPT lower bound on total flow time (Zheng et al., ASRPT, Lemma 1)', () => {
  it('serves least remaining work first, any number of machines per job, ignoring the map-reduce dependency', () => {
    // N = 2. Slot 0: B (1 unit) done, A gets the other machine. Slot 1: A's last 2 units. F = 1 + 2.
    const jobs: SlottedJob[] = [
      { jobId: 'A', arrivalSlot: 0, maps: 1, reduces: [2] },
      { jobId: 'B', arrivalSlot: 0, maps: 1, reduces: [] },
    ];
    expect(srptLowerBound(jobs, 2)).toEqual({ totalFlowTime: 3, finishSlot: { A: 1, B: 0 } });
  });

  it('skips idle slots and counts flow from arrival (F = f - a + 1)', () => {
    expect(srptLowerBound([{ jobId: 'x', arrivalSlot: 100, maps: 4, reduces: [] }], 2)).toEqual({
      totalFlowTime: 2,
      finishSlot: { x: 101 },
    });
  });

  it('rejects bad jobs, naming each', () => {
    expect(() => srptLowerBound([{ jobId: 'x', arrivalSlot: -1, maps: 1.5, reduces: [0] }], 0)).toThrow(
      ValidationError,
    );
    try {
      srptLowerBound([{ jobId: 'x', arrivalSlot: -1, maps: 1.5, reduces: [0] }], 0);
    } catch (e) {
      expect((e as ValidationError).paths).toEqual([
        'machines',
        'jobs.0.arrivalSlot',
        'jobs.0.maps',
        'jobs.0.reduces.0',
      ]);
    }
  });
});

describe('ASRPT (Zheng et al., ASRPT, Algorithm 1)', () => {
  const jobs: SlottedJob[] = [
    { jobId: 'A', arrivalSlot: 0, maps: 1, reduces: [2] },
    { jobId: 'B', arrivalSlot: 0, maps: 1, reduces: [] },
  ];

  it('runs maps as SRPT would and reduces from the next slot: preemptive reaches the bound here', () => {
    const r = simulateAsrpt(jobs, 2, { preemptive: true });
    expect(r.slots).toEqual([
      { maps: { A: 1, B: 1 }, reduces: {} },
      { maps: {}, reduces: { A: 2 } },
    ]);
    expect(r.totalFlowTime).toBe(3);
  });

  it('non-preemptive: a reduce task holds one machine until its work is done', () => {
    const r = simulateAsrpt(jobs, 2, { preemptive: false });
    expect(r.finishSlot).toEqual({ A: 2, B: 0 });
    expect(r.totalFlowTime).toBe(4);
  });

  it('never beats the SRPT lower bound, and finishes every job (random workloads, both modes)', () => {
    const jobArb = fc.record({
      arrivalSlot: fc.integer({ min: 0, max: 20 }),
      maps: fc.integer({ min: 0, max: 8 }),
      reduces: fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(jobArb, { minLength: 1, maxLength: 15 }),
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        (specs, N, preemptive) => {
          const js = specs
            .filter((s) => s.maps + s.reduces.length > 0)
            .map((s, i) => ({ ...s, jobId: `j${i}` }));
          fc.pre(js.length > 0);
          const bound = srptLowerBound(js, N);
          const run = simulateAsrpt(js, N, { preemptive });
          expect(Object.keys(run.finishSlot).sort()).toEqual(js.map((j) => j.jobId).sort());
          expect(run.totalFlowTime).toBeGreaterThanOrEqual(bound.totalFlowTime);
          for (const s of run.slots) {
            const used =
              Object.values(s.maps).reduce((a, b) => a + b, 0) +
              Object.values(s.reduces).reduce((a, b) => a + b, 0);
            // Newly assigned machines never exceed N (running non-preemptive reduces hold the rest).
            expect(used).toBeLessThanOrEqual(N);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('as a heartbeat policy, fills the node in non-decreasing available workload, local task first', () => {
    const big = job('big', [['n1'], ['n1'], ['n1']], { arrivalMs: 0 });
    const small = job('small', [['n9'], ['n1']], { arrivalMs: 5, remainingReduceWork: 0 });
    const r = createAsrpt().onHeartbeat({}, { node: node('n1', { cpu: 3 }), jobs: [big, small], nowMs: 0 });
    expect(r.assignments.map((a) => a.taskId)).toEqual(['small-m1', 'small-m0', 'big-m0']);
  });
});
