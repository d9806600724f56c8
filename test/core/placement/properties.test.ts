import fc from 'fast-check';
import { parseEnergyProfile } from '../../../src/core/energy/profile';
import { createEfh } from '../../../src/core/placement/efh';
import { createEfhNoAe } from '../../../src/core/placement/efh-no-ae';
import type { NodeView, PlacementJob } from '../../../src/core/placement/common/types';
import { defaultRegistry } from '../../../src/core/registry';
import { simulate, type SimJob, type SimNode } from './harness';

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

const nodeArb: fc.Arbitrary<NodeView> = fc
  .record({
    id: fc.constantFrom(...NODE_IDS),
    gpuNode: fc.boolean(),
    cpu: fc.integer({ min: 0, max: 4 }),
    gpu: fc.integer({ min: 0, max: 2 }),
  })
  .map(({ id, gpuNode, cpu, gpu }) => ({
    nodeId: id,
    nodeClass: gpuNode ? 'gpu' : 'cpu',
    labels: gpuNode ? ['gpu'] : [],
    // GPU capacity on an unlabelled node is possible input too: no GPU job may use it.
    free: { cpu, gpu },
  }));

const jobsArb: fc.Arbitrary<PlacementJob[]> = fc
  .array(
    fc.record({
      kind: fc.constantFrom('cpu', 'gpu', 'adaptive') as fc.Arbitrary<PlacementJob['kind']>,
      arrivalMs: fc.integer({ min: 0, max: 10_000 }),
      running: fc.integer({ min: 0, max: 3 }),
      user: fc.constantFrom('u1', 'u2'),
      replicas: fc.array(fc.subarray(NODE_IDS, { maxLength: 2 }), { maxLength: 6 }),
    }),
    { maxLength: 5 },
  )
  .map((specs) =>
    specs.map((s, i) => ({
      jobId: `j${i}`,
      kind: s.kind,
      arrivalMs: s.arrivalMs,
      runningTasks: s.running,
      user: s.user,
      totalTasks: s.replicas.length + s.running,
      pendingTasks: s.replicas.map((r, k) => ({ taskId: `j${i}-m${k}`, replicaNodes: r })),
    })),
  );

const stepsArb = fc.array(
  fc.record({ node: nodeArb, jobs: jobsArb, dtMs: fc.integer({ min: 0, max: 5000 }) }),
  {
    minLength: 1,
    maxLength: 6,
  },
);

describe.each(registry.names('placement'))(
  'placement policy %s: properties over random heartbeat sequences',
  (name) => {
    const make = () =>
      registry.createPlacement(
        name,
        { ...(name.startsWith('efh') ? { longWaitThresholdMs: 2000 } : {}) },
        { energyProfile: profile },
      );

    it('never assigns more than the node has free, per kind; assigns only pending tasks, each once; keeps GPU jobs on GPU-labelled containers; is deterministic', () => {
      fc.assert(
        fc.property(stepsArb, (steps) => {
          const policy = make();
          let state = policy.initialState();
          let now = 0;
          for (const step of steps) {
            now += step.dtMs;
            const input = { node: step.node, jobs: step.jobs, nowMs: now };
            const r = policy.onHeartbeat(state, input);
            // Determinism: the same state and input give the same answer, from a fresh instance too.
            expect(make().onHeartbeat(state, input)).toEqual(r);
            const perKind = { cpu: 0, gpu: 0 };
            const seen = new Set<string>();
            for (const a of r.assignments) {
              perKind[a.containerKind] += 1;
              expect(a.nodeId).toBe(step.node.nodeId);
              const job = step.jobs.find((j) => j.jobId === a.jobId)!;
              const task = job.pendingTasks.find((t) => t.taskId === a.taskId);
              expect(task).toBeDefined();
              expect(a.local).toBe(task!.replicaNodes.includes(step.node.nodeId));
              expect(seen.has(a.taskId)).toBe(false);
              seen.add(a.taskId);
              const gpuOnly = job.kind === 'gpu' || (name === 'efh-no-ae' && job.kind === 'adaptive');
              if (gpuOnly) {
                expect(a.containerKind).toBe('gpu');
                expect(step.node.labels).toContain('gpu');
              }
              if (job.kind === 'cpu') expect(a.containerKind).toBe('cpu');
            }
            expect(perKind.cpu).toBeLessThanOrEqual(step.node.free.cpu);
            expect(perKind.gpu).toBeLessThanOrEqual(step.node.free.gpu);
            state = r.state;
          }
        }),
        { numRuns: 150 },
      );
    });
  },
);

