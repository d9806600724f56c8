import type {
  AdmissionPort,
  JobView,
  MapAssignment,
  NodeView,
  PlacementPort,
} from '../../src/sim/policy-port';
import type { ClusterSpec, NodeClassSpec, TraceJob } from '../../src/sim/model';

/**
 * Test doubles for the engine's tests: the smallest admission and placement that let the
 * engine's own model (time, slots, heartbeats, locality) be checked in isolation. The real
 * policies come from the registry (test/sim/policies.test.ts).
 */
export function acceptAll(): AdmissionPort & { finished: string[]; started: string[] } {
  const finished: string[] = [];
  const started: string[] = [];
  return {
    name: 'accept-all',
    promisesDeadlines: false,
    finished,
    started,
    decide: () => ({ admit: true }),
    compare: (a: JobView, b: JobView) => a.spec.arrival - b.spec.arrival,
    jobStarted: (id: string) => void started.push(id),
    jobFinished: (r) => void finished.push(r.job.id),
    jobKilled: () => undefined,
  };
}

/** Local task of the first job with one, else the first pending task of the first job. */
export function greedyLocal(): PlacementPort & { calls: number } {
  const port = {
    name: 'greedy-local',
    calls: 0,
    jobAdded: () => undefined,
    jobRemoved: () => undefined,
    assignMaps(node: NodeView, queue: readonly JobView[]): MapAssignment[] {
      port.calls++;
      const out: MapAssignment[] = [];
      const taken = new Set<string>();
      for (let s = 0; s < node.freeCpu; s++) {
        let pick: MapAssignment | null = null;
        for (const j of queue) {
          if (j.spec.type === 'gpu') continue;
          const local = j.pendingMaps.find(
            (i) => !taken.has(`${j.id}/${i}`) && j.mapReplicas(i).includes(node.index),
          );
          if (local !== undefined) {
            pick = { jobId: j.id, mapIndex: local };
            break;
          }
        }
        if (!pick) {
          for (const j of queue) {
            if (j.spec.type === 'gpu') continue;
            const any = j.pendingMaps.find((i) => !taken.has(`${j.id}/${i}`));
            if (any !== undefined) {
              pick = { jobId: j.id, mapIndex: any };
              break;
            }
          }
        }
        if (!pick) break;
        taken.add(`${pick.jobId}/${pick.mapIndex}`);
        out.push(pick);
      }
      return out;
    },
  };
  return port;
}

export function nodeClass(name: string, count: number, over: Partial<NodeClassSpec> = {}): NodeClassSpec {
  return {
    name,
    count,
    mapSlots: 2,
    reduceSlots: 1,
    containers: 3,
    gpuContainers: 0,
    labels: [],
    speed: { cpu: 1, gpu: 1, gpuOnCpu: 1 },
    idleWatts: 100,
    taskEnergyKWh: { cpu: 0.001, gpu: 0.001, gpuOnCpu: 0.001 },
    ...over,
  };
}

export function cluster(over: Partial<ClusterSpec> = {}): ClusterSpec {
  const cost = {
    mapFixedSeconds: 0,
    mapSecondsPerMB: 0.1,
    reduceFixedSeconds: 5,
    reduceSecondsPerMB: 0,
    shuffleRatio: 0.1,
    jitter: [1, 1] as [number, number],
  };
  return {
    version: 1,
    slotModel: 'mr1',
    heartbeatSeconds: 3,
    remoteReadPenalty: 0.5,
    gpuLabel: 'gpu',
    nodeClasses: [nodeClass('n', 4)],
    costs: { cpu: cost, gpu: cost },
    hdfs: { blockMB: 128, replication: 2, blocks: 0 },
    failures: null,
    energyWindowSeconds: null,
    ...over,
  };
}

export function traceJob(id: string, over: Partial<TraceJob> = {}): TraceJob {
  return {
    id,
    arrival: 0,
    deadline: 1000,
    maps: 4,
    reduces: 1,
    inputBytes: 4 * 100 * 1024 * 1024,
    splits: null,
    type: 'cpu',
    user: 'u',
    queue: 'default',
    blocks: null,
    ...over,
  };
}
