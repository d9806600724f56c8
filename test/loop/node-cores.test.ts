/**
 * Capacity as the nodes deliver it (docs/estimates.md): admission.nodeCores caps the vcores a
 * node counts, so a node overcommitting CPU counts the containers its cores run at full speed,
 * in the capacity view and in the live sidecar's lanes; and the fit of how finished tasks
 * stretched with the tasks beside them, shown under GET /api/v1/estimates.
 */
import type { EstimatesView } from '../../src/model/job-views';
import { silentLogger } from '../../src/log';
import { JOBS_KEPT, keptJob, SLOWDOWN_KEY, SlowdownWatch, taskGroup } from '../../src/loop/slowdown';
import { buildCapacityView, nodeContainers, type NodeCores } from '../../src/loop/snapshot';
import { SqliteLedger } from '../../src/store/ledger';
import type { TaskReport } from '../../src/yarn/model';
import { FakeRm } from './fake-rm';
import { learningSidecar, T0 } from './learning-harness';

const MB = 1024 * 1024;
const SIZE = { memoryMb: 2048, vcores: 1 };

/** The FakeRm's 4 CPU nodes and 1 `gpu` node, each advertising 16 vcores and `memoryMb`. */
function overcommitted(memoryMb = 32768): FakeRm {
  const rm = new FakeRm();
  rm.nodeVcores = 16;
  rm.nodeMemoryMb = memoryMb;
  return rm;
}

async function viewOf(rm: FakeRm, cores?: NodeCores, size = SIZE) {
  const api = rm.api();
  const v = buildCapacityView(await api.nodes(), await api.scheduler(), size, cores);
  const realtime = v.queues.find((q) => q.name === 'realtime')!;
  return {
    total: v.total,
    free: v.free,
    realtime: realtime.containers,
    partitions: v.partitions.map((p) => [p.label, p.containers, p.nodeCores]),
  };
}

describe('the containers a node counts (src/loop/snapshot.ts)', () => {
  it('a node of 16 advertised vcores and 2 cores counts 2 containers of 1 vcore; memory still caps', () => {
    const node = new FakeRm().node('n', []);
    const big = { ...node, total: { memoryMB: 32768, vcores: 16, extra: {} } };
    expect(nodeContainers(big, SIZE)).toBe(16);
    expect(nodeContainers(big, SIZE, 2)).toBe(2);
    // 2 GB of memory holds one 2 GB container, whatever the cores.
    expect(nodeContainers({ ...big, total: { ...big.total, memoryMB: 2048 } }, SIZE, 2)).toBe(1);
    // Containers of 2 vcores: 4 cores hold 2; more cores than advertised count the advertised.
    expect(nodeContainers(big, { memoryMb: 2048, vcores: 2 }, 4)).toBe(2);
    expect(nodeContainers(big, SIZE, 64)).toBe(16);
  });

  it('sizes partitions, guarantees and free containers with the cores, per label over the default', async () => {
    // Advertised: 4 CPU nodes of 16, one gpu node of 16; the real-time queue has 50 % and 100 %.
    expect(await viewOf(overcommitted())).toEqual({
      total: { '': 64, gpu: 16 },
      free: { '': 64, gpu: 16 },
      realtime: { '': 32, gpu: 16 },
      partitions: [
        ['', 64, null],
        ['gpu', 16, null],
      ],
    });
    expect(await viewOf(overcommitted(), { nodeCores: 2 })).toEqual({
      total: { '': 8, gpu: 2 },
      free: { '': 8, gpu: 2 },
      realtime: { '': 4, gpu: 2 },
      partitions: [
        ['', 8, 2],
        ['gpu', 2, 2],
      ],
    });
    expect(await viewOf(overcommitted(), { nodeCores: 2, nodeCoresByLabel: { gpu: 8 } })).toMatchObject({
      total: { '': 8, gpu: 8 },
      realtime: { '': 4, gpu: 8 },
    });
    // Nodes of 4 GB: memory holds 2 containers, whatever the cores above 2.
    expect(await viewOf(overcommitted(4096), { nodeCores: 3 })).toMatchObject({ total: { '': 8, gpu: 2 } });
  });

  it('counts the vcores in use against the cores: a node running 1 container of 2 has 1 free', async () => {
    const rm = overcommitted();
    rm.tenantPerCpuNode = 1; // 2 GB and 1 vcore used on each CPU node
    expect((await viewOf(rm)).free).toEqual({ '': 60, gpu: 16 });
    expect((await viewOf(rm, { nodeCores: 2 })).free).toEqual({ '': 4, gpu: 2 });
    rm.tenantPerCpuNode = 3; // more than the cores: none free, not fewer than none
    expect((await viewOf(rm, { nodeCores: 2 })).free).toEqual({ '': 0, gpu: 2 });
  });
});

