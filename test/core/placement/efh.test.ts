import { parseEnergyProfile, type EnergyProfile } from '../../../src/core/energy/profile';
import { createEfh, dispatchTasks } from '../../../src/core/placement/efh';
import { containerGroups, levelI, rankCandidates } from '../../../src/core/placement/efh/level1';
import { createEfhNoAe } from '../../../src/core/placement/efh-no-ae';
import { ValidationError } from '../../../src/errors/validation';
import { grant, job, node } from './builders';
import { simulate, type SimNode } from './harness';

/** Profile with one workload whose efficiencies give the scores the seed's examples use. */
function profileFor(
  energy: Record<string, { cpu: number; gpu?: number }>,
  labels: Record<string, string[]>,
): EnergyProfile {
  return parseEnergyProfile(
    {
      gpuLabel: 'gpu',
      nodeClasses: Object.fromEntries(
        Object.keys(energy).map((c) => [c, { idleWatts: 100, labels: labels[c] ?? [] }]),
      ),
      workloads: { w: { mapTaskKwh: energy } },
      defaultWorkload: { cpu: 'w', gpu: 'w', adaptive: 'w' },
    },
    Object.keys(energy).map((c) => ({ nodeClass: c, nodes: 1, labels: labels[c] ?? [] })),
  );
}

describe('EFH level I (He, dissertation, Tables 6.2-6.3)', () => {
  // ef = 1/E: class k scores 3, class l scores 2; no replica information, so dop = 1 and h = ef.
  const profile = profileFor({ k: { cpu: 1 / 3 }, l: { cpu: 1 / 2 } }, {});
  const opts = { profile, gpuLabel: 'gpu', longWaitThresholdMs: 1e9, adaptiveExecution: true };
  const k = node('k', { cpu: 2, nodeClass: 'k' });
  const l = node('l', { cpu: 3, nodeClass: 'l' });

  it('optset example: node k has 2 containers of score 3, node l 3 of score 2; a job asking for 3 gets 2 from k and 1 from l', () => {
    const j = job('j', [[], [], []]);
    const ranked = rankCandidates(j, containerGroups([k, l]), opts);
    expect(ranked.map((c) => [c.group.node.nodeId, c.h])).toEqual([
      ['k', 3],
      ['l', 2],
    ]);
    const { grants } = levelI([j], containerGroups([k, l]), [], 0, opts);
    expect(grants).toEqual([grant('j', 'k'), grant('j', 'k'), grant('j', 'l')]);
  });

  it('ranking factor r_j = available optset containers / R_j orders the regular queue', () => {
    // a's optset is k (busy except one container), b's is l (all free): b (r = 1) goes first and takes l.
    const a = job('a', [['k'], ['k']], { arrivalMs: 0 });
    const b = job('b', [['l'], ['l']], { arrivalMs: 1 });
    const kBusy = node('k', { cpu: 1, nodeClass: 'k', capacity: { cpu: 2, gpu: 0 } });
    const { grants } = levelI([a, b], containerGroups([kBusy, l]), [], 0, opts);
    // a (r = 1/2) comes second: it needs 2 and exactly 2 remain (k: 1, l: 1), best first.
    expect(grants.map((g) => `${g.jobId}@${g.nodeId}`)).toEqual(['b@l', 'b@l', 'a@k', 'a@l']);
  });

  it('a regular job is served only when all R_j fit, and stops the queue (Table 6.2 lines 31-35)', () => {
    const big = job('big', [[], [], [], [], [], []], { arrivalMs: 0 });
    const small = job('small', [[]], { arrivalMs: 1 });
    const { grants, longWaiting } = levelI([big, small], containerGroups([k, l]), [], 10, opts);
    // small has r = 1 and goes first; big (R = 6 > 4 left) does not fit.
    expect(grants.map((g) => g.jobId)).toEqual(['small']);
    expect(longWaiting).toEqual([]);
  });

  it('a job that has waited T joins the long-waiting queue, is served first and takes whatever is relevant', () => {
    const big = job('big', [[], [], [], [], [], []], { arrivalMs: 0 });
    const small = job('small', [[]], { arrivalMs: 500 });
    const r = levelI([big, small], containerGroups([k, l]), [], 1000, { ...opts, longWaitThresholdMs: 1000 });
    expect(r.grants.map((g) => g.jobId)).toEqual(['big', 'big', 'big', 'big', 'big']);
    expect(r.longWaiting).toEqual(['big']);
  });

  it('without adaptive execution an adaptive job is a GPU job: only GPU-labelled GPU containers are relevant', () => {
    const p = profileFor({ cpu: { cpu: 0.03 }, gpu: { cpu: 0.02, gpu: 0.01 } }, { gpu: ['gpu'] });
    const nodes = [node('c1', { cpu: 4 }), node('g1', { cpu: 3, gpu: 1, labels: ['gpu'] })];
    const j = job('a', [[], []], { kind: 'adaptive' });
    const noAe = levelI([j], containerGroups(nodes), [], 0, {
      ...opts,
      profile: p,
      adaptiveExecution: false,
      longWaitThresholdMs: 0,
    });
    expect(noAe.grants).toEqual([grant('a', 'g1', 'gpu')]);
    const ae = levelI([j], containerGroups(nodes), [], 0, { ...opts, profile: p, adaptiveExecution: true });
    expect(ae.grants).toEqual([grant('a', 'g1', 'gpu'), grant('a', 'g1', 'cpu')]);
  });

  it('aeScope long-waiting: adaptive execution only for long-waiting jobs; a regular adaptive job is ranked as a GPU job', () => {
    const p = profileFor({ cpu: { cpu: 0.03 }, gpu: { cpu: 0.02, gpu: 0.01 } }, { gpu: ['gpu'] });
    const nodes = [node('c1', { cpu: 4 }), node('g1', { cpu: 3, gpu: 1, labels: ['gpu'] })];
    const one = job('one', [[]], { kind: 'adaptive', arrivalMs: 0 });
    const two = job('two', [[], []], { kind: 'adaptive', arrivalMs: 0 });
    const scoped = { ...opts, profile: p, aeScope: 'long-waiting' as const, longWaitThresholdMs: 1000 };
    // Regular (waited 10 ms of 1000): only the GPU container is relevant; a one-map job fits there.
    expect(levelI([one], containerGroups(nodes), [], 10, scoped).grants).toEqual([grant('one', 'g1', 'gpu')]);
    // A two-map regular job does not fit the one GPU container: nothing, as a GPU job (Table 6.3).
    expect(levelI([two], containerGroups(nodes), [], 10, scoped).grants).toEqual([]);
    // Long-waiting (waited 1000 ms): every container is relevant, as with aeScope all.
    const late = levelI([two], containerGroups(nodes), [], 1000, scoped);
    expect(late.grants).toEqual([grant('two', 'g1', 'gpu'), grant('two', 'g1', 'cpu')]);
    // It got all it asked for, so it leaves the long-waiting queue at once.
    expect(late.longWaiting).toEqual([]);
    expect(levelI([two], containerGroups(nodes), [], 10, { ...scoped, aeScope: 'all' }).grants).toEqual(
      late.grants,
    );
    expect(() => createEfh({ aeScope: 'some' }, { energyProfile: profile })).toThrow(/aeScope/);
  });

  it('requires an energy profile and a GPU label that agrees with it', () => {
    expect(() => createEfh({})).toThrow(/placement\.energyProfile: required by placement policy efh/);
    expect(() => createEfh({ gpuLabel: 'cuda' }, { energyProfile: profile })).toThrow(ValidationError);
    expect(() => createEfh({ longWaitThresholdMs: -5 }, { energyProfile: profile })).toThrow(
      /longWaitThresholdMs/,
    );
  });
});