describe('EFH cluster-wide allocation: properties', () => {
  it.each([true, false])(
    'grants never exceed free containers nor R_j, and respect labels (adaptive execution: %s)',
    (ae) => {
      const policy = ae
        ? createEfh({ longWaitThresholdMs: 1000 }, { energyProfile: profile })
        : createEfhNoAe({ longWaitThresholdMs: 1000 }, { energyProfile: profile });
      fc.assert(
        fc.property(
          fc.uniqueArray(nodeArb, { selector: (n) => n.nodeId, minLength: 1 }),
          jobsArb,
          fc.integer({ min: 0, max: 20_000 }),
          (nodes, jobs, nowMs) => {
            const r = policy.allocate!(policy.initialState(), { nodes, jobs, nowMs });
            expect(policy.allocate!(policy.initialState(), { nodes, jobs, nowMs })).toEqual(r);
            for (const n of nodes) {
              for (const kind of ['cpu', 'gpu'] as const) {
                expect(
                  r.grants.filter((g) => g.nodeId === n.nodeId && g.containerKind === kind).length,
                ).toBeLessThanOrEqual(n.free[kind]);
              }
            }
            for (const j of jobs) {
              const mine = r.grants.filter((g) => g.jobId === j.jobId);
              expect(mine.length).toBeLessThanOrEqual(j.pendingTasks.length);
              if (j.kind === 'gpu' || (!ae && j.kind === 'adaptive')) {
                for (const g of mine) {
                  expect(g.containerKind).toBe('gpu');
                  expect(nodes.find((n) => n.nodeId === g.nodeId)!.labels).toContain('gpu');
                }
              }
              // Level II places at most one task per granted container, each task once.
              const placed = policy.dispatch!(j, mine, nodes);
              expect(placed.length).toBe(Math.min(mine.length, j.pendingTasks.length));
              expect(new Set(placed.map((p) => p.taskId)).size).toBe(placed.length);
            }
          },
        ),
        { numRuns: 200 },
      );
    },
  );
});

describe('EFH long-waiting queue: no starvation', () => {
  const MIN = 60_000;
  const nodes: SimNode[] = [
    { nodeId: 'c1', nodeClass: 'cpu', labels: [], capacity: { cpu: 2, gpu: 0 } },
    { nodeId: 'c2', nodeClass: 'cpu', labels: [], capacity: { cpu: 2, gpu: 0 } },
    { nodeId: 'g1', nodeClass: 'gpu', labels: ['gpu'], capacity: { cpu: 1, gpu: 1 } },
  ];
  const durationMs = (_j: string, kind: 'cpu' | 'gpu') => (kind === 'gpu' ? 2 * MIN : 3 * MIN);

  it('a GPU job asking for more GPU containers than the cluster has starves without it and is served once it has waited T', () => {
    const jobs: SimJob[] = [{ jobId: 'g', arrivalMs: 0, kind: 'gpu', replicas: [[], [], []] }];
    const run = (T: number) =>
      simulate({
        policy: createEfhNoAe({ longWaitThresholdMs: T }, { energyProfile: profile }),
        nodes,
        jobs,
        durationMs,
        mode: 'allocate',
        tickMs: MIN,
        horizonMs: 60 * MIN,
      });
    expect(run(1e12).unfinished).toEqual(['g']);
    const served = run(5 * MIN);
    expect(served.firstStartMs.g).toBe(5 * MIN);
    expect(served.finishMs.g).toBe(11 * MIN);
  });

  it('in randomized runs every job is served, and starts within T plus the serial time of all the work of the run', () => {
    const T = 5 * MIN;
    const jobArb = fc.record({
      kind: fc.constantFrom('cpu', 'gpu', 'adaptive') as fc.Arbitrary<PlacementJob['kind']>,
      arrivalMin: fc.integer({ min: 0, max: 30 }),
      tasks: fc.integer({ min: 1, max: 6 }),
    });
    let worst = 0;
    fc.assert(
      fc.property(
        fc.array(jobArb, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        fc.boolean(),
        (specs, ae, heartbeat) => {
          const jobs: SimJob[] = specs.map((s, i) => ({
            jobId: `j${String(i).padStart(2, '0')}`,
            arrivalMs: s.arrivalMin * MIN,
            kind: s.kind,
            replicas: Array.from({ length: s.tasks }, (_, k) => [nodes[k % 3].nodeId]),
          }));
          const policy = ae
            ? createEfh({ longWaitThresholdMs: T }, { energyProfile: profile })
            : createEfhNoAe({ longWaitThresholdMs: T }, { energyProfile: profile });
          const r = simulate({
            policy,
            nodes,
            jobs,
            durationMs,
            mode: heartbeat ? 'heartbeat' : 'allocate',
            tickMs: MIN,
            horizonMs: 24 * 60 * MIN,
          });
          expect(r.unfinished).toEqual([]);
          // Serial drain time of all the work, a loose but finite bound independent of the policy's order.
          const allWork = jobs.reduce((n, j) => n + j.replicas.length * 3 * MIN, 0);
          for (const j of jobs) {
            const wait = r.firstStartMs[j.jobId] - j.arrivalMs;
            worst = Math.max(worst, wait);
            expect(wait).toBeLessThanOrEqual(T + allWork);
          }
        },
      ),
      { numRuns: 120, seed: 4 },
    );
    // The bound observed over all runs, recorded so a regression shows as a changed figure.
    expect(worst).toBeGreaterThan(0);
    process.stdout.write(
      `EFH long-waiting queue: worst first-start wait observed ${worst / MIN} min (T = ${T / MIN} min)\n`,
    );
  });
});
