import fc from 'fast-check';
import { heldContainers, preemptionReturns } from '../../src/core/sharing';
import { runPolicies } from '../../src/sim/driver';
import { Engine, worstMapSecondsOn, worstReduceSecondsOn } from '../../src/sim/engine';
import type { ClusterSpec, TraceJob } from '../../src/sim/model';
import { admissionPort, placementPort, worstCaseEstimates } from '../../src/sim/policies';
import {
  HADOOP_PREEMPTION,
  preemptionModelOf,
  tenantIssues,
  tenantOf,
  tenantShares,
  tenantWorkload,
  type TenantSpec,
} from '../../src/sim/tenant';
import { rtmrCluster } from '../../src/sim/workloads';
import { cluster, nodeClass, traceJob } from './doubles';

/**
 * Another tenant in the simulator: its shares and jobs, the simulated scheduler's
 * rules (docs/simulator.md, "Other tenants in the simulator"), its preemption against the core's
 * model of it, and admission seeing what it holds.
 */

/** 2 nodes x 4 containers: 8 CPU containers, a quarter of them the tenant's own. */
const small: ClusterSpec = cluster({
  slotModel: 'unified',
  nodeClasses: [nodeClass('a', 2, { containers: 4 })],
});

/**
 * A tenant whose only job arrives at 0 and holds all 8 containers for `seconds`: the real-time
 * queue, idle until its first job, finds 6 of its 6 guaranteed containers held.
 */
function hog(over: Partial<TenantSpec> = {}, seconds = 5000): TenantSpec {
  return tenantOf(small, {
    share: 0.25,
    max: 1,
    ...over,
    workload: {
      meanGapSeconds: 1e9,
      containers: [8, 8],
      runSeconds: [seconds, seconds],
      longShare: 0,
    },
  });
}

/** One job of `maps` 1 MB maps and a reduce arriving at `arrival`. */
function one(arrival: number, maps: number, deadline: number): TraceJob[] {
  return [traceJob('j0', { arrival, maps, reduces: 1, inputBytes: maps * 1024 * 1024, deadline })];
}

function run(c: ClusterSpec, jobs: TraceJob[], tenant?: TenantSpec) {
  const [r] = runPolicies({
    cluster: c,
    jobs,
    seed: 1,
    specs: [{ label: 'rtmr', admission: 'rtmr', placement: 'fifo', ...(tenant ? { tenant } : {}) }],
  });
  return r!;
}

