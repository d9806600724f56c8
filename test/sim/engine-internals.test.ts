import fc from 'fast-check';
import { Engine, type IndexedJobView } from '../../src/sim/engine';
import { CodeQueue } from '../../src/sim/event-queue';
import { summarize } from '../../src/sim/metrics';
import type { TraceJob } from '../../src/sim/model';
import { placementPort } from '../../src/sim/policies';
import type { JobView, NodeView, PlacementPort } from '../../src/sim/policy-port';
import { mulberry32 } from '../../src/sim/rng';
import { TASK_COMPLETED, TASK_GPU, TASK_LOCAL, TASK_MAP } from '../../src/sim/task-log';
import { acceptAll, cluster, greedyLocal, nodeClass, traceJob } from './doubles';

/**
 * The engine's compact bookkeeping (numeric events, attempts by column, pending maps as a
 * linked list, generated blocks kept per job) must answer exactly what the plain structures
 * it replaced would: these tests hold each against that plain version.
 */

describe('CodeQueue', () => {
  it('pops in time order, and equal times in push order, with pushes and pops interleaved', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constant(-1)), { maxLength: 3000 }),
        (ops) => {
          const q = new CodeQueue();
          // The plain model: a list kept sorted by (time, push order).
          const model: Array<[number, number]> = [];
          let pushed = 0;
          for (const op of ops) {
            if (op >= 0) {
              q.push(op, pushed);
              model.push([op, pushed++]);
              model.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
            } else {
              const want = model.shift();
              expect(q.pop()).toBe(want !== undefined);
              if (want) expect([q.time, q.code]).toEqual(want);
            }
            expect(q.size).toBe(model.length);
            expect(q.peekTime()).toBe(model[0]?.[0]);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses a time that is not finite', () => {
    expect(() => new CodeQueue().push(Number.NaN, 1)).toThrow(RangeError);
  });
});

/** A placement port that checks the indexed accessors of every view it is shown, then delegates. */
function checking(inner: PlacementPort): PlacementPort & { checks: number } {
  const port = {
    name: inner.name,
    checks: 0,
    jobAdded: (job: JobView, now: number) => inner.jobAdded(job, now),
    jobRemoved: (id: string, now: number) => inner.jobRemoved(id, now),
    assignMaps(node: NodeView, queue: readonly JobView[], now: number) {
      for (const v of queue) {
        const j = v as IndexedJobView;
        const arr = j.pendingMaps;
        expect(j.pendingMapCount).toBe(arr.length);
        // Backwards first (each a walk from the head), then forwards (the cursor's steps).
        for (let i = arr.length - 1; i >= 0; i--) expect(j.pendingMapAt(i)).toBe(arr[i]);
        for (let i = 0; i < arr.length; i++) expect(j.pendingMapAt(i)).toBe(arr[i]);
        expect(() => j.pendingMapAt(arr.length)).toThrow(RangeError);
        // Only the heartbeating node's list, as a policy reads it: the others keep the entries
        // they drop lazily, which a lost map's return must not bring back.
        const n = node.index;
        expect([...j.pendingMapsOn(n)]).toEqual(arr.filter((m) => j.mapReplicas(m).includes(n)));
        port.checks++;
      }
      return inner.assignMaps(node, queue, now);
    },
  };
  return port;
}

describe('pending maps: linked list and per-node lists agree with the pendingMaps array', () => {
  it('through a run with node failures, where lost maps rejoin at the tail', () => {
    const c = cluster({
      heartbeatSeconds: 3,
      failures: { meanTimeBetweenSeconds: 60, repairSeconds: 15 },
      nodeClasses: [nodeClass('a', 5, { mapSlots: 2, reduceSlots: 1 })],
      hdfs: { blockMB: 128, replication: 2, blocks: 0 },
    });
    const jobs = Array.from({ length: 8 }, (_, i) =>
      traceJob(`j${i}`, { arrival: i * 7, maps: 5 + ((i * 7) % 11), reduces: 1 }),
    );
    const port = checking(greedyLocal());
    const e = new Engine(c, { seed: 3, admission: acceptAll(), placement: port });
    for (const j of jobs) e.submit(j);
    e.run();
    expect(port.checks).toBeGreaterThan(50);
    // Failures did strike running maps, so the rejoin path was taken.
    expect(e.taskRecords().some((t) => !t.completed && t.kind === 'map')).toBe(true);
    expect(e.outcomes().every((o) => o.status === 'finished')).toBe(true);
  });

  it('under the registry FIFO policy, which walks them through the placement adapter', () => {
    const c = cluster({ nodeClasses: [nodeClass('a', 4, { mapSlots: 3 })] });
    const jobs = Array.from({ length: 5 }, (_, i) => traceJob(`j${i}`, { arrival: i * 2, maps: 12 }));
    let engine: Engine | null = null;
    const inner = placementPort('fifo', {}, c, {
      nodeId: (i) => (engine as Engine).nodeId(i),
      orderKeyMs: (j) => j.spec.arrival * 1000,
    });
    const port = checking(inner);
    engine = new Engine(c, { seed: 1, admission: acceptAll(), placement: port });
    for (const j of jobs) engine.submit(j);
    engine.run();
    expect(port.checks).toBeGreaterThan(10);
    expect(engine.outcomes().every((o) => o.status === 'finished')).toBe(true);
  });
});