describe('EFH level II (He, dissertation, Table 6.4)', () => {
  it('L_k example: task A with one local container is placed before task B with two', () => {
    const j = job('j', [['a', 'b'], ['a']]); // task m0 = B (local to a and b), m1 = A (local to a only)
    // Container a has the higher fitness, so a naive walk would give it to B first.
    const h = (g: { nodeId: string }) => (g.nodeId === 'a' ? 2 : 1);
    const out = dispatchTasks(j, [grant('j', 'a'), grant('j', 'b')], h);
    expect(out.map((x) => [x.taskId, x.nodeId, x.local])).toEqual([
      ['j-m1', 'a', true],
      ['j-m0', 'b', true],
    ]);
  });

  it('non-local tasks come last and take the best containers left; a task whose local container is gone is deferred', () => {
    const j = job('j', [['x'], ['a'], ['a']]);
    const h = (g: { nodeId: string }) => (g.nodeId === 'c' ? 5 : 1);
    const out = dispatchTasks(j, [grant('j', 'a'), grant('j', 'c')], h);
    // L: m0 = 0, m1 = 1, m2 = 1. m1 takes a; m2 finds a gone, goes to the end with L = 0; m0 takes c (best).
    expect(out.map((x) => [x.taskId, x.nodeId, x.local])).toEqual([
      ['j-m1', 'a', true],
      ['j-m0', 'c', false],
    ]);
  });
});

describe('adaptive execution example (He, dissertation, section 6.1.3)', () => {
  // 3 tasks; a task takes 10 min on the GPU node's GPU and 20 min on a CPU container.
  const MIN = 60_000;
  const profile = profileFor({ cpu: { cpu: 0.02 }, gpu: { cpu: 0.02, gpu: 0.01 } }, { gpu: ['gpu'] });
  const nodes: SimNode[] = [
    { nodeId: 'cpu1', nodeClass: 'cpu', labels: [], capacity: { cpu: 1, gpu: 0 } },
    { nodeId: 'gpu1', nodeClass: 'gpu', labels: ['gpu'], capacity: { cpu: 0, gpu: 1 } },
  ];
  const run = (adaptive: boolean, mode: 'allocate' | 'heartbeat') =>
    simulate({
      policy: adaptive
        ? createEfh({ longWaitThresholdMs: 0 }, { energyProfile: profile })
        : createEfhNoAe({ longWaitThresholdMs: 0 }, { energyProfile: profile }),
      nodes,
      jobs: [{ jobId: 'md', arrivalMs: 0, kind: 'adaptive', replicas: [[], [], []] }],
      durationMs: (_j, kind) => (kind === 'gpu' ? 10 * MIN : 20 * MIN),
      mode,
      tickMs: MIN,
      horizonMs: 120 * MIN,
    });

  it.each(['allocate', 'heartbeat'] as const)(
    'GPU only takes 30 minutes, adaptive execution 20 (%s-driven)',
    (mode) => {
      const gpuOnly = run(false, mode);
      expect(gpuOnly.makespanMs).toBe(30 * MIN);
      expect(gpuOnly.placements.every((p) => p.kind === 'gpu')).toBe(true);
      const adaptive = run(true, mode);
      expect(adaptive.makespanMs).toBe(20 * MIN);
      expect(adaptive.placements.map((p) => `${p.nodeId}:${p.kind}@${p.startMs / MIN}`).sort()).toEqual([
        'cpu1:cpu@0',
        'gpu1:gpu@0',
        'gpu1:gpu@10',
      ]);
    },
  );
});