type ClusterView = {
  partitions: Array<{ label: string; containers: number; nodeCores: number | null }>;
  admission: { lanes: Array<{ queue: string; label: string; containers: number }> };
};

describe('admission.nodeCores in the live sidecar', () => {
  let ledger: SqliteLedger;
  beforeEach(() => (ledger = SqliteLedger.open(':memory:')));
  afterEach(() => ledger.close());

  /** The sidecar over 4 CPU nodes and 1 gpu node of 16 advertised vcores and 32 GB. */
  async function sidecar(admission: Record<string, unknown>) {
    // The class's figures as they are (no profile margin): the arithmetic is the containers'.
    const s = learningSidecar(ledger, { admission: { profiles: { enabled: false }, ...admission } });
    s.rm.nodeVcores = 16;
    s.rm.nodeMemoryMb = 32768;
    await s.sidecar.runOnce();
    return { ...s, cluster: () => s.sidecar.cluster() as ClusterView };
  }

  it('sizes the lanes to 2 containers a node: the real-time queue gets 4 of 8, and 2 of the gpu node’s', async () => {
    const s = await sidecar({ nodeCores: 2 });
    const view = s.cluster();
    expect(view.partitions.map((p) => [p.label, p.containers, p.nodeCores])).toEqual([
      ['', 8, 2],
      ['gpu', 2, 2],
    ]);
    expect(view.admission.lanes.map((l) => [l.queue, l.label, l.containers]).sort()).toEqual([
      ['besteffort', '', 2],
      ['default', '', 1],
      ['realtime', '', 4],
      ['realtime', 'gpu', 2],
    ]);
  });

  it('estimates a job in the containers the cores run, and searches the earliest deadline in them', async () => {
    // 8 maps and a reduce of no data (5 s each), the AM's 10 s of set-up and 5 s of commit. In 4
    // containers the AM holds one and the maps run in 3 waves: 10 + 15 + 5 + 5 = 35 s.
    const capped = await sidecar({ nodeCores: 2 });
    const tight = await capped.submit({ maps: 8, inputBytes: 0, deadline: 30 });
    expect(tight.body).toMatchObject({ decision: 'rejected', reason: { kind: 'new-job-misses' } });
    expect(Date.parse(tight.body.earliestAdmissibleDeadline as string) - capped.now()).toBe(35_000);
    const ok = await capped.submit({ maps: 8, inputBytes: 0, deadline: 40 });
    expect(Date.parse(ok.body.estimatedFinish as string) - capped.now()).toBe(35_000);
    // The advertised 16 vcores give the queue 32 containers: one wave, 10 + 5 + 5 + 5 = 25 s.
    ledger.close();
    ledger = SqliteLedger.open(':memory:');
    const advertised = await sidecar({});
    const loose = await advertised.submit({ maps: 8, inputBytes: 0, deadline: 30 });
    expect(loose.body).toMatchObject({ decision: 'admitted' });
    expect(Date.parse(loose.body.estimatedFinish as string) - advertised.now()).toBe(25_000);
  });
});

