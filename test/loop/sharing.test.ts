import { buildConfig } from '../../src/config/load';
import { holdsOf, PreemptionDelays, PREEMPTION_DELAYS_KEY, resolvePreemption } from '../../src/loop/sharing';
import { buildCapacityView, type CapacityView } from '../../src/loop/snapshot';
import type { NodeReport, QueueInfo, SchedulerInfo } from '../../src/yarn/model';
import { preemptionOf } from '../../src/yarn/conf';

const sharing = (o: Record<string, unknown> = {}) =>
  buildConfig({ admission: { sharing: o } }).admission.sharing;

const view: CapacityView = {
  partitions: [],
  queues: [
    {
      name: 'realtime',
      path: 'root.realtime',
      capacity: 50,
      absoluteCapacity: 50,
      accessibleNodeLabels: [],
      containers: { '': 10 },
      used: { '': 2 },
    },
  ],
  free: { '': 1 },
  total: { '': 20 },
};

describe('the sidecar side of a shared cluster (src/loop/sharing.ts)', () => {
  it('takes preemption from the RM, from the config, or as not known, and says which', () => {
    const fromRm = preemptionOf({ enabled: 'true' });
    expect(resolvePreemption(sharing(), fromRm)).toBe(fromRm);
    expect(resolvePreemption(sharing(), undefined)).toMatchObject({ source: 'unknown', enabled: undefined });
    expect(resolvePreemption(sharing({ preemption: 'off' }), fromRm)).toMatchObject({
      source: 'config',
      enabled: false,
    });
    expect(
      resolvePreemption(sharing({ preemption: 'on', maxWaitBeforeKillMs: 5000 }), undefined),
    ).toMatchObject({
      source: 'config',
      enabled: true,
      maxWaitBeforeKillMs: 5000,
      monitoringIntervalMs: 3000,
    });
  });

  it('counts a lane’s holds from the capacity view: guaranteed 10, used 2, free 1 leaves 7 held', () => {
    const on = preemptionOf({ enabled: 'true', naturalTerminationFactor: '1', totalPreemptionPerRound: '1' });
    const h = holdsOf(view, 'realtime', '', 10, { preemption: on }, 1000);
    expect(h).toEqual({ mode: 'preemption', guaranteed: 10, held: 7, returns: [18, 18, 18, 18, 18, 18, 18] });
    // A measured first return of 40 s pushes them back.
    expect(
      holdsOf(view, 'realtime', '', 10, { preemption: on, measuredFirstReturnSeconds: 40 }, 1000).returns[0],
    ).toBe(40);
    // Preemption off: the other tenants' containers end at epoch seconds 1030 and 1100, the rest unknown.
    const off = holdsOf(
      view,
      'realtime',
      '',
      10,
      { preemption: preemptionOf({}), releases: { '': [1100, 1030] } },
      1000,
    );
    expect(off).toEqual({
      mode: 'lent',
      guaranteed: 10,
      held: 7,
      returns: [30, 100, ...Array(5).fill(Infinity)],
    });
    // A free container another queue's apps ask for is theirs at the next heartbeat: held.
    const asked: CapacityView = {
      ...view,
      queues: [
        ...view.queues,
        { ...view.queues[0]!, name: 'default', path: 'root.default', used: { '': 9 }, pending: { '': 4 } },
      ],
    };
    expect(holdsOf(asked, 'realtime', '', 10, { preemption: preemptionOf({}) }, 1000)).toMatchObject({
      mode: 'lent',
      held: 8,
    });
    // No sharing inputs, or a view of an older ledger without used/free: nothing held.
    expect(holdsOf(view, 'realtime', '', 10, undefined, 1000)).toMatchObject({ mode: 'own', held: 0 });
    expect(holdsOf({ ...view, free: undefined }, 'realtime', '', 10, { preemption: on }, 1000).held).toBe(0);
  });

  it('measures the preemption delay from an app’s start to its AM container, only while held, and keeps it', () => {
    const values = new Map<string, unknown>();
    const store = {
      getValue: <T>(k: string) => values.get(k) as T | undefined,
      setValue: (k: string, v: unknown) => void values.set(k, v),
    };
    const d = new PreemptionDelays(store);
    expect(d.longest).toBeUndefined();
    const apps = [
      { id: 'a1', startedTime: 10_000, launchTime: 52_000 },
      { id: 'a2', startedTime: 10_000, launchTime: 0 },
      { id: 'a3', startedTime: 10_000, launchTime: 13_000 },
    ];
    expect(d.observe(apps, (a) => a.id !== 'a3')).toBe(true);
    expect(d.all).toEqual([{ appId: 'a1', seconds: 42 }]);
    // Seen once: a1 is not counted again; a2's AM has launched now, while held.
    expect(
      d.observe([...apps.slice(0, 1), { id: 'a2', startedTime: 10_000, launchTime: 25_000 }], () => true),
    ).toBe(true);
    expect(d.longest).toBe(42);
    expect(values.get(PREEMPTION_DELAYS_KEY)).toEqual([
      { appId: 'a1', seconds: 42 },
      { appId: 'a2', seconds: 15 },
    ]);
    // After a restart the delays are read back.
    expect(new PreemptionDelays(store).longest).toBe(42);
  });

  it('does not count a wait for the queue’s AM limit as preemption (the RM’s diagnostics say which)', () => {
    const values = new Map<string, unknown>();
    const d = new PreemptionDelays({
      getValue: <T>(k: string) => values.get(k) as T | undefined,
      setValue: (k: string, v: unknown) => void values.set(k, v),
    });
    const waiting = {
      id: 'a1',
      state: 'ACCEPTED',
      startedTime: 10_000,
      launchTime: 0,
      diagnostics:
        "[Wed Nov 25 12:30:00 +0000 2026] Application is added to the scheduler and is not yet activated. Queue's AM resource limit exceeded.  Details : AM Partition = <DEFAULT_PARTITION>",
    };
    expect(
      d.observe([waiting, { id: 'a2', state: 'ACCEPTED', startedTime: 10_000, diagnostics: '' }], () => true),
    ).toBe(false);
    const launched = [
      { ...waiting, state: 'RUNNING', launchTime: 134_000, diagnostics: '' },
      { id: 'a2', state: 'RUNNING', startedTime: 10_000, launchTime: 17_000, diagnostics: '' },
    ];
    expect(d.observe(launched, () => true)).toBe(true);
    expect(d.all).toEqual([{ appId: 'a2', seconds: 7 }]);
  });
});

