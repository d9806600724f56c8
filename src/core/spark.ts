/**
 * Spark applications in the core's job model (docs/estimates.md, "Spark jobs").
 *
 * A Spark app on YARN in cluster mode holds its driver in the AM's container for the app's whole
 * life, and its executors in containers of their own from when they are granted (shortly after
 * the driver starts) until the app ends: executors are not tasks that come and go, they are held
 * for the app's life. The job model (DeadlineJob) takes it as a map-only job whose maps are the
 * executors' containers, each lasting an executor's life (its "map" estimate), with the AM's
 * container counted as for MapReduce (Estimates.amContainers) and the driver's start before the
 * first executor as the set-up. An executor larger than the container admission counts with
 * (admission.containerMemoryMb / containerVcores) holds several: its cores and its memory with
 * Spark's overhead, each rounded up, the larger of the two.
 *
 * With dynamic allocation the executors come and go between `minExecutors` and `maxExecutors`:
 * the most it may hold, `maxExecutors`, is what is planned.
 *
 * Worked example: 2 executors of 2 cores and 2048 MB (2048 + max(384, 10 %) = 2432 MB), counted
 * in containers of 2048 MB / 1 vcore: each holds max(2 / 1, ceil(2432 / 2048)) = 2 containers,
 * so the job is 4 "maps" beside its AM.
 *
 * No I/O, clock or randomness.
 */

/** A Spark app's executors as its spark-submit asks for them. */
export interface SparkShape {
  /** spark.executor.instances (--num-executors); with dynamic allocation, its initial count. */
  readonly executors: number;
  /** spark.executor.cores (--executor-cores). */
  readonly executorCores: number;
  /** spark.executor.memory (--executor-memory), MB. */
  readonly executorMemoryMb: number;
  /** spark.executor.memoryOverhead, MB; absent: Spark's default, max(384, 10 % of the memory). */
  readonly executorMemoryOverheadMb?: number;
  /** spark.dynamicAllocation.maxExecutors, when dynamic allocation is on: what is planned. */
  readonly dynamicMax?: number;
}

/** Spark on YARN's defaults (spark.executor.instances 2, 1 core, 1 GB). */
export const SPARK_DEFAULTS = Object.freeze({ executors: 2, executorCores: 1, executorMemoryMb: 1024 });

/** Spark's default executor memory overhead: 10 % of the memory, at least 384 MB. */
export const SPARK_MIN_OVERHEAD_MB = 384;
export const SPARK_OVERHEAD_FACTOR = 0.1;

/** The executors a Spark app is planned with: its dynamic maximum, else its fixed count. */
export function plannedExecutors(s: SparkShape): number {
  return s.dynamicMax ?? s.executors;
}

/** An executor's container request, MB: its memory and its overhead. */
export function executorContainerMb(s: SparkShape): number {
  const overhead =
    s.executorMemoryOverheadMb ??
    Math.max(SPARK_MIN_OVERHEAD_MB, Math.ceil(SPARK_OVERHEAD_FACTOR * s.executorMemoryMb));
  return s.executorMemoryMb + overhead;
}

/** How many of admission's containers one executor holds: by cores and by memory, the larger. */
export function containersPerExecutor(
  s: SparkShape,
  container: { readonly memoryMb: number; readonly vcores: number },
): number {
  return Math.max(
    1,
    Math.ceil(s.executorCores / container.vcores),
    Math.ceil(executorContainerMb(s) / container.memoryMb),
  );
}

/** What a Spark app is in the job model: its executors' containers as maps, no reduce. */
export interface SparkPlan {
  /** Executors planned (plannedExecutors). */
  readonly executors: number;
  readonly containersPerExecutor: number;
  /** The job's maps: executors x containers per executor. */
  readonly maps: number;
  readonly reduces: 0;
  /** An executor's container request, MB. */
  readonly executorContainerMb: number;
  /** Where the executor count came from. */
  readonly executorsFrom: 'executors' | 'dynamicAllocation.maxExecutors';
}

export function sparkPlan(
  s: SparkShape,
  container: { readonly memoryMb: number; readonly vcores: number },
): SparkPlan {
  const executors = plannedExecutors(s);
  const each = containersPerExecutor(s, container);
  return Object.freeze({
    executors,
    containersPerExecutor: each,
    maps: executors * each,
    reduces: 0,
    executorContainerMb: executorContainerMb(s),
    executorsFrom: s.dynamicMax === undefined ? 'executors' : 'dynamicAllocation.maxExecutors',
  });
}

/**
 * What one finished run of a Spark app leaves in its profile (ProfileRun's fields), from the
 * RM's times of its app and what its driver showed while it ran: set-up = the app's start to its
 * first executor (else to its AM's launch), its "map" = an executor's life (first executor to the
 * last stage's end when one is given, else to the app's end), commit = the last stage's end to
 * the app's end (else 0; the sidecar reads the first executor only, src/loop/spark-watch.ts).
 * Times in ms, those outside the app's life ignored; undefined when its start and end are not
 * both known.
 */
export function sparkRun(t: {
  readonly startedMs: number;
  readonly finishedMs: number;
  readonly launchMs?: number;
  readonly firstExecutorMs?: number;
  readonly lastStageEndMs?: number;
}): { setupSeconds: number; executorSeconds: number; commitSeconds: number } | undefined {
  const { startedMs, finishedMs } = t;
  if (!(startedMs > 0 && finishedMs >= startedMs)) return undefined;
  const within = (v: number | undefined, lo: number): v is number =>
    v !== undefined && v >= lo && v <= finishedMs;
  const begin = within(t.firstExecutorMs, startedMs)
    ? t.firstExecutorMs
    : within(t.launchMs, startedMs)
      ? t.launchMs
      : startedMs;
  const end = within(t.lastStageEndMs, begin) ? t.lastStageEndMs : finishedMs;
  return {
    setupSeconds: (begin - startedMs) / 1000,
    executorSeconds: (end - begin) / 1000,
    commitSeconds: (finishedMs - end) / 1000,
  };
}