describe('a tenant: shares, jobs and validation', () => {
  it('splits the CPU containers as the CapacityScheduler rounds capacities (down)', () => {
    const c = rtmrCluster('unified'); // 20 x 5 + 10 x 3 = 130 containers
    expect(tenantShares(c, tenantOf(c, { share: 0.5, max: 1 }))).toEqual({
      total: 130,
      realtime: 65,
      guaranteed: 65,
      max: 130,
      perRound: 13,
    });
    expect(tenantShares(c, tenantOf(c, { share: 0.33, max: 0.5 }))).toEqual({
      total: 130,
      realtime: 88,
      guaranteed: 42,
      max: 65,
      perRound: 13,
    });
  });

  it('draws the same jobs from the same seed, each within its ranges, long ones among them', () => {
    const w = tenantOf(small, {}).workload;
    const a = tenantWorkload(w, 7, 20_000);
    expect(tenantWorkload(w, 7, 20_000)).toEqual(a);
    expect(tenantWorkload(w, 8, 20_000)).not.toEqual(a);
    expect(a[0]!.arrival).toBe(0);
    expect(a[a.length - 1]!.arrival).toBeLessThanOrEqual(20_000);
    for (const j of a) {
      expect(j.containers).toBeGreaterThanOrEqual(w.containers[0]);
      expect(j.containers).toBeLessThanOrEqual(w.containers[1]);
    }
    const long = a.filter((j) => j.seconds >= w.longRunSeconds[0]).length;
    expect(long / a.length).toBeGreaterThan(0.1);
    expect(long / a.length).toBeLessThan(0.35);
  });

  it('names every bad field, and refuses mr1, failures and a cluster with no CPU container', () => {
    const bad = {
      ...tenantOf(small, {}),
      share: 1,
      max: 2,
      preemption: 'maybe',
      releases: 'sometimes',
      preemptionSettings: { ...HADOOP_PREEMPTION, naturalTerminationFactor: 0 },
      workload: { ...tenantOf(small, {}).workload, containers: [3, 1] },
    } as unknown as TenantSpec;
    expect(tenantIssues(small, bad).map((i) => i.path)).toEqual([
      'tenant.share',
      'tenant.max',
      'tenant.preemption',
      'tenant.releases',
      'tenant.preemptionSettings.naturalTerminationFactor',
      'tenant.workload.containers',
    ]);
    expect(tenantIssues({ ...small, slotModel: 'mr1' }, tenantOf(small, {}))[0]!.message).toBe(
      'another tenant needs a unified cluster (it holds containers, not mr1 slots)',
    );
    expect(
      tenantIssues(
        { ...small, failures: { meanTimeBetweenSeconds: 100, repairSeconds: 10 } },
        tenantOf(small, {}),
      ),
    ).toHaveLength(1);
    const one = cluster({ slotModel: 'unified', nodeClasses: [nodeClass('a', 1, { containers: 1 })] });
    // A share below 1 leaves the real-time queue a container of any the queues share.
    expect(tenantShares(one, tenantOf(one, { share: 0.99 }))).toMatchObject({ realtime: 1, guaranteed: 0 });
    const allGpu = cluster({
      slotModel: 'unified',
      nodeClasses: [nodeClass('g', 1, { containers: 2, gpuContainers: 2, labels: ['gpu'] })],
    });
    expect(tenantIssues(allGpu, tenantOf(allGpu, {}))).toEqual([
      { path: 'tenant.cluster', message: 'the cluster has no CPU container for the queues to share' },
    ]);
  });
});