describe('the slowdown learned from finished tasks (src/loop/slowdown.ts)', () => {
  const task = (type: 'MAP' | 'REDUCE', startMs: number, seconds: number): TaskReport => ({
    id: `task_${type}_${startMs}_${seconds}`,
    type,
    state: 'SUCCEEDED',
    startTime: startMs,
    finishTime: startMs + seconds * 1000,
    elapsedTime: seconds * 1000,
    progress: 100,
    successfulAttempt: 'attempt',
  });
  const job = (id: string, tasks: TaskReport[]) => ({
    id,
    label: '',
    workloadClass: 'cpu',
    inputBytes: 1024 * MB,
    maps: 8,
    reduces: 2,
    eta: 0.5,
    tasks,
  });

  it('groups tasks by class, stage and data in bins a factor sqrt(2) wide', () => {
    expect(taskGroup('cpu', 'map', 0)).toBe('cpu|map|none');
    expect(taskGroup('cpu', 'map', 128)).toBe('cpu|map|14');
    expect(taskGroup('cpu', 'map', 150)).toBe('cpu|map|14');
    expect(taskGroup('cpu', 'reduce', 256)).toBe('cpu|reduce|16');
    // 1 GB in 8 maps of 128 MB; 2 reduces of 0.5 * 1024 / 2 = 256 MB; unfinished tasks left out.
    expect(
      keptJob(
        job('a', [task('MAP', 10_000, 4), task('REDUCE', 20_000, 6), { ...task('MAP', 0, 1), startTime: 0 }]),
      ),
    ).toEqual({
      id: 'a',
      tasks: [
        [10, 14, 'cpu|map|14'],
        [20, 26, 'cpu|reduce|16'],
      ],
    });
  });

  it('keeps the latest JOBS_KEPT jobs of a partition, saved in the ledger, and drops an unreadable save', async () => {
    const ledger = SqliteLedger.open(':memory:');
    const watch = new SlowdownWatch({ ledger, log: silentLogger() });
    for (let i = 0; i < JOBS_KEPT + 5; i++) watch.record(job(`j${i}`, [task('MAP', i * 100_000, 10)]));
    await ledger.flush();
    const saved = ledger.getValue<Record<string, Array<{ id: string }>>>(SLOWDOWN_KEY)!;
    expect(saved['']!.map((j) => j.id)).toEqual(Array.from({ length: JOBS_KEPT }, (_, i) => `j${i + 5}`));
    const again = new SlowdownWatch({ ledger, log: silentLogger() });
    expect(again.view(() => 1, {}, 1)).toEqual(watch.view(() => 1, {}, 1));
    ledger.setValue(SLOWDOWN_KEY, { '': [{ id: 'x', tasks: [[1, 'two', 'g']] }] });
    expect(new SlowdownWatch({ ledger, log: silentLogger() }).view(() => 1, {}, 1).partitions).toEqual([]);
    ledger.close();
  });

  it('shows under GET /api/v1/estimates 2 full-speed cores per node, shown only, across a restart', async () => {
    // 4 CPU nodes (FakeRm), 2 cores each: 8 tasks run at full speed. Two jobs of 3 maps and a
    // reduce of 10 s each ran alone; one of 15 maps and a reduce beside each other (16 at once)
    // took 20 s each.
    const ledger = SqliteLedger.open(':memory:');
    const s = learningSidecar(ledger, { admission: {} });
    await s.sidecar.runOnce();
    const body = { maps: 3, inputBytes: 0 };
    await s.runJob(body, [10, 10, 10], [10], T0);
    await s.runJob({ ...body, maps: 15 }, Array<number>(15).fill(20), [20], T0 + 400_000);
    await s.runJob(body, [10, 10, 10], [10], T0 + 800_000);
    const view: EstimatesView = s.sidecar.taskCosts();
    expect(view.capacity).toEqual({
      usedByAdmission: false,
      partitions: [
        {
          label: '',
          nodes: 4,
          jobs: 3,
          tasks: 24,
          fit: {
            observations: 24,
            groups: 2,
            maxConcurrent: 16,
            fullSpeedContainers: 8,
            meanLogError: 0,
            // Each group its median with no slowdown: 7 of 24 tasks off by ln 2.
            meanLogErrorFlat: 0.202168, // 7 ln 2 / 24
            outcome: 'fit',
          },
          fullSpeedContainersPerNode: 2,
          suggestedNodeCores: 2,
          nodeCores: null,
        },
      ],
    });
    await ledger.flush();
    const restarted = learningSidecar(ledger, { admission: { nodeCores: 4 } });
    await restarted.sidecar.runOnce();
    expect(restarted.sidecar.taskCosts().capacity!.partitions[0]).toMatchObject({
      jobs: 3,
      fullSpeedContainersPerNode: 2,
      nodeCores: 4,
    });
    ledger.close();
  });
});
