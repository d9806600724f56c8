import type { Engine, JobOutcome } from './engine';
import { TASK_COMPLETED, TASK_LOCAL, TASK_MAP } from './task-log';

/**
 * The figures of summary.json, per policy. Formulas (docs/simulator.md, "Metrics"), from
 * He et al., RTMR, section V and He, dissertation, sections 4.4.2 and 6.3.3:
 *
 *   acceptRatio   = accepted / jobs
 *   successRatio  = succeeded / accepted          (succeeded: finished by A + D)
 *   utilization   = slot time of successful jobs / (slots * makespan)
 *                   (a policy that promises nothing, FIFO, counts every job's slot time,
 *                   as the RTMR paper does for Hadoop FIFO)
 *   makespan      = last finish of an accepted job - first arrival (workload turnaround)
 *   meanMapResponseSeconds = mean over completed map tasks of (task finish - job arrival)
 *   localityRate  = local map tasks / all map tasks (Eq. 4.1)
 *   energyKWh     = idle power of every node over max(makespan, energy window)
 *                   + per-task energy of every completed task; null without a power model
 */
export interface PolicySummary {
  acceptRatio: number;
  successRatio: number | null;
  utilization: number | null;
  jobs: number;
  accepted: number;
  succeeded: number;
  makespanSeconds: number | null;
  meanMapResponseSeconds: number | null;
  localityRate: number | null;
  energyKWh: number | null;
  /** Energy of tasks alone (He, dissertation, Table 6.11 "energy no idle"). */
  taskEnergyKWh: number | null;
  meanTurnaroundSeconds: number | null;
  missed: number;
  /** With another tenant (src/sim/tenant.ts): what it did, and the rejections that named it. */
  tenant?: TenantSummary;
}

export interface TenantSummary {
  /** Its containers killed by preemption. */
  preempted: number;
  /** Container-seconds it held beyond its own guarantee. */
  borrowedContainerSeconds: number;
  /** Jobs rejected with the sharing of the guarantee named in the reason. */
  rejectedNamingSharing: number;
}

export function summarize(
  engine: Engine,
  outcomes: readonly JobOutcome[],
  promisesDeadlines: boolean,
): PolicySummary {
  const jobs = outcomes.length;
  const accepted = outcomes.filter((o) => o.admitted).length;
  const succeededJobs = outcomes.filter((o) => o.admitted && o.metDeadline === true);
  const succeeded = succeededJobs.length;
  const missed = outcomes.filter((o) => o.admitted && o.metDeadline === false).length;
  const firstArrival = outcomes.reduce((m, o) => Math.min(m, o.arrival), Number.POSITIVE_INFINITY);
  const lastFinish = outcomes.reduce(
    (m, o) => (o.admitted && o.finish !== null ? Math.max(m, o.finish) : m),
    Number.NEGATIVE_INFINITY,
  );
  const makespan =
    Number.isFinite(lastFinish) && Number.isFinite(firstArrival) ? lastFinish - firstArrival : null;
  const counted = promisesDeadlines ? succeededJobs : outcomes.filter((o) => o.admitted);
  const slotSeconds = counted.reduce((s, o) => s + o.slotSeconds, 0);
  const utilization = makespan && makespan > 0 ? slotSeconds / (engine.totalSlots * makespan) : null;

  const { mapCount, localCount, responseSum, taskEnergy } = taskFigures(engine, outcomes);
  const hasPower = engine.cluster.nodeClasses.some(
    (c) => c.idleWatts > 0 || c.taskEnergyKWh.cpu > 0 || c.taskEnergyKWh.gpu > 0,
  );
  let energy: number | null = null;
  if (hasPower && makespan !== null) {
    const window = Math.max(makespan, engine.cluster.energyWindowSeconds ?? 0);
    energy = engine.idleEnergyKWh(0, window) + taskEnergy;
  }
  const tenant = engine.tenantReport();
  const turnarounds = outcomes.filter((o) => o.finish !== null).map((o) => (o.finish as number) - o.arrival);
  return {
    acceptRatio: jobs ? accepted / jobs : 0,
    successRatio: accepted ? succeeded / accepted : null,
    utilization,
    jobs,
    accepted,
    succeeded,
    makespanSeconds: makespan,
    meanMapResponseSeconds: mapCount ? responseSum / mapCount : null,
    localityRate: mapCount ? localCount / mapCount : null,
    energyKWh: energy,
    taskEnergyKWh: hasPower ? taskEnergy : null,
    meanTurnaroundSeconds: turnarounds.length
      ? turnarounds.reduce((a, b) => a + b, 0) / turnarounds.length
      : null,
    missed,
    ...(tenant
      ? {
          tenant: {
            preempted: tenant.preempted,
            borrowedContainerSeconds: tenant.borrowedSeconds,
            rejectedNamingSharing: outcomes.filter(
              (o) => !o.admitted && /held by other queues/.test(o.reason ?? ''),
            ).length,
          },
        }
      : {}),
  };
}

/**
 * The figures of a run's completed tasks: maps, local maps, the sum of the maps' response
 * times, and the tasks' own energy.
 */
function taskFigures(
  engine: Engine,
  outcomes: readonly JobOutcome[],
): { mapCount: number; localCount: number; responseSum: number; taskEnergy: number } {
  // Read by column: a large run ends millions of attempts, too many to make an object each.
  const tasks = engine.endedTasks();
  // engine.outcomes() lists every job in submission order, so a task's job index finds its outcome.
  if (outcomes.length !== engine.jobCount)
    throw new RangeError(
      `summarize needs every job's outcome (engine.outcomes()), got ${outcomes.length} of ${engine.jobCount}`,
    );
  let mapCount = 0;
  let localCount = 0;
  let responseSum = 0;
  let taskEnergy = 0;
  for (let k = 0; k < tasks.length; k++) {
    const row = tasks.row(k);
    const flags = tasks.flags(row);
    if ((flags & TASK_COMPLETED) === 0) continue;
    taskEnergy += engine.taskEnergyKWh(row);
    if ((flags & TASK_MAP) === 0) continue;
    mapCount++;
    if (flags & TASK_LOCAL) localCount++;
    responseSum += tasks.end(row) - (outcomes[tasks.jobIndex(row)] as JobOutcome).arrival;
  }
  return { mapCount, localCount, responseSum, taskEnergy };
}

/** Mean and sample standard deviation, ignoring nulls; null when nothing is left. */
export function meanSd(values: ReadonlyArray<number | null>): { mean: number; sd: number; n: number } | null {
  const xs = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (xs.length === 0) return null;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, sd, n: xs.length };
}
