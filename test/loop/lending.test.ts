import { lendingView } from '../../src/loop/lending';
import { preemptionOf, UNKNOWN_PREEMPTION, type PreemptionSettings } from '../../src/yarn/conf';
import type { PartitionCapacity, QueueInfo, SchedulerInfo } from '../../src/yarn/model';

/** A capacity-scheduler leaf: absolute capacity, maximum and used per partition ('' = default). */
function leaf(
  name: string,
  parts: Record<string, [cap: number, max: number, used: number]>,
  extra: Partial<QueueInfo> = {},
): QueueInfo {
  const partitions: PartitionCapacity[] = Object.entries(parts).map(([partition, [cap, max, used]]) => ({
    partition,
    capacity: cap,
    usedCapacity: used,
    maxCapacity: max,
    absoluteCapacity: cap,
    absoluteUsedCapacity: used,
    absoluteMaxCapacity: max,
  }));
  const d = parts[''] ?? [0, 0, 0];
  return {
    name,
    path: `root.${name}`,
    kind: 'leaf',
    state: 'RUNNING',
    capacity: d[0],
    absoluteCapacity: d[0],
    maxCapacity: d[1],
    absoluteMaxCapacity: d[1],
    usedCapacity: d[2],
    absoluteUsedCapacity: d[2],
    numApplications: 0,
    accessibleNodeLabels: Object.keys(parts).filter((p) => p !== ''),
    defaultNodeLabelExpression: undefined,
    partitions,
    resourcesUsed: undefined,
    children: [],
    ...extra,
  };
}

function scheduler(...leaves: QueueInfo[]): SchedulerInfo {
  const root: QueueInfo = {
    ...leaf('root', { '': [100, 100, 0] }),
    path: 'root',
    kind: 'parent',
    children: leaves,
  };
  return { type: 'capacity', root };
}

const ON: PreemptionSettings = preemptionOf({ enabled: 'true', maxWaitBeforeKillMs: '10000' });
const OFF: PreemptionSettings = preemptionOf({});

describe('the real-time queue lending view', () => {
  it('reads Hadoop defaults for keys the RM does not have set, and the values it has', () => {
    expect(OFF).toEqual({
      source: 'rm',
      enabled: false,
      policies: undefined,
      maxWaitBeforeKillMs: 15000,
      naturalTerminationFactor: 0.2,
      monitoringIntervalMs: 3000,
      totalPreemptionPerRound: 0.1,
    });
    expect(ON.enabled).toBe(true);
    expect(ON.maxWaitBeforeKillMs).toBe(10000);
    expect(preemptionOf({ enabled: ' TRUE ', naturalTerminationFactor: 'x' })).toMatchObject({
      enabled: true,
      naturalTerminationFactor: 0.2,
    });
  });

  it('calls a guarantee nobody may borrow its own, whatever preemption does', () => {
    const s = scheduler(leaf('realtime', { '': [50, 100, 10] }), leaf('default', { '': [50, 50, 50] }));
    const v = lendingView(s, OFF, 'realtime');
    expect(v.found).toBe(true);
    expect(v.queue).toBe('root.realtime');
    expect(v.partitions).toEqual([
      {
        partition: '',
        guaranteed: 50,
        maximum: 100,
        used: 10,
        othersMayBorrow: 0,
        othersBorrowNow: 0,
        unpreemptable: [],
        verdict: 'own',
      },
    ]);
    expect(v.warnings).toEqual([]);
  });

  it('warns per partition when the guarantee can be lent and preemption is off', () => {
    const s = scheduler(
      leaf('realtime', { '': [40, 100, 0], gpu: [70, 100, 0] }),
      leaf('besteffort', { '': [30, 100, 45], gpu: [30, 30, 30] }),
      leaf('default', { '': [30, 80, 20] }),
    );
    const v = lendingView(s, OFF, 'root.realtime');
    expect(v.partitions.map((p) => [p.partition, p.othersMayBorrow, p.othersBorrowNow, p.verdict])).toEqual([
      ['', 120, 15, 'lent'],
      ['gpu', 0, 0, 'own'],
    ]);
    expect(v.warnings).toHaveLength(1);
    expect(v.warnings[0]).toContain("root.realtime's guarantee in the default partition (40%) can be lent");
    expect(v.warnings[0]).toContain('120% of the partition beyond their own guarantees (15% now)');
    expect(v.warnings[0]).toContain('preemption is off');
  });

  it('trusts preemption to take the guarantee back unless every borrower is exempt', () => {
    const rt = leaf('realtime', { '': [50, 100, 0] });
    const mixed = scheduler(
      rt,
      leaf('a', { '': [25, 100, 0] }, { preemptionDisabled: true }),
      leaf('b', { '': [25, 100, 0] }, { preemptionDisabled: false }),
    );
    const m = lendingView(mixed, ON, 'realtime');
    expect(m.partitions[0]).toMatchObject({ verdict: 'preempted', unpreemptable: ['root.a'] });
    // Preempted, but what root.a borrows cannot be taken back: said.
    expect(m.warnings).toHaveLength(1);
    expect(m.warnings[0]).toContain('preemption cannot take back what root.a hold(s)');
    const exempt = scheduler(rt, leaf('a', { '': [50, 100, 0] }, { preemptionDisabled: true }));
    expect(lendingView(exempt, ON, 'realtime').partitions[0]!.verdict).toBe('lent');
    const plain = scheduler(rt, leaf('b', { '': [50, 100, 0] }));
    const p = lendingView(plain, ON, 'realtime');
    expect(p.partitions[0]!.verdict).toBe('preempted');
    expect(p.warnings).toEqual([]);
  });

  it('says unknown when the RM hides its preemption settings, and nothing of a queue it lacks', () => {
    const s = scheduler(leaf('realtime', { '': [50, 100, 0] }), leaf('default', { '': [50, 100, 0] }));
    expect(lendingView(s, UNKNOWN_PREEMPTION, 'realtime').partitions[0]!.verdict).toBe('unknown');
    expect(lendingView(s, UNKNOWN_PREEMPTION, 'realtime').warnings).toEqual([]);
    expect(lendingView(s, OFF, 'nosuch')).toEqual({
      queue: 'nosuch',
      found: false,
      preemption: OFF,
      partitions: [],
      warnings: [],
    });
  });

  it('covers every cluster label for a queue that reaches *', () => {
    const rt = leaf('realtime', { '': [50, 100, 0], gpu: [50, 100, 0], fpga: [100, 100, 0] });
    const s = scheduler({ ...rt, accessibleNodeLabels: ['*'] }, leaf('default', { '': [50, 50, 0] }));
    expect(lendingView(s, OFF, 'realtime', ['gpu', 'fpga']).partitions.map((p) => p.partition)).toEqual([
      '',
      'gpu',
      'fpga',
    ]);
  });
});