describe('blocks: generated ids kept per job behave as one shared table of block ids', () => {
  /** The plain model: one table of block id -> replicas, drawn in submission and map order. */
  function reference(jobs: TraceJob[], nodes: number, replication: number, seed: number) {
    const rng = mulberry32(seed).fork('block-placement');
    const table = new Map<string, number[]>();
    const k = Math.min(replication, nodes);
    return jobs.map((j) =>
      (j.blocks ?? Array.from({ length: j.maps }, (_, i) => `${j.id}/blk_${i}`)).map((b) => {
        let r = table.get(b);
        if (!r) {
          const chosen = new Set<number>();
          while (chosen.size < k) chosen.add(rng.int(0, nodes - 1));
          table.set(b, (r = [...chosen]));
        }
        return r;
      }),
    );
  }

  it('a trace naming another job generated block ids, before and after that job, shares its replicas', () => {
    const jobs = [
      traceJob('a', { maps: 3 }),
      // Names a's second block, a block of x (not yet submitted) twice, and one of its own.
      traceJob('b', { maps: 4, blocks: ['a/blk_1', 'x/blk_0', 'x/blk_0', 'own'] }),
      traceJob('x', { maps: 2 }),
      // Not generated ids: index out of range, not canonical, not a job.
      traceJob('c', { maps: 3, blocks: ['a/blk_3', 'a/blk_01', 'nobody/blk_0'] }),
    ];
    const c = cluster({
      nodeClasses: [nodeClass('n', 9)],
      hdfs: { blockMB: 128, replication: 3, blocks: 0 },
    });
    const views = new Map<string, JobView>();
    const port: PlacementPort = { ...greedyLocal(), jobAdded: (v) => void views.set(v.id, v) };
    const e = new Engine(c, { seed: 21, admission: acceptAll(), placement: port });
    for (const j of jobs) e.submit(j);
    e.run();
    const want = reference(jobs, 9, 3, 21);
    jobs.forEach((j, ji) => {
      const v = views.get(j.id) as JobView;
      for (let i = 0; i < j.maps; i++) {
        expect(v.mapReplicas(i)).toEqual(want[ji]?.[i]);
        expect(e.replicasOf(v.mapBlock(i))).toEqual(want[ji]?.[i]);
      }
    });
    expect(views.get('a')?.mapBlock(1)).toBe('a/blk_1');
    expect(views.get('b')?.mapReplicas(1)).toEqual(views.get('x')?.mapReplicas(0));
    expect(e.replicasOf('a/blk_9')).toEqual([]);
  });

  it('random traces mixing generated and named blocks place every block as the shared table would', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            maps: fc.integer({ min: 1, max: 5 }),
            named: fc.option(
              fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 6 })), {
                minLength: 1,
                maxLength: 5,
              }),
            ),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.integer({ min: 1, max: 1000 }),
        (specs, seed) => {
          const jobs = specs.map((s, i) =>
            s.named
              ? traceJob(`j${i}`, {
                  maps: s.named.length,
                  blocks: s.named.map(([job, blk]) => `j${job}/blk_${blk}`),
                })
              : traceJob(`j${i}`, { maps: s.maps }),
          );
          const views: JobView[] = [];
          const port: PlacementPort = { ...greedyLocal(), jobAdded: (v) => void views.push(v) };
          const e = new Engine(cluster({ nodeClasses: [nodeClass('n', 5)] }), {
            seed,
            admission: acceptAll(),
            placement: port,
          });
          for (const j of jobs) e.submit(j);
          e.advanceTo(0);
          const want = reference(jobs, 5, 2, seed);
          views.forEach((v) => {
            for (let i = 0; i < v.spec.maps; i++) expect(v.mapReplicas(i)).toEqual(want[v.index]?.[i]);
          });
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('task records from the task log', () => {
  const c = cluster({
    slotModel: 'unified',
    failures: { meanTimeBetweenSeconds: 80, repairSeconds: 10 },
    nodeClasses: [
      nodeClass('c', 3, { containers: 3 }),
      nodeClass('g', 2, {
        containers: 3,
        gpuContainers: 1,
        labels: ['gpu'],
        taskEnergyKWh: { cpu: 0.002, gpu: 0.005, gpuOnCpu: 0.003 },
      }),
    ],
  });
  const jobs = Array.from({ length: 6 }, (_, i) =>
    traceJob(`j${i}`, { arrival: i * 4, maps: 6, reduces: 2, type: i % 2 ? 'adaptive' : 'cpu' }),
  );
  function engine(): Engine {
    let e: Engine | null = null;
    const placement = placementPort('fifo', {}, c, {
      nodeId: (i) => (e as Engine).nodeId(i),
      orderKeyMs: (j) => j.spec.arrival * 1000,
    });
    e = new Engine(c, { seed: 4, admission: acceptAll(), placement });
    for (const j of jobs) e.submit(j);
    return e;
  }

  it('are made as they are asked for, kept, and the same whether read midway or only at the end', () => {
    const midway = engine();
    midway.advanceTo(30);
    const early = midway.taskRecords();
    const firstPart = early.slice();
    expect(firstPart.length).toBeGreaterThan(0);
    midway.run();
    const all = midway.taskRecords();
    firstPart.forEach((t, k) => expect(all[k]).toBe(t));
    const straight = engine();
    straight.run();
    expect(straight.taskRecords()).toEqual(all);
    expect(all.some((t) => t.container === 'gpu')).toBe(true);
    expect(all.some((t) => !t.completed)).toBe(true);
  });

  it('the columns read by the metrics say what the records say', () => {
    const e = engine();
    e.run();
    const records = e.taskRecords();
    const log = e.endedTasks();
    expect(log.length).toBe(records.length);
    records.forEach((t, k) => {
      const row = log.row(k);
      const f = log.flags(row);
      expect(e.nodeId(log.nodeIndex(row))).toBe(t.node);
      expect(jobs[log.jobIndex(row)]?.id).toBe(t.job);
      expect(log.taskIndex(row)).toBe(t.index);
      expect([log.start(row), log.end(row)]).toEqual([t.start, t.end]);
      expect(Boolean(f & TASK_MAP)).toBe(t.kind === 'map');
      expect(Boolean(f & TASK_GPU)).toBe(t.container === 'gpu');
      expect(Boolean(f & TASK_LOCAL)).toBe(t.local);
      expect(Boolean(f & TASK_COMPLETED)).toBe(t.completed);
      expect(e.taskEnergyKWh(row)).toBe(t.energyKWh);
    });
  });

  it('summarize wants every job outcome, since it finds a task job by submission index', () => {
    const e = engine();
    e.run();
    const outcomes = e.outcomes();
    expect(() => summarize(e, outcomes.slice(1), false)).toThrow(RangeError);
    const s = summarize(e, outcomes, false);
    // The locality figure counts what the per-job outcomes count.
    const maps = e.taskRecords().filter((t) => t.completed && t.kind === 'map');
    expect(s.localityRate).toBe(outcomes.reduce((n, o) => n + o.localMaps, 0) / maps.length);
  });
});

describe('placement adapter: a fixed order key is read once per job', () => {
  it('gives the same run as reading it on every comparison', () => {
    const c = cluster({ nodeClasses: [nodeClass('a', 6, { mapSlots: 2 })] });
    const jobs = Array.from({ length: 10 }, (_, i) =>
      traceJob(`j${i}`, { arrival: (i * 3) % 7, maps: 3 + (i % 5) }),
    );
    const run = (fixed: boolean) => {
      let reads = 0;
      let e: Engine | null = null;
      const placement = placementPort('fifo', {}, c, {
        nodeId: (i) => (e as Engine).nodeId(i),
        orderKeyMs: (j) => {
          reads++;
          return j.spec.arrival * 1000;
        },
        orderKeyFixed: fixed,
      });
      e = new Engine(c, { seed: 2, admission: acceptAll(), placement });
      for (const j of jobs) e.submit(j);
      e.run();
      return { outcomes: e.outcomes(), records: e.taskRecords(), reads };
    };
    const fixed = run(true);
    const live = run(false);
    expect(fixed.outcomes).toEqual(live.outcomes);
    expect(fixed.records).toEqual(live.records);
    expect(fixed.reads).toBeLessThanOrEqual(jobs.length);
    expect(live.reads).toBeGreaterThan(jobs.length);
  });
});
