import {
  resolveDeadline,
  SUBMISSION_LIMITS,
  type Submission,
  type SubmissionWithDeadline,
} from '../model/deadline-submission';
import type { SidecarConfig } from '../config/schema';
import {
  partitionDop,
  uniformLocality,
  type HostPartitions,
  type PartitionLocality,
} from '../core/placement/common/locality';
import { sparkPlan, type SparkPlan } from '../core/spark';
import { inputSplits } from '../core/splits';
import { NotReadyError } from '../errors/api-errors';
import { ValidationError } from '../errors/validation';
import type { Logger } from '../log';
import type { Ledger } from '../store/types';
import { readInput, type InputRead, type InputReader } from './locality';
import type { ClusterObservation } from './observe';

/**
 * A submission made ready for a decision: its queue known, its deadline (given, or its queue's
 * default) and input size (given, or read from its input paths) resolved, and the data
 * locality of its input per candidate partition.
 */
export type ResolvedSubmission = SubmissionWithDeadline & JobShape;

/**
 * A submission's size as decided: its input bytes, its maps and reduces and, where known, each
 * map's split; a Spark app's executors as its maps (src/core/spark.ts).
 */
export interface JobShape {
  inputBytes: number;
  maps: number;
  reduces: number;
  splitBytes?: number[];
  /** Said in the answer when the maps were derived from the input paths' splits. */
  mapsFrom?: 'inputPaths';
  /** A Spark app's executors as planned (said in the answer, kept in the job's spec). */
  sparkPlan?: SparkPlan;
}

/** The container admission counts with (admission.containerMemoryMb / containerVcores). */
export interface ContainerShape {
  memoryMb: number;
  vcores: number;
}

/** Starts reading a submission's input paths (bounded; never rejects), unless there is nothing to read. */
export function startInputRead(
  deps: { ledger: Ledger; webHdfs?: InputReader | undefined; placement: SidecarConfig['placement'] },
  s: Submission,
  ctx: { submitter: string; idempotencyKey?: string },
): Promise<InputRead> | undefined {
  const paths = s.inputPaths ?? [];
  if (paths.length === 0) return undefined;
  // A retry is answered from the ledger: nothing to read.
  if (ctx.idempotencyKey !== undefined && deps.ledger.findIdempotent(ctx.submitter, ctx.idempotencyKey))
    return undefined;
  const reader = deps.webHdfs;
  if (!reader) {
    return Promise.resolve({
      files: null,
      blocks: null,
      unavailable: 'rm.webHdfsAddress is not configured',
      missing: [],
    });
  }
  const { placement } = deps;
  return readInput(reader, paths, {
    timeoutMs: placement.localityTimeoutMs,
    maxFiles: placement.localityMaxFiles,
    maxBlocks: placement.localityMaxBlocks,
  });
}

/**
 * A submission's input size: given, or the lengths of its input paths as read. Refused when an
 * input path is missing (the job would fail at once on YARN) or no size is given and none is
 * readable.
 */
export function inputBytesOf(submission: Submission, read: InputRead | undefined): number {
  if (read && read.missing.length > 0) {
    throw new ValidationError(
      read.missing.map((p) => ({
        path: 'inputPaths',
        message: `${p} does not exist (WebHDFS: FileNotFoundException)`,
      })),
    );
  }
  if (submission.inputBytes !== undefined) return submission.inputBytes;
  // A Spark app that names no input reads none the sidecar counts.
  if (submission.spark !== undefined && read === undefined) return 0;
  if (!read?.files) {
    throw new ValidationError([
      {
        path: 'inputBytes',
        message: `is required: the input paths' lengths could not be read (${read?.unavailable ?? 'no input paths'})`,
      },
    ]);
  }
  return read.files.reduce((a, f) => a + f.length, 0);
}

/**
 * A submission's maps: given, or one per split of its input files as Hadoop's FileInputFormat
 * makes them (core/splits.ts), with the job's split min and max sizes. Derived maps carry each
 * map's split (splitBytes) when the input size is the files' own (not a size given beside them).
 * Refused, naming the field, when the files could not be listed, a file has no block size, the
 * input holds no file, or the splits are more than a job's maps may be.
 */
