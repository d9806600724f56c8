import fc from 'fast-check';
import { parseEnergyProfile } from '../../../src/core/energy/profile';
import { fifoOrder, type IndexedPlacementJob } from '../../../src/core/placement/common/helpers';
import type { NodeView, PlacementJob } from '../../../src/core/placement/common/types';
import { defaultRegistry } from '../../../src/core/registry';

/**
 * A driver may hand jobs that carry a PendingTaskIndex (src/core/placement/common/helpers.ts): the
 * simulator does, so that a heartbeat looks only at the heartbeating node's local tasks. The
 * index is an accelerator, never a different rule: the same heartbeats must give the same
 * assignments and the same next state with and without it.
 */

const profile = parseEnergyProfile(
  {
    gpuLabel: 'gpu',
    nodeClasses: { cpu: { idleWatts: 235, labels: [] }, gpu: { idleWatts: 78, labels: ['gpu'] } },
    workloads: {
      md: { mapTaskKwh: { cpu: { cpu: 0.0269 }, gpu: { cpu: 0.0219, gpu: 0.0191 } } },
      loadgen: { efficiencyFactor: { cpu: { cpu: 1 }, gpu: { cpu: 1.04 } } },
    },
    defaultWorkload: { cpu: 'loadgen', gpu: 'md', adaptive: 'md' },
  },
  [
    { nodeClass: 'cpu', nodes: 3, labels: [] },
    { nodeClass: 'gpu', nodes: 1, labels: ['gpu'] },
  ],
);
const registry = defaultRegistry();
const NODE_IDS = ['n1', 'n2', 'n3', 'n4'];
/** The policies that fill a heartbeat through HeartbeatTally, where the index is read. */
const TALLY_POLICIES = [
  'fifo',
  'delay',
  'fair-delay',
  'matchmaking',
  'fair-matchmaking',
  'job-size',
  'asrpt',
  'ideal-energy',
];
/** Of those, the ones that never need a job's whole pending list once the index is there. */
const INDEX_ONLY = ['fifo', 'delay', 'fair-delay', 'matchmaking', 'fair-matchmaking'];

/** The index a driver would keep, derived here from the job's own list. */
function indexed(job: PlacementJob, opts: { hideList?: boolean } = {}): IndexedPlacementJob {
  const list = job.pendingTasks;
  const out = {
    ...job,
    pendingCount: list.length,
    pendingTaskAt: (i: number) => list[i]!,
    pendingLocalTo: (nodeId: string) => list.filter((t) => t.replicaNodes.includes(nodeId)),
  };
  if (opts.hideList) {
    Object.defineProperty(out, 'pendingTasks', {
      get() {
        throw new Error(`${job.jobId}: pendingTasks read although the index was given`);
      },
    });
  }
  return out as IndexedPlacementJob;
}

const nodeArb: fc.Arbitrary<NodeView> = fc
  .record({
    id: fc.constantFrom(...NODE_IDS),
    gpuNode: fc.boolean(),
    cpu: fc.integer({ min: 0, max: 5 }),
    gpu: fc.integer({ min: 0, max: 2 }),
  })
  .map(({ id, gpuNode, cpu, gpu }) => ({
    nodeId: id,
    nodeClass: gpuNode ? 'gpu' : 'cpu',
    labels: gpuNode ? ['gpu'] : [],
    free: { cpu, gpu },
  }));

