/**
 * Capacity as the nodes deliver it (docs/estimates.md): admission.nodeCores caps the vcores a
 * node counts, so a node overcommitting CPU counts the containers its cores run at full speed,
 * in the capacity view and in the live sidecar's lanes.
 */
import { buildCapacityView, nodeContainers, type NodeCores } from '../../src/loop/snapshot';
import { Ledger } from '../../src/store/ledger';
import { FakeRm } from './fake-rm';
import { learningSidecar } from './learning-harness';

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
  let ledger: Ledger;
  beforeEach(() => (ledger = Ledger.open(':memory:')));
  afterEach(() => ledger.close());

  /** The sidecar over 4 CPU nodes and 1 gpu node of 16 advertised vcores and 32 GB. */
  async function sidecar(admission: Record<string, unknown>) {
    const s = learningSidecar(ledger, { admission });
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
    ledger = Ledger.open(':memory:');
    const advertised = await sidecar({});
    const loose = await advertised.submit({ maps: 8, inputBytes: 0, deadline: 30 });
    expect(loose.body).toMatchObject({ decision: 'admitted' });
    expect(Date.parse(loose.body.estimatedFinish as string) - advertised.now()).toBe(25_000);
  });
});
