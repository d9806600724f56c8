import { buildConfig } from '../../src/config/load';
import { rtmr } from '../../src/core/admission';
import { defaultRegistry } from '../../src/core/registry';
import { uniformLocality, type PartitionLocality } from '../../src/core/placement/common/locality';
import { loadEnergyProfile } from '../../src/service/start';
import { Partitions } from '../../src/loop/partitions';
import { recordPlan, planMove, planPriorities } from '../../src/loop/plan';
import type { Lane } from '../../src/loop/lanes';
import { SqliteLedger } from '../../src/store/ledger';
import type { AppReport } from '../../src/yarn/model';

/** The loop's stages on plain values: partition ranking by placement policy, and plans. */

const config = buildConfig({});
const registry = defaultRegistry();
const partitionsUnder = (policy: string) =>
  new Partitions(
    config.placement,
    config.yarn.gpuLabel,
    registry.placementCapabilities(policy),
    loadEnergyProfile(config),
  );
/** All the input on the default partition's nodes. */
const allOnCpu: PartitionLocality = {
  known: true,
  totalBytes: 100,
  locatedBytes: 100,
  dop: { '': 1, gpu: 0 },
};

describe("placement.policy in the live sidecar: how it ranks a job's partitions", () => {
  const gpu = config.yarn.gpuLabel;
  it('efh (the default) ranks by fitness h = ef * dop: energy first with uniform dop', () => {
    const p = partitionsUnder('efh');
    const uniform = p.ranked('adaptive', uniformLocality(['', gpu]));
    expect(uniform[0]!.ef! >= uniform[1]!.ef!).toBe(true);
    // All the data in the default partition: h there wins whatever the energy.
    expect(p.ranked('adaptive', allOnCpu)[0]!.label).toBe('');
  });

  it('ideal-energy ranks by energy alone, locality aside', () => {
    const byEnergy = partitionsUnder('ideal-energy').ranked('adaptive', allOnCpu);
    expect(byEnergy[0]!.ef).toBe(Math.max(...byEnergy.map((r) => r.ef ?? 0)));
  });

  it.each(['fifo', 'delay', 'matchmaking', 'fair-delay', 'fair-matchmaking'])(
    '%s ranks by data locality (dop) alone',
    (policy) => {
      const onGpu: PartitionLocality = {
        known: true,
        totalBytes: 1,
        locatedBytes: 1,
        dop: { '': 0, gpu: 1 },
      };
      expect(partitionsUnder(policy).ranked('adaptive', onGpu)[0]!.label).toBe(gpu);
      expect(partitionsUnder(policy).ranked('adaptive', allOnCpu)[0]!.label).toBe('');
    },
  );

  it.each(['asrpt', 'job-size'])('%s keeps the given order: the default partition first', (policy) => {
    const onGpu: PartitionLocality = { known: true, totalBytes: 1, locatedBytes: 1, dop: { '': 0, gpu: 1 } };
    expect(
      partitionsUnder(policy)
        .ranked('adaptive', onGpu)
        .map((r) => r.label),
    ).toEqual(['', gpu]);
  });

  it('efh-no-ae decides an adaptive job as a GPU job (no adaptive execution)', () => {
    expect(partitionsUnder('efh-no-ae').candidates('adaptive')).toEqual([gpu]);
    expect(partitionsUnder('efh').candidates('adaptive')).toEqual(['', gpu]);
    expect(partitionsUnder('efh-no-ae').candidates('cpu')).toEqual(['']);
  });
});

describe('plans: the exact RM writes, each with its reason', () => {
  const T0 = Date.parse('2026-11-22T08:00:00Z');
  const app = (id: string, o: Partial<AppReport> = {}): AppReport =>
    ({ id, state: 'RUNNING', queue: 'root.realtime', priority: 0, ...o }) as AppReport;

  it('moves a found app only when it is not in its queue already', () => {
    expect(planMove('j', app('a1', { queue: 'root.realtime' }), 'realtime', 'why')).toEqual([]);
    expect(planMove('j', app('a1', { queue: 'root.default' }), 'realtime', 'why')).toEqual([
      {
        jobId: 'j',
        reason: 'why',
        action: { kind: 'move-queue', payload: { appId: 'a1', queue: 'realtime' } },
      },
    ]);
  });

  it('gives each queued app its EDF priority once, and records the plan in the outbox', () => {
    const ledger = SqliteLedger.open(':memory:', { clock: () => T0 });
    const policy = rtmr({
      slotModel: { name: 'unified', containers: 4 },
      estimates: { eta: 1, mapCostMax: 1, reduceCostMax: 1 },
    });
    let state = policy.initialState(T0 / 1000);
    for (const [id, deadline] of [
      ['late', 5000],
      ['soon', 1000],
    ] as const) {
      ledger.insertJob({
        id,
        arrivalMs: T0,
        deadlineMs: T0 + deadline * 1000,
        maps: 1,
        reduces: 1,
        inputBytes: 0,
        jobType: 'cpu',
        spec: {},
        name: id,
        user: 'u',
        submitter: 's',
        source: 'api',
        queue: 'realtime',
        appId: `app-${id}`,
        outcome: null,
        finishedMs: null,
        decision: 'admitted',
        reason: null,
        estimatedFinishMs: null,
        earliestDeadlineMs: null,
        label: null,
        priority: null,
        state: 'running',
        energyJoules: null,
      });
      const job = { id, arrival: T0 / 1000, deadline, maps: 1, reduces: 1, inputSize: 0 };
      const r = policy.admit(state, job, T0 / 1000);
      if (r.admitted) state = r.state;
    }
    const lane = {
      key: 'realtime|',
      queue: 'realtime',
      label: '',
      containers: 4,
      holds: { mode: 'own', guaranteed: 4, held: 0, returns: [] },
      holdsReadAt: T0 / 1000,
      size: 4,
      blocked: false,
      policy,
      state,
      rebuild: { at: '', jobs: 2, fromProgress: 0, remainingSlotSeconds: 0, wholeSlotSeconds: 0 },
    } as Lane;
    const apps = [app('app-late'), app('app-soon')];
    const plan = planPriorities(config, ledger, [lane], apps, (p) => 10 - p);
    expect(
      plan.map((w) => [w.jobId, w.action.kind, (w.action.payload as { priority: number }).priority]),
    ).toEqual([
      ['soon', 'set-priority', 10],
      ['late', 'set-priority', 9],
    ]);
    expect(plan.every((w) => w.reason.startsWith('EDF position'))).toBe(true);
    recordPlan(ledger, plan);
    // Pending writes are not planned twice.
    expect(planPriorities(config, ledger, [lane], apps, (p) => 10 - p)).toEqual([]);
  });
});
