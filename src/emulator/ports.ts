import type {
  AdmissionPort,
  ContainerAssignment,
  JobView,
  MapAssignment,
  NodeView,
  PlacementPort,
} from '../sim/policy-port';
import { pendingMapCount } from '../sim/policies';

/**
 * How the emulated RM plugs the project's policies into the simulator's engine.
 *
 * Admission: a ResourceManager admits every application it accepts (the sidecar, not the RM,
 * decides deadlines), so the emulator's admission port admits all and orders the queue the way
 * the capacity scheduler's FIFO ordering policy does: priority first (the engine sorts on it
 * before asking `compare`), then submission order (CapacityScheduler.md, "Application priority").
 *
 * Placement: any placement policy of the registry, through the simulator's own adapter
 * (src/sim/policies.ts `placementPort`), which picks the map task (locality, container kind).
 * Around it, this port is the capacity scheduler's part. A heartbeating node is filled one
 * container at a time (PlacementPort.assignContainer), maps and reduces alike:
 * - node labels: a job's containers, maps and reduces, go only to nodes of its partition (an
 *   exclusive partition serves only apps that ask for its label; unlabelled nodes form the
 *   default partition), as NodeLabel.md describes;
 * - queue order: among the queues with work in the node's partition, the one using the least
 *   of its guaranteed capacity there (used / guaranteed containers) is offered the container
 *   first, as the parent queue's default `utilization` ordering does
 *   (PriorityUtilizationQueueOrderingPolicy); a queue that takes nothing passes the offer on;
 * - within a queue, its apps in the RM's order (priority, then submission): an app whose maps
 *   are done takes a reduce, an app with pending maps lets the placement policy choose among
 *   the queue's apps from it on;
 * - queue maximum capacity: a queue never holds more containers of a partition than its
 *   maximum share of it;
 * - reservations: during an allocation's window, the containers a reservation holds that its
 *   own apps are not using are kept free for them; no other app (of another reservation or
 *   none) may take them, and they count against the reservation's queue maximum. Outside the
 *   window they are free for anyone. There is no preemption: a container busy when a window
 *   opens is handed to the reservation when its task ends.
 */

export interface JobPlacementInfo {
  /** The partition the job's containers must run in: '' is the default partition. */
  partition: string;
  /** Leaf queue name. */
  queue: string;
  user: string;
  /** The reservation the app was submitted with, or null. */
  reservationId: string | null;
}

/** Containers a reservation holds now in a partition, and the queue it was planned in. */
export interface Hold {
  containers: number;
  queue: string;
}

export interface PlacementBindings {
  /** Node id by the engine's node index (replica lists carry indices). */
  nodeId(index: number): string;
  /** Label facts of a job, by its id (the application id). */
  job(jobId: string): JobPlacementInfo | undefined;
  /** Containers of a partition on live nodes. */
  partitionContainers(partition: string): number;
  /** Containers a queue is guaranteed in a partition (its capacity); 0 when it has none there. */
  guaranteedContainers(queue: string, partition: string): number;
  /** Containers a queue may hold in a partition at most (its maximum capacity), or Infinity. */
  maxContainers(queue: string, partition: string): number;
  /** Reservations holding containers of a partition at simulated second `now`, by id. */
  holds(partition: string, now: number): ReadonlyMap<string, Hold>;
  /** Told of every map the engine will start (the engine throws rather than drop one). */
  started(nodeId: string, assignments: readonly MapAssignment[]): void;
}

export function admitAllPort(): AdmissionPort {
  return {
    name: 'yarn-rm',
    promisesDeadlines: false,
    decide: () => ({ admit: true }),
    compare: (a: JobView, b: JobView) => a.spec.arrival - b.spec.arrival,
    jobStarted: () => undefined,
    jobFinished: () => undefined,
    jobKilled: () => undefined,
  };
}

/** The partition a node belongs to: its first label, or '' (the default partition). */
export function nodePartition(labels: readonly string[]): string {
  return labels[0] ?? '';
}

const reduceReady = (j: JobView): boolean => j.mapsDone && j.pendingReduces > 0;

