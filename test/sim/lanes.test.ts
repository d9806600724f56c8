import { Engine, worstMapSecondsOn, worstReduceSecondsOn } from '../../src/sim/engine';
import type { ClusterSpec, TraceJob } from '../../src/sim/model';
import {
  admissionPort,
  containerLanesOf,
  lanesForJob,
  placementPort,
  worstCaseEstimates,
} from '../../src/sim/policies';
import { cluster, nodeClass, traceJob } from './doubles';

/**
 * Admission lanes on a unified cluster with GPU containers (docs/simulator.md, "Admission
 * lanes"): GPU containers and the rest, one policy instance each, and every task of a job in
 * its lane's containers.
 */
const MB = 1024 * 1024;

function mixed(over: Partial<ClusterSpec> = {}): ClusterSpec {
  return cluster({
    slotModel: 'unified',
    heartbeatSeconds: 1,
    nodeClasses: [
      nodeClass('cpu', 3, { containers: 4 }),
      nodeClass('gpu', 2, {
        containers: 3,
        gpuContainers: 2,
        labels: ['gpu'],
        taskEnergyKWh: { cpu: 0.002, gpu: 0.001, gpuOnCpu: 0.003 },
      }),
    ],
    hdfs: { blockMB: 128, replication: 5, blocks: 0 },
    ...over,
  });
}

describe('admission lanes (unified, GPU containers)', () => {
  it('the lanes: 4 GPU containers, and the 14 others', () => {
    expect(containerLanesOf(mixed())).toEqual([
      { kind: 'cpu', containers: 14 },
      { kind: 'gpu', containers: 4 },
    ]);
    // One pool: mr1, or no GPU container.
    expect(containerLanesOf(mixed({ slotModel: 'mr1' }))).toBeNull();
    expect(containerLanesOf(cluster({ slotModel: 'unified' }))).toBeNull();
  });

  it('a job is tried in its lanes: cpu, gpu, adaptive where a map costs the least energy first', () => {
    const c = mixed();
    expect(lanesForJob(c, 'cpu')).toEqual(['cpu']);
    expect(lanesForJob(c, 'gpu')).toEqual(['gpu']);
    // Cheapest gpuOnCpu map: 0.001 kWh (cpu class); cheapest GPU map: 0.001: a tie, CPU first.
    expect(lanesForJob(c, 'adaptive')).toEqual(['cpu', 'gpu']);
    const cheaperGpu = mixed({
      nodeClasses: [
        nodeClass('cpu', 3, { containers: 4, taskEnergyKWh: { cpu: 0.002, gpu: 0.002, gpuOnCpu: 0.004 } }),
        nodeClass('gpu', 2, {
          containers: 3,
          gpuContainers: 2,
          labels: ['gpu'],
          taskEnergyKWh: { cpu: 0.002, gpu: 0.001, gpuOnCpu: 0.003 },
        }),
      ],
    });
    expect(lanesForJob(cheaperGpu, 'adaptive')).toEqual(['gpu', 'cpu']);
  });

  for (const policy of ['rtmr', 'dc'] as const) {
    it(`${policy}: every task, maps and reduces, runs in its lane's containers`, () => {
      const c = mixed();
      const jobs: TraceJob[] = [];
      for (let i = 0; i < 12; i++) {
        jobs.push(
          traceJob(`j${i}`, {
            arrival: i * 4,
            deadline: 2000,
            maps: 3 + (i % 4),
            reduces: 1 + (i % 3),
            inputBytes: (3 + (i % 4)) * 50 * MB,
            type: (['cpu', 'gpu', 'adaptive'] as const)[i % 3],
          }),
        );
      }
      const estimates = worstCaseEstimates(
        jobs,
        (j) => worstMapSecondsOn(c, j),
        (j) => worstReduceSecondsOn(c, j),
        c,
      );
      let engine: Engine | null = null;
      const placement = placementPort('fifo', {}, c, {
        nodeId: (i) => (engine as Engine).nodeId(i),
        orderKeyMs: (j) => (engine as Engine).queueRank(j.id),
      });
      engine = new Engine(c, { seed: 3, admission: admissionPort(policy, {}, c, estimates), placement });
      for (const j of jobs) engine.submit(j);
      engine.run();
      const outcomes = engine.outcomes();
      for (const o of outcomes) expect([o.id, o.admitted, o.status]).toEqual([o.id, true, 'finished']);
      const tasks = engine.taskRecords();
      const kindsOf = (id: string) => [...new Set(tasks.filter((t) => t.job === id).map((t) => t.container))];
      for (const j of jobs) {
        // GPU-only jobs in GPU containers, others (adaptive tried in the CPU lane first, and
        // admitted there with this loose deadline) in the other containers, reduces included.
        expect([j.id, kindsOf(j.id)]).toEqual([j.id, [j.type === 'gpu' ? 'gpu' : 'cpu']]);
      }
      expect(tasks.filter((t) => t.kind === 'reduce' && t.container === 'gpu').length).toBeGreaterThan(0);
    });
  }
});
