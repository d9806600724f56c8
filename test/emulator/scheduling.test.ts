/**
 * The capacity scheduler's semantics the emulator claims (docs/emulator.md): reservations hold
 * their containers over their window, reduces run in their app's partition, and queues get
 * containers by their guaranteed capacity, never beyond their maximum. Through the real client
 * where the effect is visible over REST, on the RM state directly for the property test.
 */
import fc from 'fast-check';
import { ManualClock, SimTime } from '../../src/emulator/clock';
import { defaultEmulatorConfig, defaultQueues, type QueueConfig } from '../../src/emulator/config';
import { EmulatedRm, type Submission } from '../../src/emulator/rm-state';
import { submissionContext } from '../../src/emulator/submission-context';
import { nodePartition } from '../../src/emulator/ports';
import { MB, type ClusterSpec } from '../../src/sim/model';
import type { TaskRecord } from '../../src/sim/engine';
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import { client, harness, T0, type Harness } from './helpers';
import { amCommand } from '../../src/yarn/submission';

const AM = { memoryMB: 1024, vcores: 1 };

/** Tags of an app of `maps` maps of `mb` MB each. */
function sized(maps: number, reduces: number, mb = 64, type = 'cpu'): string[] {
  return [`maps:${maps}`, `reduces:${reduces}`, `input-bytes:${maps * mb * MB}`, `type:${type}`];
}

async function submit(
  rm: ReturnType<typeof client>,
  queue: string,
  tags: string[],
  extra: { label?: string; reservationId?: string } = {},
): Promise<string> {
  const { applicationId } = await rm.newApplication();
  await rm.submitApp({
    applicationId,
    name: applicationId,
    queue,
    tags,
    appNodeLabelExpression: extra.label ?? '',
    amResource: AM,
    am: amCommand('true'),
    ...(extra.reservationId ? { reservationId: extra.reservationId } : {}),
  });
  return applicationId;
}

/** The partition of every node, by node id (task records name nodes by id). */
function partitionsOf(cluster: ClusterSpec): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of cluster.nodeClasses)
    for (let i = 0; i < c.count; i++) out.set(`${c.name}-${i + 1}`, nodePartition(c.labels));
  return out;
}

/**
 * Containers held at once, at most, by each group of task attempts (a sweep over their
 * [start, end) intervals; an end at t frees its container before a start at t takes it).
 */