/** One queue's apps with work in the partition, and what the queue holds there. */
interface QueueLoad {
  name: string;
  used: number;
  /** Containers its reservations hold but do not use now. */
  withheld: number;
  guaranteed: number;
  max: number;
  jobs: Array<{ view: JobView; info: JobPlacementInfo }>;
}

/** What the queues and reservations of one partition hold now (maps and reduces alike). */
interface PartitionUse {
  loads: Map<string, QueueLoad>;
  /** The queue's load, created empty on first use. */
  load(name: string): QueueLoad;
  usedTotal: number;
  usedByReservation: Map<string, number>;
  /** Whether any app of the partition has a container to take. */
  demand: boolean;
}

function partitionUse(
  b: PlacementBindings,
  partition: string,
  queue: readonly JobView[],
  reduces: boolean,
): PartitionUse {
  const loads = new Map<string, QueueLoad>();
  const load = (name: string): QueueLoad => {
    let l = loads.get(name);
    if (!l) {
      l = {
        name,
        used: 0,
        withheld: 0,
        guaranteed: b.guaranteedContainers(name, partition),
        max: b.maxContainers(name, partition),
        jobs: [],
      };
      loads.set(name, l);
    }
    return l;
  };
  const use: PartitionUse = { loads, load, usedTotal: 0, usedByReservation: new Map(), demand: false };
  for (const view of queue) {
    const info = b.job(view.id);
    if (!info || info.partition !== partition) continue;
    const running = view.runningMaps + view.runningReduces;
    load(info.queue).used += running;
    use.usedTotal += running;
    const r = info.reservationId;
    if (r !== null) use.usedByReservation.set(r, (use.usedByReservation.get(r) ?? 0) + running);
    if (pendingMapCount(view) > 0 || (reduces && reduceReady(view))) {
      load(info.queue).jobs.push({ view, info });
      use.demand = true;
    }
  }
  return use;
}

/**
 * Whether a queue's app may take one more container of the partition: within its
 * reservation's unused hold, or from what no reservation keeps, below the queue's maximum.
 * Counts each hold's unused containers against its queue (QueueLoad.withheld) on the way.
 */
function takeRule(
  use: PartitionUse,
  holds: ReadonlyMap<string, Hold>,
  partitionContainers: number,
): (l: QueueLoad, info: JobPlacementInfo) => boolean {
  const heldUsed = (id: string): number => use.usedByReservation.get(id) ?? 0;
  let withheld = 0;
  for (const [id, h] of holds) {
    const unused = Math.max(0, h.containers - heldUsed(id));
    withheld += unused;
    use.load(h.queue).withheld += unused;
  }
  // Containers of the partition that no reservation keeps: what apps outside a hold may take.
  const open = partitionContainers - use.usedTotal - withheld;
  const withinHold = (info: JobPlacementInfo): boolean => {
    if (info.reservationId === null) return false;
    const h = holds.get(info.reservationId);
    return h !== undefined && heldUsed(info.reservationId) < h.containers;
  };
  return (l, info) =>
    withinHold(info)
      ? // A held container is already counted against the queue (as withheld): only the
        // hard bound applies.
        l.used + 1 <= l.max
      : open > 0 && l.used + l.withheld + 1 <= l.max;
}

/**
 * PriorityUtilizationQueueOrderingPolicy: the queues with work, least used relative to their
 * guarantee first; a queue without a guarantee in this partition comes after those with one.
 */
