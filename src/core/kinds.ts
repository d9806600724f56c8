/**
 * What a job's map tasks can run on (docs/placement.md, "Container kinds and the GPU label"): CPU code, GPU code, or
 * `adaptive` (ships both and may run on either). The API, the tags, the traces and the policies
 * all read this one list.
 */
export const JOB_TYPES = ['cpu', 'gpu', 'adaptive'] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** Whether `v` names a job type (an RM tag or a trace field read as text). */
export function isJobType(v: string): v is JobType {
  return (JOB_TYPES as readonly string[]).includes(v);
}

/**
 * The kind of a container. A `gpu` container holds a GPU plus CPU and memory (He, dissertation,
 * section 6.1.4); it counts as carrying the GPU label only on a node that has that label.
 */
export type ContainerKind = 'cpu' | 'gpu';

/** A map task waiting for a container, with where its input block is (placement and fitness read it). */
export interface PendingTask {
  readonly taskId: string;
  /** Nodes holding a replica of the task's input block; empty when unknown or not applicable. */
  readonly replicaNodes: readonly string[];
}
