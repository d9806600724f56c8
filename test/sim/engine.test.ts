import fc from 'fast-check';
import { Engine, evenSplits } from '../../src/sim/engine';
import { EventQueue } from '../../src/sim/event-queue';
import { acceptAll, cluster, greedyLocal, nodeClass, traceJob } from './doubles';

describe('EventQueue', () => {
  it('pops in time order, and equal times in the order they were pushed', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 200 }), (times) => {
        const q = new EventQueue<number>();
        times.forEach((t, i) => q.push(t, i));
        const out: Array<[number, number]> = [];
        for (let e = q.pop(); e; e = q.pop()) out.push([e.time, e.event]);
        const expected = times
          .map((t, i) => [t, i] as [number, number])
          .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        expect(out).toEqual(expected);
      }),
    );
  });
});

describe('evenSplits', () => {
  it('adds up exactly and differs by at most one byte', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 1, max: 500 }), (bytes, n) => {
        const s = evenSplits(bytes, n);
        expect(s).toHaveLength(n);
        expect(s.reduce((a, b) => a + b, 0)).toBe(bytes);
        expect(Math.max(...s) - Math.min(...s)).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe('Engine', () => {
  it('runs one job: maps on local data take split * cost, the reduce starts after the last map', () => {
    // One node, 4 map slots, every block local: 4 maps of 100 MB at 0.1 s/MB = 10 s each.
    const spec = cluster({
      nodeClasses: [nodeClass('n', 1, { mapSlots: 4 })],
      hdfs: { blockMB: 128, replication: 1, blocks: 0 },
    });
    const e = new Engine(spec, { seed: 1, admission: acceptAll(), placement: greedyLocal() });
    e.submit(traceJob('j1'));
    e.run();
    const [o] = e.outcomes();
    const tasks = e.taskRecords();
    const maps = tasks.filter((t) => t.kind === 'map');
    expect(maps).toHaveLength(4);
    for (const m of maps) expect(m.end - m.start).toBeCloseTo(10, 9);
    expect(maps.every((m) => m.local)).toBe(true);
    const reduce = tasks.find((t) => t.kind === 'reduce')!;
    expect(reduce.start).toBeGreaterThanOrEqual(Math.max(...maps.map((m) => m.end)));
    expect(reduce.end - reduce.start).toBeCloseTo(5, 9);
    expect(o!.status).toBe('finished');
    expect(o!.finish).toBeCloseTo(reduce.end, 9);
    expect(o!.metDeadline).toBe(true);
    // Map slot time 40 s + reduce 5 s.
    expect(o!.slotSeconds).toBeCloseTo(45, 9);
  });

  it('charges the remote-read penalty to a map whose block has no replica on its node', () => {
    const spec = cluster({
      nodeClasses: [nodeClass('n', 2, { mapSlots: 1 })],
      remoteReadPenalty: 1.5,
      hdfs: { blockMB: 128, replication: 1, blocks: 2 },
    });
    const e = new Engine(spec, { seed: 3, admission: acceptAll(), placement: greedyLocal() });
    // Both maps read blk_0, which lives on one node only: one runs local, one remote.
    e.submit(
      traceJob('j', { maps: 2, reduces: 0, inputBytes: 2 * 100 * 1024 * 1024, blocks: ['blk_0', 'blk_0'] }),
    );
    e.run();
    const maps = e.taskRecords();
    const local = maps.filter((m) => m.local);
    const remote = maps.filter((m) => !m.local);
    expect(local).toHaveLength(1);
    expect(remote).toHaveLength(1);
    expect(local[0]!.end - local[0]!.start).toBeCloseTo(10, 9);
    expect(remote[0]!.end - remote[0]!.start).toBeCloseTo(25, 9);
  });

  it('is deterministic for a seed and differs across seeds', () => {
    const run = (seed: number) => {
      const spec = cluster({
        costs: { cpu: { ...cluster().costs.cpu, jitter: [0.5, 1] }, gpu: cluster().costs.gpu },
      });
      const e = new Engine(spec, { seed, admission: acceptAll(), placement: greedyLocal() });
      for (let i = 0; i < 6; i++) e.submit(traceJob(`j${i}`, { arrival: i * 7, maps: 5 }));
      e.run();
      return e.outcomes().map((o) => o.finish);
    };
    expect(run(42)).toEqual(run(42));
    expect(run(42)).not.toEqual(run(43));
  });

  it('never runs more tasks on a node than it has slots, and every job finishes (random workloads)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.array(
          fc.record({
            arrival: fc.integer({ min: 0, max: 100 }),
            maps: fc.integer({ min: 1, max: 12 }),
            reduces: fc.integer({ min: 0, max: 6 }),
          }),
          {
            minLength: 1,
            maxLength: 12,
          },
        ),
        fc.constantFrom('mr1' as const, 'unified' as const),
        (seed, jobs, slotModel) => {
          const spec = cluster({
            slotModel,
            nodeClasses: [
              nodeClass('a', 2, { mapSlots: 2, reduceSlots: 1, containers: 3 }),
              nodeClass('b', 1, { mapSlots: 1, reduceSlots: 1, containers: 2 }),
            ],
          });
          const e = new Engine(spec, { seed, admission: acceptAll(), placement: greedyLocal() });
          jobs.forEach((j, i) =>
            e.submit(traceJob(`j${i}`, { ...j, inputBytes: j.maps * 64 * 1024 * 1024 })),
          );
          e.run();
          const cap = new Map(
            slotModel === 'mr1'
              ? [
                  ['a-1', [2, 1]],
                  ['a-2', [2, 1]],
                  ['b-1', [1, 1]],
                ]
              : [
                  ['a-1', [3, 3]],
                  ['a-2', [3, 3]],
                  ['b-1', [2, 2]],
                ],
          );
          // Sweep each node's task intervals and check the concurrency bound.
          for (const [node, [mapCap, redCap]] of cap) {
            const evs: Array<[number, number, string]> = [];
            for (const t of e.taskRecords().filter((r) => r.node === node)) {
              evs.push([t.start, 1, t.kind], [t.end, -1, t.kind]);
            }
            evs.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
            let m = 0;
            let r = 0;
            for (const [, d, k] of evs) {
              if (slotModel === 'unified') m += d;
              else if (k === 'map') m += d;
              else r += d;
              expect(m).toBeLessThanOrEqual(mapCap!);
              expect(r).toBeLessThanOrEqual(redCap!);
            }
          }
          for (const o of e.outcomes()) expect(o.status).toBe('finished');
          // Reduces never start before the job's last map ends.
          for (const o of e.outcomes()) {
            const ts = e.taskRecords().filter((t) => t.job === o.id);
            const lastMap = Math.max(...ts.filter((t) => t.kind === 'map').map((t) => t.end));
            for (const t of ts.filter((x) => x.kind === 'reduce'))
              expect(t.start).toBeGreaterThanOrEqual(lastMap - 1e-9);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('assigns only on heartbeats: a task starts on its node phase + k * interval', () => {
    const spec = cluster({ heartbeatSeconds: 3, nodeClasses: [nodeClass('n', 3)] });
    const e = new Engine(spec, { seed: 9, admission: acceptAll(), placement: greedyLocal() });
    e.submit(traceJob('a', { arrival: 1.25, maps: 6 }));
    e.submit(traceJob('b', { arrival: 40, maps: 3 }));
    e.run();
    const byNode = new Map<string, number[]>();
    for (const t of e.taskRecords()) byNode.set(t.node, [...(byNode.get(t.node) ?? []), t.start]);
    for (const starts of byNode.values()) {
      const phase = ((starts[0]! % 3) + 3) % 3;
      for (const s of starts)
        expect(Math.abs((s - phase) / 3 - Math.round((s - phase) / 3))).toBeLessThan(1e-9);
    }
  });

  it('steps: advanceTo, submit later, priority, kill, snapshot', () => {
    const spec = cluster({ nodeClasses: [nodeClass('n', 1, { mapSlots: 1 })] });
    const adm = acceptAll();
    const e = new Engine(spec, { seed: 5, admission: adm, placement: greedyLocal() });
    e.submit(traceJob('long', { maps: 3 }));
    e.advanceTo(5);
    expect(e.now).toBe(5);
    const snap = e.snapshot();
    expect(snap.jobs[0]!.status).toBe('running');
    expect(snap.nodes[0]!.runningTasks).toBe(1);
    e.submit(traceJob('urgent', { arrival: 0, maps: 1 }));
    e.advanceTo(6);
    e.setPriority('urgent', 10);
    e.kill('long');
    expect(e.snapshot().nodes[0]!.freeMapSlots).toBe(1);
    e.run();
    const out = Object.fromEntries(e.outcomes().map((o) => [o.id, o]));
    expect(out.long!.status).toBe('killed');
    expect(out.urgent!.status).toBe('finished');
    expect(out.urgent!.arrival).toBe(0);
    expect(() => e.advanceTo(1)).toThrow(/back in time/);
    expect(() => e.kill('nope')).toThrow(/unknown job/);
  });

  it('re-runs the tasks lost when a node fails, and still finishes every job', () => {
    const spec = cluster({
      failures: { meanTimeBetweenSeconds: 30, repairSeconds: 20 },
      nodeClasses: [nodeClass('n', 3)],
    });
    const e = new Engine(spec, { seed: 11, admission: acceptAll(), placement: greedyLocal() });
    for (let i = 0; i < 5; i++) e.submit(traceJob(`j${i}`, { arrival: i * 5, maps: 6, deadline: 100 }));
    e.run();
    expect(e.outcomes().every((o) => o.status === 'finished')).toBe(true);
    const lost = e.taskRecords().filter((t) => !t.completed);
    expect(lost.length).toBeGreaterThan(0);
    // Each task completes exactly once.
    const done = e.taskRecords().filter((t) => t.completed);
    expect(new Set(done.map((t) => `${t.job}/${t.kind}/${t.index}`)).size).toBe(done.length);
  });
});