function queuesInOrder(loads: Map<string, QueueLoad>): QueueLoad[] {
  const ratio = (l: QueueLoad): number => (l.guaranteed > 0 ? l.used / l.guaranteed : 1e9 + l.used);
  return [...loads.values()]
    .filter((l) => l.jobs.length > 0)
    .sort((x, y) => ratio(x) - ratio(y) || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}

/** The inner policy's choice of one map task for one container: `jobs` (RM order) from one on. */
type MapOffer = (node: NodeView, jobs: readonly JobView[], now: number) => MapAssignment | null;

/**
 * The container a queue's apps take on `node`, in the RM's order: a reduce for an app whose
 * maps are done, else a map as the policy chooses among the apps from it on; null when none.
 */
function takeInQueue(
  jobs: readonly JobView[],
  node: NodeView,
  now: number,
  reduces: boolean,
  offerMap: MapOffer,
): ContainerAssignment | null {
  for (let i = 0; i < jobs.length; i++) {
    const j = jobs[i]!;
    if (reduces && reduceReady(j) && node.freeReduceSlots > 0) return { kind: 'reduce', jobId: j.id };
    if (pendingMapCount(j) === 0 || node.freeMapSlots <= 0) continue;
    const a = offerMap(
      node,
      jobs.slice(i).filter((v) => pendingMapCount(v) > 0),
      now,
    );
    if (a) return { kind: 'map', ...a };
    // The policy passed over every map of this queue at this node (locality, container
    // kind): a later app's reduce may still take the container.
    if (reduces && node.freeReduceSlots > 0) {
      const r = jobs.slice(i + 1).find(reduceReady);
      if (r) return { kind: 'reduce', jobId: r.id };
    }
    return null;
  }
  return null;
}

/** The inner placement port's choice of one map task among `jobs` (RM order) for one container. */
function mapOffer(inner: PlacementPort, orderKeys: Map<string, number>): MapOffer {
  return (node, jobs, now) => {
    // The policies order by arrival; `jobs` is already in the RM's order (priority, then
    // submission). Lower each arrival to below its successor's so that a raised priority
    // moves a job ahead in the policy's FIFO order too, without changing anyone else's place.
    const keys = jobs.map((j) => j.spec.arrival * 1000);
    for (let i = keys.length - 2; i >= 0; i--) keys[i] = Math.min(keys[i]!, keys[i + 1]! - 1);
    orderKeys.clear();
    jobs.forEach((j, i) => orderKeys.set(j.id, keys[i]!));
    // One container is offered: at most one of each kind, so the policy's kind preference
    // (a GPU container for an adaptive job) still decides; its first choice is taken.
    const one: NodeView = {
      ...node,
      freeMapSlots: 1,
      freeCpu: Math.min(1, node.freeCpu),
      freeGpu: Math.min(1, node.freeGpu),
    };
    return inner.assignMaps(one, jobs, now)[0] ?? null;
  };
}

/**
 * Wrap the simulator's placement port (src/sim/policies.ts: any registry policy) with the
 * capacity scheduler's rules above. `orderKeys` is what the inner port's `orderKeyMs` must
 * read: filled here before each call.
 */
export function capacityScheduler(
  inner: PlacementPort,
  orderKeys: Map<string, number>,
  bind: () => PlacementBindings,
): PlacementPort {
  const offerMap = mapOffer(inner, orderKeys);

  /** The container `node` gives next: queues in utilization order, the first that takes one. */
  const choose = (
    node: NodeView,
    queue: readonly JobView[],
    now: number,
    reduces: boolean,
  ): ContainerAssignment | null => {
    const b = bind();
    const partition = nodePartition(node.labels);
    const use = partitionUse(b, partition, queue, reduces);
    if (!use.demand) return null;
    const mayTake = takeRule(use, b.holds(partition, now), b.partitionContainers(partition));
    for (const l of queuesInOrder(use.loads)) {
      const jobs = l.jobs.filter((j) => mayTake(l, j.info)).map((j) => j.view);
      const a = takeInQueue(jobs, node, now, reduces, offerMap);
      if (a) return a;
    }
    return null;
  };

  return {
    name: inner.name,
    jobAdded: (job, now) => inner.jobAdded(job, now),
    jobRemoved: (id, now) => inner.jobRemoved(id, now),
    assignContainer(node, queue, now) {
      const a = choose(node, queue, now, true);
      if (a?.kind === 'map') bind().started(node.id, [a]);
      return a;
    },
    /**
     * For a driver that knows only assignMaps: one map container by the same rules (the
     * engine calls assignContainer instead).
     */
    assignMaps(node, queue, now) {
      const a = choose(node, queue, now, false);
      if (a?.kind !== 'map') return [];
      const out: MapAssignment = { jobId: a.jobId, mapIndex: a.mapIndex };
      if (a.containerKind) out.containerKind = a.containerKind;
      bind().started(node.id, [out]);
      return [out];
    },
  };
}
