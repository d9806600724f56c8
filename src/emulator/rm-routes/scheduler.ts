import type { QueueConfig } from '../config';
import { answer } from '../http';
import { XSI_TYPE, type Content } from '../render';
import type { AppView, EmulatedRm } from '../rm-state';
import { C, partitionUsage, pct, resource, type RmContext } from './context';

/** `GET /scheduler`: the CapacityScheduler's queue tree, root and leaves, by partition. */
export function registerSchedulerRoutes(c: RmContext): void {
  c.app.get(
    `${C}/scheduler`,
    c.h((req, res) => answer(req, res, 'scheduler', { schedulerInfo: rootQueue(c) })),
  );
}

/** What the queues use now: containers by queue and partition, and the apps. */
interface Usage {
  usage: Map<string, Map<string, number>>;
  partitions: string[];
  totals: Map<string, number>;
  usedIn(queue: string, partition: string): number;
  views: AppView[];
}

function usageOf(rm: EmulatedRm): Usage {
  const usage = rm.queueUsage();
  const partitions = ['', ...rm.labels()];
  const totals = new Map(partitions.map((p) => [p, rm.partitionContainers(p)]));
  const usedIn = (q: string, p: string) => usage.get(q)?.get(p) ?? 0;
  return { usage, partitions, totals, usedIn, views: rm.allViews() };
}

function rootQueue(c: RmContext): Content {
  const u = usageOf(c.rm);
  const { usage, partitions, totals } = u;
  const leaves = c.rm.queueConfigs.map((q) => leafQueue(c, q, u));
  const usedRoot = partitions.reduce(
    (s, p) => s + [...usage.values()].reduce((a, m) => a + (m.get(p) ?? 0), 0),
    0,
  );
  return {
    [XSI_TYPE]: 'capacityScheduler',
    capacity: 100,
    usedCapacity: pct(
      [...usage.values()].reduce((a, m) => a + (m.get('') ?? 0), 0),
      totals.get('')!,
    ),
    maxCapacity: 100,
    weight: -1,
    normalizedWeight: 0,
    queueName: 'root',
    queuePath: 'root',
    maxParallelApps: 2147483647,
    isAbsoluteResource: false,
    queues: { queue: leaves },
    capacities: {
      queueCapacitiesByPartition: partitions.map((p) => ({
        partitionName: p,
        capacity: 100,
        usedCapacity: pct(
          [...usage.values()].reduce((a, m) => a + (m.get(p) ?? 0), 0),
          totals.get(p)!,
        ),
        maxCapacity: 100,
        absoluteCapacity: 100,
        absoluteUsedCapacity: pct(
          [...usage.values()].reduce((a, m) => a + (m.get(p) ?? 0), 0),
          totals.get(p)!,
        ),
        absoluteMaxCapacity: 100,
      })),
    },
    allocatedContainers: usedRoot,
    queuePriority: 0,
    orderingPolicyInfo: 'utilization',
    mode: 'percentage',
    queueType: 'parent',
    creationMethod: 'static',
  };
}

/** A leaf's capacities in each partition it may use. */
function partitionCaps(rm: EmulatedRm, q: QueueConfig, u: Usage) {
  return u.partitions
    .filter((p) => p === '' || q.accessibleNodeLabels.includes(p))
    .map((p) => {
      const total = u.totals.get(p)!;
      const capacity = rm.queueShare(q, p, 'capacity');
      const maxCapacity = rm.queueShare(q, p, 'max');
      const used = u.usedIn(q.name, p);
      return {
        partitionName: p,
        capacity,
        usedCapacity: pct(used, (total * capacity) / 100),
        maxCapacity,
        absoluteCapacity: capacity,
        absoluteUsedCapacity: pct(used, total),
        absoluteMaxCapacity: maxCapacity,
        maxAMLimitPercentage: 10,
        weight: -1,
        normalizedWeight: 0,
      };
    });
}

function leafQueue(c: RmContext, q: QueueConfig, u: Usage): Content {
  const { rm, slot } = c;
  const caps = partitionCaps(rm, q, u);
  const usedDefault = u.usedIn(q.name, '');
  const usedAll = u.partitions.reduce((s, p) => s + u.usedIn(q.name, p), 0);
  const apps = u.views.filter(
    (v) => v.rec.queue === q.name && ['SUBMITTED', 'ACCEPTED', 'RUNNING'].includes(v.state),
  );
  const defaultCap = caps.find((cap) => cap.partitionName === '')!;
  return {
    [XSI_TYPE]: 'capacitySchedulerLeafQueueInfo',
    queuePath: `root.${q.name}`,
    capacity: q.capacity,
    usedCapacity: defaultCap.usedCapacity,
    maxCapacity: q.maxCapacity,
    absoluteCapacity: q.capacity,
    absoluteMaxCapacity: q.maxCapacity,
    absoluteUsedCapacity: pct(usedDefault, u.totals.get('')!),
    weight: -1,
    normalizedWeight: 0,
    numApplications: apps.length,
    maxParallelApps: 2147483647,
    queueName: q.name,
    isAbsoluteResource: false,
    state: 'RUNNING',
    resourcesUsed: resource(slot(usedAll)),
    hideReservationQueues: false,
    nodeLabels: q.accessibleNodeLabels,
    defaultNodeLabelExpression:
      q.defaultNodeLabelExpression === '' ? undefined : q.defaultNodeLabelExpression,
    allocatedContainers: usedAll,
    reservedContainers: 0,
    pendingContainers: apps.reduce((s, v) => s + v.pendingMaps, 0),
    capacities: { queueCapacitiesByPartition: caps },
    resources: {
      resourceUsagesByPartition: caps.map((cap) =>
        partitionUsage(c, cap.partitionName, slot(u.usedIn(q.name, cap.partitionName)), slot(0), slot(0)),
      ),
    },
    ...LEAF_POLICY,
    numActiveApplications: apps.filter((v) => v.state === 'RUNNING').length,
    numPendingApplications: apps.filter((v) => v.state !== 'RUNNING').length,
    numContainers: usedAll,
    ...LEAF_LIMITS,
  };
}

/** What every leaf of the emulated scheduler has alike: FIFO, static, no preemption, the default limits. */
const LEAF_POLICY = {
  queuePriority: 0,
  orderingPolicyInfo: 'fifo',
  autoCreateChildQueueEnabled: false,
  mode: 'percentage',
  queueType: 'leaf',
  creationMethod: 'static',
};
const LEAF_LIMITS = {
  maxApplications: 10000,
  maxApplicationsPerUser: 10000,
  userLimit: 100,
  users: {},
  userLimitFactor: 1,
  preemptionDisabled: true,
  intraQueuePreemptionDisabled: true,
  defaultPriority: 0,
  isAutoCreatedLeafQueue: false,
  maxApplicationLifetime: -1,
  defaultApplicationLifetime: -1,
};