describe('the simulated scheduler and admission with a tenant', () => {
  it("kills the tenant's containers no later than core/sharing.ts's model says, in its batches", () => {
    // The job arrives at 99, on the monitor's clock (3 s): its first run is at 102, its kill
    // 15 s later at 117 = 99 + 18, the model's first return. Later batches are marked at the
    // first run after a kill, so they come one wait apart, sooner than the model's wait + interval.
    const tenant = hog({ preemption: 'on' });
    const r = run(small, one(99, 24, 2000), tenant);
    const model = preemptionModelOf(tenant, tenantShares(small, tenant));
    const expected = preemptionReturns(6, model).map((x) => 99 + x);
    expect(expected).toEqual([117, 135, 153, 171, 189, 207]);
    const t = r.tenant!;
    const returned = t.batches.flatMap((b) => Array<number>(b.killed).fill(b.killAt));
    // One container a batch (the round's cap: 10 % of 8); the last batch is not killed, the job
    // having ended (at 161) before its wait was over.
    expect(t.batches.map((b) => [b.markedAt, b.killAt, b.heldAtMark, b.marked, b.killed])).toEqual([
      [102, 117, 6, 1, 1],
      [117, 132, 5, 1, 1],
      [132, 147, 4, 1, 1],
      [147, 162, 3, 1, 0],
    ]);
    expect(returned[0]).toBe(expected[0]);
    returned.forEach((at, k) => expect(at).toBeLessThanOrEqual(expected[k]!));
    // Each batch is the size the model gives its first batch of what is held at the mark.
    for (const b of t.batches) {
      const m = preemptionReturns(b.heldAtMark, model);
      expect(b.marked).toBe(m.filter((x) => x === m[0]).length);
    }
    expect(r.outcomes[0]).toMatchObject({ admitted: true, metDeadline: true });
    expect(r.outcomes[0]!.start).toBeGreaterThanOrEqual(117);
    expect(t.preempted).toBe(returned.length);
  });

  it('returns every held container no later than the model, whatever the waits, shares and arrival', () => {
    let compared = 0;
    fc.assert(
      fc.property(
        fc.record({
          nodes: fc.integer({ min: 1, max: 4 }),
          containers: fc.integer({ min: 2, max: 6 }),
          share: fc.constantFrom(0, 0.25, 0.5),
          interval: fc.constantFrom(0.5, 1, 3, 5),
          wait: fc.constantFrom(0, 2, 7, 15),
          factor: fc.constantFrom(0.1, 0.2, 0.5, 1),
          perRound: fc.constantFrom(0.05, 0.1, 0.5, 1),
          arrival: fc.double({ min: 1, max: 100, noNaN: true }),
        }),
        (r) => {
          const c = cluster({
            slotModel: 'unified',
            nodeClasses: [nodeClass('a', r.nodes, { containers: r.containers })],
          });
          const total = r.nodes * r.containers;
          const tenant = tenantOf(c, {
            share: r.share,
            max: 1,
            preemption: 'on',
            preemptionSettings: {
              monitoringIntervalSeconds: r.interval,
              maxWaitBeforeKillSeconds: r.wait,
              naturalTerminationFactor: r.factor,
              totalPreemptionPerRound: r.perRound,
            },
            workload: {
              meanGapSeconds: 1e9,
              containers: [total, total],
              runSeconds: [1e5, 1e5],
              longShare: 0,
            },
          });
          const shares = tenantShares(c, tenant);
          // Maps of about 100 s each, three waves of the guarantee: the job stays open while
          // everything held comes back.
          const maps = 3 * shares.realtime;
          const jobs = [
            traceJob('j0', {
              arrival: r.arrival,
              maps,
              reduces: 0,
              inputBytes: maps * 1000 * 1024 * 1024,
              deadline: 1e6,
            }),
          ];
          const out = run(c, jobs, tenant);
          expect(out.outcomes[0]).toMatchObject({ admitted: true, metDeadline: true });
          const model = preemptionReturns(shares.realtime, preemptionModelOf(tenant, shares)).map(
            (x) => r.arrival + x,
          );
          const returned = out.tenant!.batches.flatMap((b) => Array<number>(b.killed).fill(b.killAt));
          expect(returned).toHaveLength(shares.realtime);
          returned.forEach((at, k) => expect(at).toBeLessThanOrEqual(model[k]! + 1e-9));
          compared += returned.length;
        },
      ),
      { numRuns: 200, seed: 23 },
    );
    expect(compared).toBeGreaterThan(1000);
  });

  it('rejects with the sharing named when the whole guarantee is lent and nothing is known to return it', () => {
    const r = run(small, one(99, 4, 2000), hog({ preemption: 'off', releases: 'unknown' }));
    expect(r.outcomes[0]).toMatchObject({
      admitted: false,
      reason:
        'guarantee-held: guarantee lent to other queues, preemption off: 6 of 6 guaranteed containers are held by other queues; none has a known release',
    });
    expect(r.summary.tenant).toEqual({
      preempted: 0,
      borrowedContainerSeconds: 6 * 99,
      rejectedNamingSharing: 1,
    });
  });

  it("counts a held container back when the tenant's container ends, when its end is known", () => {
    // The tenant's containers end at 300: a job due by 99 + 400 fits after them, one due by
    // 99 + 150 does not, and its reason says so.
    const tenant = hog({ preemption: 'off', releases: 'known' }, 300);
    const fits = run(small, one(99, 4, 400), tenant);
    expect(fits.outcomes[0]).toMatchObject({ admitted: true, metDeadline: true });
    expect(fits.outcomes[0]!.start).toBeGreaterThanOrEqual(300);
    const late = run(small, one(99, 4, 150), tenant);
    expect(late.outcomes[0]!.admitted).toBe(false);
    expect(late.outcomes[0]!.reason).toBe(
      'new-job-misses: j0 late by 62.2 s (class cpu estimates); guarantee lent to other queues, preemption off: 6 of 6 guaranteed containers are held by other queues; 6 return as their apps end in 201 s',
    );
  });

  it('sizes a policy without a snapshot rebuild without every held container, as the sidecar does', () => {
    // yarn-greedy cannot count a held container as busy until it returns: with all 6 held its
    // lane has nothing, while rtmr counts on the preemption model's returns and admits.
    const tenant = hog({ preemption: 'on' });
    const [greedy] = runPolicies({
      cluster: small,
      jobs: one(99, 4, 2000),
      seed: 1,
      specs: [{ label: 'yarn-greedy', admission: 'yarn-greedy', placement: 'fifo', tenant }],
    });
    expect(greedy!.outcomes[0]).toMatchObject({
      admitted: false,
      reason:
        'guarantee-held: 6 of 6 guaranteed containers are held by other queues; preemption takes them back in 18–108 s',
    });
    expect(run(small, one(99, 4, 2000), tenant).outcomes[0]).toMatchObject({
      admitted: true,
      metDeadline: true,
    });
  });

  it('admission blind to the tenant admits a job it then cannot keep', () => {
    const r = run(small, one(99, 4, 150), hog({ preemption: 'off', admission: 'blind' }, 300));
    expect(r.outcomes[0]).toMatchObject({ admitted: true, metDeadline: false });
    expect(r.outcomes[0]!.finish).toBeGreaterThan(300);
  });

  it('keeps the queues within their shares: the tenant borrows only while no admitted job is open', () => {
    const c = small;
    const tenant = tenantOf(c, {
      share: 0.25,
      max: 0.75,
      preemption: 'on',
      preemptionSettings: { ...HADOOP_PREEMPTION, maxWaitBeforeKillSeconds: 5 },
      workload: {
        meanGapSeconds: 20,
        containers: [1, 4],
        runSeconds: [10, 120],
        longShare: 0.3,
        longRunSeconds: [300, 600],
      },
    });
    const jobs = Array.from({ length: 12 }, (_, i) =>
      traceJob(`j${i}`, {
        arrival: i * 150,
        maps: 6,
        reduces: 1,
        inputBytes: 6 * 1024 * 1024,
        deadline: 600,
      }),
    );
    const shares = tenantShares(c, tenant);
    let engine: Engine | null = null;
    const book = worstCaseEstimates(
      jobs,
      (j) => worstMapSecondsOn(c, j),
      (j) => worstReduceSecondsOn(c, j),
      c,
      'floored',
    );
    const model = preemptionModelOf(tenant, shares);
    const admission = admissionPort('rtmr', {}, c, book, undefined, undefined, {
      spec: tenant,
      shares,
      model,
      read: () => engine!.sharingRead(),
      progressOf: (id) => engine!.taskProgress(id),
    });
    const placement = placementPort('fifo', {}, c, {
      nodeId: (i) => engine!.nodeId(i),
      orderKeyMs: (j) => engine!.queueRank(j.id),
      orderKeyFixed: false,
      keepPromise: true,
    });
    engine = new Engine(c, {
      seed: 3,
      admission,
      placement,
      tenant: { spec: tenant, shares, model, jobs: tenantWorkload(tenant.workload, 3, 3000) },
    });
    for (const j of jobs) engine.submit(j);
    let open = false;
    let lastHeld = Infinity;
    let borrowedWhileIdle = 0;
    let heldWhileOpen = 0;
    while (engine.step()) {
      const read = engine.sharingRead()!;
      const tenantUsed = read.otherEnds.length;
      expect(read.used).toBeLessThanOrEqual(shares.realtime);
      expect(tenantUsed).toBeLessThanOrEqual(shares.max);
      expect(read.used + tenantUsed + read.free).toBe(shares.total);
      const held = heldContainers(read);
      const nowOpen = engine.snapshot().jobs.some((j) => j.status === 'admitted' || j.status === 'running');
      // While admitted work is open the tenant takes nothing beyond its guarantee: what it holds
      // of the real-time queue's only shrinks.
      if (open && nowOpen) expect(held).toBeLessThanOrEqual(lastHeld);
      if (!nowOpen && tenantUsed > shares.guaranteed) borrowedWhileIdle++;
      if (nowOpen && held > 0) heldWhileOpen++;
      open = nowOpen;
      lastHeld = held;
      if (
        engine
          .outcomes()
          .every((o) => o.status !== 'waiting' && o.status !== 'admitted' && o.status !== 'running')
      )
        break;
    }
    expect(borrowedWhileIdle).toBeGreaterThan(0);
    expect(heldWhileOpen).toBeGreaterThan(0);
    expect(engine.tenantReport()!.preempted).toBeGreaterThan(0);
    expect(engine.outcomes().filter((o) => o.admitted && o.metDeadline !== true)).toEqual([]);
  });
});