describe('the capacity view a lane counts holds from (src/loop/snapshot.ts)', () => {
  it('counts per partition the containers free, and per queue those used and asked for', () => {
    const r = (memoryMB: number, vcores: number) => ({ memoryMB, vcores, extra: {} });
    const node = (id: string, usedMb: number, usedVcores: number) =>
      ({
        id,
        host: id,
        rack: '/r',
        state: 'RUNNING',
        httpAddress: '',
        nodeLabels: [],
        numContainers: 0,
        lastHealthUpdate: 0,
        healthReport: '',
        version: '3.4.3',
        total: r(8192, 8),
        used: r(usedMb, usedVcores),
        available: r(8192 - usedMb, 8 - usedVcores),
      }) as NodeReport;
    const leaf = (name: string, cap: number, used: number, pending?: { memoryMB: number; vcores: number }) =>
      ({
        name,
        path: `root.${name}`,
        kind: 'leaf',
        state: 'RUNNING',
        capacity: cap,
        absoluteCapacity: cap,
        maxCapacity: 100,
        absoluteMaxCapacity: 100,
        usedCapacity: 0,
        absoluteUsedCapacity: used,
        numApplications: 0,
        accessibleNodeLabels: [],
        defaultNodeLabelExpression: undefined,
        partitions: [],
        resourcesUsed: undefined,
        resourcesByPartition: pending ? [{ partition: '', pending: { ...pending, extra: {} } }] : undefined,
        children: [],
      }) as QueueInfo;
    const scheduler = {
      type: 'capacity',
      root: {
        ...leaf('root', 100, 0),
        kind: 'parent',
        children: [leaf('realtime', 50, 0), leaf('default', 50, 75, { memoryMB: 3072, vcores: 2 })],
      },
    } as SchedulerInfo;
    // Two nodes of 8 x 1 GB containers: 12 used by default (75 %), 4 free; default asks for 3 more.
    const v = buildCapacityView([node('a', 8192, 8), node('b', 4096, 4)], scheduler, {
      memoryMb: 1024,
      vcores: 1,
    });
    expect(v.free).toEqual({ '': 4 });
    expect(v.total).toEqual({ '': 16 });
    expect(v.queues.map((q) => [q.name, q.containers[''], q.used?.[''], q.pending?.['']])).toEqual([
      ['realtime', 8, 0, undefined],
      ['default', 8, 12, 3],
    ]);
    // The real-time lane: 8 guaranteed, none used, 4 free of which default takes 3: 7 held.
    expect(holdsOf(v, 'realtime', '', 8, { preemption: preemptionOf({}) }, 0).held).toBe(7);
  });
});
