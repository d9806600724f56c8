import { laneKindsFor } from '../../core/lanes';
import type { SlotModel } from '../../core/slots/model';
import { slotTotals, type ClusterSpec, type TraceJob } from '../model';

/**
 * The slot model the admission core reasons about, from the cluster file. With `gpuMapLane`
 * (RTMR on mr1) the map slots that hold a GPU are a lane of their own (SlotModel.gpuMapSlots)
 * and `mapSlots` counts the others; without, every map slot is counted in `mapSlots`.
 */
export function coreSlotModel(cluster: ClusterSpec, gpuMapLane = false): SlotModel {
  const t = slotTotals(cluster);
  if (cluster.slotModel !== 'mr1') return { name: 'unified', containers: t.containers };
  const gpu = gpuMapLane ? gpuSlotsOf(cluster) : 0;
  return gpu > 0
    ? { name: 'mr1', mapSlots: t.map - gpu, reduceSlots: t.reduce, gpuMapSlots: gpu }
    : { name: 'mr1', mapSlots: t.map, reduceSlots: t.reduce };
}

/** GPU map slots (mr1) or GPU containers (unified) on the GPU-labelled nodes, cluster-wide. */
export function gpuSlotsOf(cluster: ClusterSpec): number {
  let gpu = 0;
  for (const c of cluster.nodeClasses)
    if (c.labels.includes(cluster.gpuLabel)) gpu += c.count * c.gpuContainers;
  return gpu;
}

/**
 * Why no slot of this cluster can ever run a job of this type (null when some can): its maps
 * need a CPU slot (a CPU job), a GPU slot (a GPU-only job) or either (adaptive), counted over
 * the map slots (mr1) or containers (unified); its reduces need a reduce slot (mr1). Such a job
 * is refused at submission by every policy: admitted, it would wait for ever.
 */
export function unrunnableReason(
  cluster: ClusterSpec,
  job: Pick<TraceJob, 'type' | 'reduces'>,
): string | null {
  const t = slotTotals(cluster);
  const gpu = gpuSlotsOf(cluster);
  const mr1 = cluster.slotModel === 'mr1';
  const cpu = (mr1 ? t.map : t.containers) - gpu;
  const where = mr1 ? 'map slot' : 'container';
  const usable = job.type === 'cpu' ? cpu : job.type === 'gpu' ? gpu : cpu + gpu;
  if (usable <= 0)
    return `no-usable-slots: no ${job.type === 'adaptive' ? '' : `${job.type} `}${where} in the cluster can run a ${job.type} job's maps`;
  if (mr1 && job.reduces > 0 && t.reduce <= 0) return 'no-usable-slots: no reduce slot in the cluster';
  return null;
}

/**
 * The admission lanes of a unified cluster with GPU containers, for a policy with its own
 * dispatcher: the GPU containers and the other containers, each with its count. The live
 * sidecar admits per (queue, label partition) for the same reason (src/loop/sidecar.ts): a
 * GPU-only job can only run in GPU containers, so admitting it against the whole pool counts
 * containers it can never use. Null when there is one pool (mr1, or no GPU containers).
 */
export function containerLanesOf(
  cluster: ClusterSpec,
): Array<{ kind: 'cpu' | 'gpu'; containers: number }> | null {
  if (cluster.slotModel !== 'unified') return null;
  const gpu = gpuSlotsOf(cluster);
  const all = slotTotals(cluster).containers;
  if (gpu === 0) return null;
  return [
    { kind: 'cpu', containers: all - gpu },
    { kind: 'gpu', containers: gpu },
  ];
}

/**
 * The lanes a job may be admitted in, in the order tried: a CPU job in the CPU lane, a GPU-only
 * job in the GPU lane, an adaptive job first where one of its maps costs the least energy, then
 * in the other (as the live sidecar orders partitions; CPU first on a tie or without a power
 * model).
 */
export function lanesForJob(cluster: ClusterSpec, type: TraceJob['type']): Array<'cpu' | 'gpu'> {
  if (type !== 'adaptive') return laneKindsFor(type);
  let eCpu = Number.POSITIVE_INFINITY;
  let eGpu = Number.POSITIVE_INFINITY;
  for (const c of cluster.nodeClasses) {
    if (c.count === 0) continue;
    const slots = cluster.slotModel === 'mr1' ? c.mapSlots : c.containers;
    if (slots > c.gpuContainers) eCpu = Math.min(eCpu, c.taskEnergyKWh.gpuOnCpu);
    if (c.gpuContainers > 0 && c.labels.includes(cluster.gpuLabel))
      eGpu = Math.min(eGpu, c.taskEnergyKWh.gpu);
  }
  return laneKindsFor(type, eGpu < eCpu);
}