const jobsArb: fc.Arbitrary<PlacementJob[]> = fc
  .record({
    sorted: fc.boolean(),
    specs: fc.array(
      fc.record({
        kind: fc.constantFrom('cpu', 'gpu', 'adaptive') as fc.Arbitrary<PlacementJob['kind']>,
        arrivalMs: fc.integer({ min: 0, max: 6 }).map((x) => x * 1000),
        running: fc.integer({ min: 0, max: 3 }),
        user: fc.constantFrom('u1', 'u2'),
        replicas: fc.array(fc.subarray(NODE_IDS, { maxLength: 2 }), { maxLength: 8 }),
      }),
      { maxLength: 6 },
    ),
  })
  .map(({ sorted, specs }) => {
    const jobs = specs.map((s, i) => ({
      jobId: `j${i}`,
      kind: s.kind,
      arrivalMs: s.arrivalMs,
      runningTasks: s.running,
      user: s.user,
      totalTasks: s.replicas.length + s.running,
      pendingTasks: s.replicas.map((r, k) => ({ taskId: `m${k}`, replicaNodes: r })),
    }));
    return sorted ? [...jobs].sort((a, b) => a.arrivalMs - b.arrivalMs) : jobs;
  });

const stepsArb = fc.array(
  fc.record({ node: nodeArb, jobs: jobsArb, dtMs: fc.integer({ min: 0, max: 5000 }) }),
  { minLength: 1, maxLength: 8 },
);

describe.each(TALLY_POLICIES)('placement policy %s with a driver-supplied pending-task index', (name) => {
  const make = () => registry.createPlacement(name, {}, { energyProfile: profile });

  it('gives the same assignments and states as without it', () => {
    fc.assert(
      fc.property(stepsArb, (steps) => {
        const plain = make();
        const fast = make();
        let a = plain.initialState();
        let b = fast.initialState();
        let nowMs = 0;
        for (const s of steps) {
          nowMs += s.dtMs;
          const ra = plain.onHeartbeat(a, { node: s.node, jobs: s.jobs, nowMs });
          const rb = fast.onHeartbeat(b, { node: s.node, jobs: s.jobs.map((j) => indexed(j)), nowMs });
          expect(rb.assignments).toEqual(ra.assignments);
          expect(rb.state).toEqual(ra.state);
          a = ra.state;
          b = rb.state;
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe.each(INDEX_ONLY)('placement policy %s reads only the index when it has one', (name) => {
  it('never reads a job whole pending list, and still decides as without the index', () => {
    fc.assert(
      fc.property(stepsArb, (steps) => {
        const plain = registry.createPlacement(name, {});
        const fast = registry.createPlacement(name, {});
        let a = plain.initialState();
        let b = fast.initialState();
        for (const s of steps) {
          const ra = plain.onHeartbeat(a, { node: s.node, jobs: s.jobs, nowMs: 0 });
          const jobs = s.jobs.map((j) => indexed(j, { hideList: true }));
          const rb = fast.onHeartbeat(b, { node: s.node, jobs, nowMs: 0 });
          expect(rb.assignments).toEqual(ra.assignments);
          a = ra.state;
          b = rb.state;
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('fifoOrder', () => {
  const job = (jobId: string, arrivalMs: number): PlacementJob => ({
    jobId,
    arrivalMs,
    kind: 'cpu',
    pendingTasks: [],
    runningTasks: 0,
  });

  it('equals a sort by arrival then id, and returns the input itself when it is already in order', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd', 'e'), t: fc.integer({ min: 0, max: 3 }) }),
          {
            maxLength: 8,
          },
        ),
        (specs) => {
          const jobs = specs.map((s, i) => job(`${s.id}${i % 2}`, s.t));
          const expected = [...jobs].sort(
            (x, y) => x.arrivalMs - y.arrivalMs || (x.jobId < y.jobId ? -1 : x.jobId > y.jobId ? 1 : 0),
          );
          const got = fifoOrder(jobs);
          expect(got).toEqual(expected);
          expect(fifoOrder(expected)).toBe(expected);
          if (got !== jobs) expect(jobs).not.toEqual(expected); // copies only when out of order
        },
      ),
    );
  });

  it('does not reorder its input', () => {
    const jobs = [job('b', 2), job('a', 1)];
    expect(fifoOrder(jobs).map((j) => j.jobId)).toEqual(['a', 'b']);
    expect(jobs.map((j) => j.jobId)).toEqual(['b', 'a']);
  });
});