function peakBy(
  records: readonly TaskRecord[],
  group: (t: TaskRecord) => string | null,
): Map<string, number> {
  const events: Array<[number, number, string]> = [];
  for (const t of records) {
    const g = group(t);
    if (g === null) continue;
    events.push([t.start, 1, g], [t.end, -1, g]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const now = new Map<string, number>();
  const peak = new Map<string, number>();
  for (const [, d, g] of events) {
    const n = (now.get(g) ?? 0) + d;
    now.set(g, n);
    peak.set(g, Math.max(peak.get(g) ?? 0, n));
  }
  return peak;
}

const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

/** Attempts running every 0.1 s of [from, to). */
function samples(
  records: readonly TaskRecord[],
  from: number,
  to: number,
  keep: (r: TaskRecord) => boolean,
): number[] {
  const out: number[] = [];
  for (let k = 0; from + k / 10 < to; k++) out.push(runningAt(records, from + k / 10, keep));
  return out;
}

/** Task attempts running at simulated second t (started at or before, ended after). */
function runningAt(records: readonly TaskRecord[], t: number, keep: (r: TaskRecord) => boolean): number {
  return records.filter((r) => keep(r) && r.start <= t && t < r.end).length;
}

describe('reservations hold their containers over their window', () => {
  // Window [S, E) in simulated seconds; the reserved app arrives inside it, at AT.
  const S = 40;
  const E = 100;
  const AT = 50;
  const HELD = 8;

  const opened: Harness[] = [];

  /** A flood of realtime apps, then one more app at AT: with the reservation, or without. */
  async function scenario(reserve: boolean): Promise<{ h: Harness; app: string; flood: string[] }> {
    const h = await harness({ speed: 10 });
    opened.push(h);
    const rm = client(h.emu.url);
    let reservationId: string | undefined;
    if (reserve) {
      reservationId = await rm.newReservation();
      await rm.submitReservation(reservationId, 'realtime', {
        arrival: T0 + S * 1000,
        deadline: T0 + E * 1000,
        name: 'held',
        interpreter: 0,
        requests: [
          {
            capability: { memoryMB: 2048, vcores: 1, extra: {} },
            numContainers: HELD,
            minConcurrency: HELD,
            durationMs: (E - S) * 1000,
          },
        ],
      });
      const [listed] = await rm.reservations({
        queue: 'realtime',
        reservationId,
        includeResourceAllocations: true,
      });
      expect(listed!.allocations.map((a) => [a.startTime, a.endTime])).toEqual([
        [T0 + S * 1000, T0 + E * 1000],
      ]);
    }
    // 60 apps of 16 maps (about five seconds each) in the same queue, ahead of the reserved app
    // in FIFO order: enough to keep all 32 default-partition containers busy past E.
    const flood: string[] = [];
    for (let i = 0; i < 60; i++) flood.push(await submit(rm, 'realtime', sized(16, 1)));
    h.advance(AT);
    const app = await submit(rm, 'realtime', sized(HELD, 1), reservationId ? { reservationId } : {});
    h.advance(400);
    expect(await rm.appState(app)).toBe('FINISHED');
    return { h, app, flood };
  }

  let held: Awaited<ReturnType<typeof scenario>>;
  let open: Awaited<ReturnType<typeof scenario>>;
  beforeAll(async () => {
    held = await scenario(true);
    open = await scenario(false);
  });
  afterAll(async () => {
    for (const h of opened) await h.emu.close();
  });

  const cpuNode = (r: TaskRecord) => r.nodeClass === 'cpu';

  it('starts every map of the reserved app at once, however many apps are queued ahead', () => {
    const rm = held.h.emu.rm;
    const maps = rm.taskRecordsOf(held.app).filter((t) => t.kind === 'map' && t.completed);
    expect(maps).toHaveLength(HELD);
    const submitted = rm.mustApp(held.app).submittedSeconds;
    expect(submitted).toBeCloseTo(AT, 6);
    // Within one heartbeat (1 s) of its arrival: the held containers were idle and waiting.
    for (const m of maps) expect(m.start - submitted).toBeLessThanOrEqual(1 + 1e-3);
    // And the whole job ran inside its window.
    const end = Math.max(...rm.taskRecordsOf(held.app).map((t) => t.end));
    expect(end).toBeLessThan(E);
  });

  it('without the reservation the same app waits behind the flood', () => {
    const rm = open.h.emu.rm;
    const first = Math.min(...rm.taskRecordsOf(open.app).map((t) => t.start));
    expect(first - rm.mustApp(open.app).submittedSeconds).toBeGreaterThan(30);
  });

  it('lets the flood use the reserved containers before S and after E, and keeps them from it inside', () => {
    const records = held.h.emu.rm.engine.taskRecords();
    const flood = new Set(held.flood);
    const ofFlood = (r: TaskRecord) => cpuNode(r) && flood.has(r.job);
    // A freed container waits for its node's next heartbeat (up to 1 s), so the flood's count
    // dips between heartbeats: compare peaks and means over each stretch.
    const before = samples(records, 10, S, ofFlood);
    // Once the tasks started before S are over (the longest map is 7.8 s).
    const inside = samples(records, S + 8, E, ofFlood);
    const after = samples(records, E + 2, E + 30, ofFlood);
    expect(Math.max(...before)).toBe(32);
    expect(mean(before)).toBeGreaterThan(32 - HELD + 2);
    expect(Math.max(...inside)).toBeLessThanOrEqual(32 - HELD);
    expect(Math.max(...after)).toBe(32);
    expect(mean(after)).toBeGreaterThan(32 - HELD + 2);
  });

  it('is forgotten once deleted: the window stops holding anything', async () => {
    const h = await harness({ speed: 10 });
    try {
      const rm = client(h.emu.url);
      const id = await rm.newReservation();
      await rm.submitReservation(id, 'realtime', {
        arrival: T0,
        deadline: T0 + 100_000,
        name: 'gone',
        interpreter: 0,
        requests: [
          {
            capability: { memoryMB: 2048, vcores: 1, extra: {} },
            numContainers: HELD,
            minConcurrency: 1,
            durationMs: 100_000,
          },
        ],
      });
      expect(h.emu.rm.holds('', 1).get(id)).toEqual({ containers: HELD, queue: 'realtime' });
      expect(h.emu.rm.holds('gpu', 1).size).toBe(0);
      await rm.deleteReservation(id);
      expect(h.emu.rm.holds('', 1).size).toBe(0);
      for (let i = 0; i < 6; i++) await submit(rm, 'default', sized(16, 0));
      h.advance(20);
      h.emu.rm.sync();
      const records = h.emu.rm.engine.taskRecords();
      expect(Math.max(...samples(records, 5, 15, cpuNode))).toBe(32);
    } finally {
      await h.emu.close();
    }
  });
});

describe('reduces run in their partition', () => {
  let h: Harness;
  const gpuApps: string[] = [];
  const cpuApps: string[] = [];
  beforeAll(async () => {
    h = await harness({ speed: 10 });
    const rm = client(h.emu.url);
    // Many reduces on both sides, so that under the old rule (any free CPU container) some
    // would land in the other partition.
    for (let i = 0; i < 4; i++) {
      gpuApps.push(await submit(rm, 'realtime', sized(4, 6, 64, i % 2 ? 'gpu' : 'cpu'), { label: 'gpu' }));
      cpuApps.push(await submit(rm, i % 2 ? 'default' : 'besteffort', sized(4, 6)));
    }
    h.advance(300);
    for (const id of [...gpuApps, ...cpuApps]) expect(await rm.appState(id)).toBe('FINISHED');
  });
  afterAll(() => h.emu.close());

  it('reports every reduce attempt of a gpu-partition app on a gpu node, and of the others off them', async () => {
    const jhs = JobHistoryClient.forHistoryServer({ urls: [h.emu.jhsUrl], maxAttempts: 1 });
    for (const [ids, host] of [
      [gpuApps, /^gpu-\d+:8042$/],
      [cpuApps, /^cpu-\d+:8042$/],
    ] as const) {
      for (const id of ids) {
        const job = id.replace('application_', 'job_');
        const reduces = await jhs.tasksOfApp(id, 'REDUCE');
        expect(reduces).toHaveLength(6);
        for (const task of reduces) {
          const attempts = await jhs.taskAttempts(job, task.id);
          expect(attempts.length).toBeGreaterThan(0);
          for (const a of attempts) expect(a.nodeHttpAddress).toMatch(host);
        }
      }
    }
  });

  it('keeps every task of every app in its partition in the engine records', () => {
    const rm = h.emu.rm;
    for (const id of gpuApps)
      expect(new Set(rm.taskRecordsOf(id).map((t) => `${t.kind}@${t.nodeClass}`))).toEqual(
        new Set(['map@gpu', 'reduce@gpu']),
      );
    for (const id of cpuApps)
      expect(new Set(rm.taskRecordsOf(id).map((t) => `${t.kind}@${t.nodeClass}`))).toEqual(
        new Set(['map@cpu', 'reduce@cpu']),
      );
  });
});

describe('queue capacities', () => {
  // a: 60% guaranteed, may use all; b: 40% guaranteed, at most 50% of the default partition.
  const queues = (): QueueConfig[] => {
    const [rt] = defaultQueues();
    return [
      { ...rt!, name: 'a', capacity: 60, maxCapacity: 100, reservable: false },
      { ...rt!, name: 'b', capacity: 40, maxCapacity: 50, reservable: false },
    ];
  };

  it('shares a flooded partition between two queues close to their capacities', async () => {
    const h = await harness({ speed: 10, config: defaultEmulatorConfig({ queues: queues() }) });
    try {
      const rm = client(h.emu.url);
      // Queue a floods first: in plain FIFO order it would take every container until its
      // apps drain, and b would wait.
      for (const q of ['a', 'b']) for (let i = 0; i < 40; i++) await submit(rm, q, sized(10, 2));
      const used = { a: [] as number[], b: [] as number[] };
      for (let t = 10; t <= 90; t += 5) {
        h.advance(5);
        for (const leaf of (await rm.scheduler()).root.children)
          if (leaf.name === 'a' || leaf.name === 'b') used[leaf.name].push(leaf.absoluteUsedCapacity);
      }
      // Both queues still had work at every sample.
      const waiting = (await rm.apps({ states: ['ACCEPTED', 'RUNNING'] })).map((a) => a.queue);
      expect(new Set(waiting)).toEqual(new Set(['root.a', 'root.b']));
      // Their split of what is in use: 60/40 within 5 points, at every sample within a few
      // containers (a freed container waits up to a heartbeat, so counts move by a few).
      const shareA = used.a.map((a, i) => a / (a + used.b[i]!));
      expect(mean(shareA)).toBeGreaterThan(0.55);
      expect(mean(shareA)).toBeLessThan(0.65);
      for (const x of shareA) expect(Math.abs(x - 0.6)).toBeLessThan(0.15);
      // b never above its 50% maximum; together they keep the partition busy.
      expect(Math.max(...used.b)).toBeLessThanOrEqual(50);
      expect(mean(used.a.map((a, i) => a + used.b[i]!))).toBeGreaterThan(85);
    } finally {
      await h.emu.close();
    }
  });

  it('keeps a queue alone in the partition at its maximum capacity, maps and reduces together', async () => {
    const h = await harness({ speed: 10, config: defaultEmulatorConfig({ queues: queues() }) });
    try {
      const rm = client(h.emu.url);
      // Many reduces per app, so that reduces and maps of different apps overlap.
      for (let i = 0; i < 20; i++) await submit(rm, 'b', sized(6, 6));
      h.advance(400);
      h.emu.rm.sync();
      const records = h.emu.rm.engine.taskRecords();
      const peak = peakBy(records, (t) => (t.nodeClass === 'cpu' ? 'b' : null));
      // 50% of 32.
      expect(peak.get('b')).toBe(16);
      // Reduces count: some started while b's maps and reduces together were at the maximum.
      const atMax = records.filter(
        (r) => r.kind === 'reduce' && runningAt(records, r.start, (x) => x.nodeClass === 'cpu') === 16,
      );
      expect(atMax.length).toBeGreaterThan(0);
    } finally {
      await h.emu.close();
    }
  });
});

describe('scheduler invariants (property)', () => {
  /** Submit through the RM state directly: the property needs many runs, not HTTP. */
  const submission = (
    id: string,
    queue: string,
    tags: string[],
    label: string,
    reservationId: string | undefined,
  ): Submission => ({
    context: submissionContext({
      applicationId: id,
      applicationName: id,
      queue,
      priority: 0,
      applicationType: 'MAPREDUCE',
      applicationTags: tags,
      appNodeLabelExpression: label,
      resource: AM,
      reservationId,
      amContainerSpec: { command: 'true' },
    }),
    user: 'u',
  });

  it('never lets a queue exceed its maximum, a task leave its partition, or an outsider take a held container', () => {
    const appArb = fc.record({
      queue: fc.constantFrom('a', 'b', 'c'),
      gpu: fc.boolean(),
      maps: fc.integer({ min: 1, max: 10 }),
      reduces: fc.integer({ min: 0, max: 4 }),
      at: fc.integer({ min: 0, max: 40 }),
      reserved: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 80 }),
        fc.integer({ min: 10, max: 80 }),
        fc.integer({ min: 0, max: 8 }),
        fc.array(appArb, { minLength: 1, maxLength: 16 }),
        fc.integer({ min: 1, max: 1000 }),
        (capA, maxB, heldCount, apps, seed) => {
          const [rt, , dflt] = defaultQueues();
          const capB = Math.min(maxB, 100 - capA);
          const queues: QueueConfig[] = [
            { ...rt!, name: 'a', capacity: capA, maxCapacity: Math.max(capA, 60), reservable: true },
            { ...rt!, name: 'b', capacity: capB, maxCapacity: maxB, reservable: false },
            { ...dflt!, name: 'c', capacity: 100 - capA - capB, maxCapacity: 100 },
          ];
          queues[1]!.labelCapacity = { gpu: 50 };
          queues[0]!.labelCapacity = { gpu: 50 };
          const config = defaultEmulatorConfig({ queues });
          const clock = new ManualClock(T0);
          const rm = new EmulatedRm(config, new SimTime(clock, 1), seed);
          const total = rm.partitionContainers('');
          // A reservation of queue a over [10, 30) s, within a's guarantee.
          const held = Math.min(heldCount, Math.floor((total * capA) / 100));
          let reservationId: string | undefined;
          if (held > 0) {
            reservationId = rm.newReservation();
            rm.submitReservation(
              reservationId,
              'a',
              {
                arrival: T0 + 10_000,
                deadline: T0 + 30_000,
                name: 'r',
                priority: undefined,
                recurrenceExpression: undefined,
                interpreter: 0,
                requests: [
                  { memoryMB: 2048, vcores: 1, numContainers: held, minConcurrency: 1, durationMs: 20_000 },
                ],
              },
              'u',
            );
          }
          const info = new Map<string, { queue: string; partition: string; reserved: boolean }>();
          const sorted = [...apps].sort((x, y) => x.at - y.at);
          let now = 0;
          for (const app of sorted) {
            clock.advance((app.at - now) * 1000);
            now = app.at;
            rm.sync();
            const id = rm.newApplication();
            // Queue c cannot reach the gpu label: its apps stay in the default partition.
            const label = app.gpu && app.queue !== 'c' ? 'gpu' : '';
            const reserved = app.reserved && app.queue === 'a' && reservationId !== undefined;
            rm.submit(
              submission(
                id,
                app.queue,
                sized(app.maps, app.reduces, 32),
                label,
                reserved ? reservationId : undefined,
              ),
            );
            info.set(id, { queue: app.queue, partition: label, reserved });
          }
          clock.advance(600_000);
          rm.sync();
          const records = rm.engine.taskRecords();
          const nodes = partitionsOf(config.cluster);
          // Every task in its app's partition.
          for (const r of records)
            expect([r.job, nodes.get(r.node)]).toEqual([r.job, info.get(r.job)!.partition]);
          // Every queue within its maximum in the default partition.
          const peaks = peakBy(records, (r) => (nodes.get(r.node) === '' ? info.get(r.job)!.queue : null));
          for (const q of queues) {
            const max = Math.floor((total * q.maxCapacity) / 100 + 1e-9);
            expect([q.name, Math.min(peaks.get(q.name) ?? 0, max)]).toEqual([q.name, peaks.get(q.name) ?? 0]);
          }
          // Inside the window, everyone but the reservation's apps keeps off the held containers
          // that the reservation's apps are not using, from the moment they are free: checked
          // at the starts of tasks of outsiders (the only moments the rule acts).
          if (held > 0) {
            const inDefault = records.filter((r) => nodes.get(r.node) === '');
            for (const r of inDefault) {
              if (info.get(r.job)!.reserved || r.start < 10 || r.start >= 30) continue;
              const busy = runningAt(inDefault, r.start, () => true);
              const reservedBusy = runningAt(inDefault, r.start, (x) => info.get(x.job)!.reserved);
              // With r itself counted, outsiders and unused held containers fit in the partition.
              expect(busy - reservedBusy + held - Math.min(held, reservedBusy)).toBeLessThanOrEqual(total);
            }
          }
          // Every app ends.
          for (const v of rm.allViews()) expect([v.rec.id, v.state]).toEqual([v.rec.id, 'FINISHED']);
        },
      ),
      { numRuns: 25 },
    );
  });
});