export function shapeOf(
  submission: Submission,
  inputBytes: number,
  read: InputRead | undefined,
  container: ContainerShape,
): JobShape {
  if (submission.spark !== undefined) {
    const plan = sparkPlan(submission.spark, container);
    return { inputBytes, maps: plan.maps, reduces: plan.reduces, sparkPlan: plan };
  }
  // Checked by the schema: every submission but a Spark app gives its reduces.
  const reduces = submission.reduces ?? 0;
  if (submission.maps !== undefined) {
    return {
      inputBytes,
      maps: submission.maps,
      reduces,
      ...(submission.splitBytes === undefined ? {} : { splitBytes: submission.splitBytes }),
    };
  }
  if (!read?.files) {
    throw new ValidationError([
      {
        path: 'maps',
        message: `is required: the input paths' splits could not be read (${read?.unavailable ?? 'no input paths'})`,
      },
    ]);
  }
  const maxMaps = SUBMISSION_LIMITS.maxMaps;
  const r = inputSplits(
    read.files,
    { minBytes: submission.splitMinBytes, maxBytes: submission.splitMaxBytes },
    maxMaps,
  );
  if (!r.ok && 'problems' in r) {
    throw new ValidationError(
      r.problems.map((p) => ({ path: 'inputPaths', message: `${p.path} ${p.message} on WebHDFS` })),
    );
  }
  if (!r.ok) {
    throw new ValidationError([
      {
        path: 'maps',
        message: `the input paths make ${r.tooMany} splits, more than the ${maxMaps} maps a job may have; give maps, or a larger split size (splitMinBytes)`,
      },
    ]);
  }
  if (r.splits.length === 0) {
    throw new ValidationError([
      {
        path: 'inputPaths',
        message: `hold no input file (directories are read one level down, without hidden files and subdirectories): ${(submission.inputPaths ?? []).join(', ')}`,
      },
    ]);
  }
  const own = submission.inputBytes === undefined || submission.inputBytes === sumOf(r.splits);
  return {
    inputBytes,
    maps: r.splits.length,
    reduces,
    ...(own ? { splitBytes: r.splits } : {}),
    mapsFrom: 'inputPaths',
  };
}

function sumOf(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** The submission with its deadline resolved (given, or its queue's default) and its size. */
export function resolveSubmission(
  submission: Submission,
  queue: string,
  shape: JobShape,
  cluster: ClusterObservation,
  nowMs: number,
): ResolvedSubmission {
  return { ...resolveDeadline(submission, queue, cluster.queueDefault(queue), nowMs), ...shape };
}

/** Checked before the input is awaited: the cluster is read and the queue is one of its. */
export function checkQueue(
  submission: Submission,
  cluster: ClusterObservation,
  config: SidecarConfig,
): string {
  if (!cluster.capacity) {
    throw new NotReadyError('the sidecar has not read the cluster from the RM yet; retry shortly');
  }
  const queue = submission.queue ?? config.yarn.realtimeQueue;
  if (!cluster.knownQueue(queue)) {
    throw new ValidationError([
      {
        path: 'queue',
        message: `unknown queue '${queue}'; known: ${cluster.capacity.queues.map((q) => q.name).join(', ')}`,
      },
    ]);
  }
  return queue;
}

/**
 * dop per candidate partition from what was read, and how the answer describes it:
 * `known`, `uniform (...)` when there is nothing to go by, or `unavailable (<reason>)` when
 * WebHDFS failed, timed out or the input is past the bounds (logged once, at info).
 */
export function localityOf(
  log: Logger,
  id: string,
  labels: readonly string[],
  read: InputRead | undefined,
  hostPartitions: HostPartitions | undefined,
): { locality: PartitionLocality; note: string; input?: Record<string, number> } {
  if (read === undefined) return { locality: uniformLocality(labels), note: 'uniform (no input paths)' };
  const files = read.files ?? [];
  const summary = { files: files.length, bytes: files.reduce((a, f) => a + f.length, 0) };
  let reason: string | null = read.unavailable;
  if (reason === null && !hostPartitions) reason = 'no node list from the RM yet';
  if (reason !== null || read.blocks === null || !hostPartitions) {
    const why = reason ?? 'block locations not read';
    log.info('input locality unavailable; dop is uniform', { job: id, reason: why });
    return {
      locality: uniformLocality(labels),
      note: `unavailable (${why})`,
      ...(read.files ? { input: summary } : {}),
    };
  }
  const locality = partitionDop(read.blocks, hostPartitions, labels);
  return {
    locality,
    note: locality.known ? 'known' : 'uniform (no replica on a node the RM reports)',
    input: { ...summary, blocks: read.blocks.length, locatedBytes: locality.locatedBytes },
  };
}
