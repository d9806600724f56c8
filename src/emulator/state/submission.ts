import { remoteRejection } from '../../errors/emulated-rm-rejection';
import type { Engine } from '../../sim/engine';
import type { JobType, TraceJob } from '../../sim/model';
import { queueLeaf } from '../../yarn/ids';
import type { SimTime } from '../clock';
import type { DefaultJobSize, EmulatorConfig, QueueConfig } from '../config';
import type { SubmissionContext } from '../submission-context';
import { checkApplicationTags, parseDeadlineTag, positiveInt } from './checks';
import { AM_ATTEMPT_SECONDS, type AppRecord, type InputFile, type Submission } from './types';

/**
 * POST /apps: from a submission context to an app record and, for an app that runs, the
 * simulated MapReduce job its tags describe.
 */

/** The files an app reads, as InputFiles.resolve finds them. */
type ResolvedInput = { blocks: InputFile['blocks']; bytes: number } | undefined;

/** What the submission needs of the RM around it. */
export interface SubmissionHost {
  readonly config: EmulatorConfig;
  readonly engine: Engine;
  readonly time: SimTime;
  /** Apps by id; the new one is added. */
  readonly apps: Map<string, AppRecord>;
  hasReservation(id: string): boolean;
  queue(name: string): QueueConfig | undefined;
  labels(): string[];
  maySubmit(queue: QueueConfig, user: string): boolean;
  resolveInput(appId: string, paths: readonly string[]): ResolvedInput;
}

/** The simulated job an app's tags describe, and what the tags got wrong. */
interface JobTags {
  tags: string[];
  maps: number;
  reduces: number;
  inputBytes: number;
  input: ResolvedInput;
  jobType: JobType;
  deadlineEpochMs: number | null;
  diagnostics: string[];
}

/**
 * POST /apps (INDEX.md 9.4), as a real RM 3.4.3 answered it. Refusals the RM makes at once
 * are thrown (400 BadRequestException, the app not created): an id that does not parse, too
 * many or too long tags, a label the queue may not use or the cluster does not have, a queue
 * the user may not submit to (`aclEnabled`). An id already submitted is accepted again and
 * changes nothing. The app is then created:
 * - an unknown queue: FAILED at once (the scheduler rejects it after the 202);
 * - an unmanaged AM: ACCEPTED until killed (its AM would register over RPC);
 * - no AM command (missing or blank): the AM exits at once, each attempt fails, and the app
 *   is FAILED after min(max-app-attempts, amMaxAttempts) attempts;
 * - otherwise the simulated MapReduce job its tags describe runs.
 * Priority: absent is -1, as the web services pass it; above the cap, the cap.
 */
export function submitApp(host: SubmissionHost, s: Submission): AppRecord {
  const c = s.context;
  const id = c.applicationId;
  if (id === undefined || !/^application_\d+_\d+$/.test(id)) {
    throw remoteRejection(
      400,
      'BadRequestException',
      `java.lang.Exception: Could not parse application id ${id ?? ''}`,
    );
  }
  // ClientRMService: "This is an earlier submitted application": accepted, nothing changes.
  const earlier = host.apps.get(id);
  if (earlier) return earlier;
  if (c.reservationId !== undefined && c.reservationId !== '' && !host.hasReservation(c.reservationId)) {
    throw remoteRejection(
      400,
      'BadRequestException',
      `java.lang.Exception: Reservation ${c.reservationId} not found`,
    );
  }
  const user = s.user && s.user !== '' ? s.user : host.config.defaultUser;
  const job = readJobTags(host, id, c.applicationTags);
  const queueName = queueLeaf(c.queue && c.queue !== '' ? c.queue : 'default');
  const queue = host.queue(queueName);
  const labels = checkedLabels(host, c, queue, job.jobType);
  if (queue && !host.maySubmit(queue, user)) {
    throw remoteRejection(
      400,
      'BadRequestException',
      `java.lang.Exception: org.apache.hadoop.security.AccessControlException: User ${user} does not have permission to submit ${id} to queue ${queue.name}`,
    );
  }
  const rec = newRecord(host, id, c, user, queue, queueName, labels, job);
  host.apps.set(id, rec);
  start(host, rec, queue, job);
  return rec;
}

/**
 * The job's size, type and deadline from its tags. YARN stores tags lower-cased and as a set
 * (ApplicationSubmissionContextPBImpl.setApplicationTags), reported in sorted order (measured
 * on 3.4.3). The RM checks the set it was given, before lower-casing: `A` and `a` count as two
 * there, one once stored. A tag that does not parse falls back to the default, with a diagnostic.
 */
function readJobTags(host: SubmissionHost, id: string, given: readonly string[]): JobTags {
  const dflt: DefaultJobSize = host.config.defaultJob;
  const diagnostics: string[] = [];
  checkApplicationTags([...new Set(given.filter((t) => t.trim() !== ''))]);
  const tags = [...new Set(given.map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))].sort();
  const tag = (key: string): string | undefined =>
    tags.find((t) => t.startsWith(`${key}:`))?.slice(key.length + 1);
  const sized = (key: string, fallback: number, min: number): number => {
    const raw = tag(key);
    if (raw === undefined) return fallback;
    const n = key === 'reduces' && raw === '0' ? 0 : positiveInt(raw);
    if (n === undefined || n < min) {
      diagnostics.push(`emulator: tag ${key}:${raw} is not a whole number >= ${min}; ${fallback} used`);
      return fallback;
    }
    return n;
  };
  let maps = sized('maps', dflt.maps, 1);
  const reduces = sized('reduces', dflt.reduces, 0);
  let inputBytes = sized(
    'input-bytes',
    tag('maps') !== undefined ? Math.round((dflt.inputBytes / dflt.maps) * maps) : dflt.inputBytes,
    1,
  );
  // `input:PATH` tags (one per path, as the sidecar writes them): the files' blocks become
  // the map inputs, one map per block unless `maps:` says otherwise, and their bytes the input.
  const input = host.resolveInput(
    id,
    tags.filter((t) => t.startsWith('input:')).map((t) => t.slice('input:'.length)),
  );
  if (input && tag('maps') === undefined) maps = input.blocks.length;
  if (input) inputBytes = input.bytes;
  const jobType = readType(tag('type'), diagnostics);
  const deadlineEpochMs = readDeadline(tag('deadline'), diagnostics);
  return { tags, maps, reduces, inputBytes, input, jobType, deadlineEpochMs, diagnostics };
}

function readType(raw: string | undefined, diagnostics: string[]): JobType {
  if (raw === 'gpu' || raw === 'adaptive' || raw === 'cpu') return raw;
  if (raw !== undefined) diagnostics.push(`emulator: tag type:${raw} is not cpu, gpu or adaptive; cpu used`);
  return 'cpu';
}

function readDeadline(raw: string | undefined, diagnostics: string[]): number | null {
  if (raw === undefined) return null;
  const d = parseDeadlineTag(raw);
  if (d !== undefined) return d;
  diagnostics.push(`emulator: tag deadline:${raw} is not an ISO-8601 instant; ignored`);
  return null;
}

/**
 * The partition the app's containers run in and the AM's label expression, refused as the RM
 * refuses them: the queue's permission first, then the cluster's labels (measured on 3.4.3: a
 * label unknown to both is refused for the queue when the queue restricts its labels).
 */
function checkedLabels(
  host: SubmissionHost,
  c: SubmissionContext,
  queue: QueueConfig | undefined,
  jobType: JobType,
): { partition: string; amLabel: string } {
  const gpuLabel = host.config.cluster.gpuLabel;
  const given = c.appNodeLabelExpression?.trim();
  let partition = given !== undefined && given !== '' ? given : (queue?.defaultNodeLabelExpression ?? '');
  // A GPU job that names no partition asks for the GPU one: it has no other place to run.
  if (partition === '' && (given === undefined || given === '') && jobType === 'gpu') partition = gpuLabel;
  const amGiven = c.amContainerNodeLabelExpression?.trim();
  const amLabel = amGiven !== undefined && amGiven !== '' ? amGiven : partition;
  for (const label of new Set([partition, amLabel])) {
    if (label === '') continue;
    if (queue && !queue.accessibleNodeLabels.includes(label)) {
      // SchedulerUtils' message when a queue cannot reach the label.
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Invalid resource request, queue=${queue.name} doesn't have permission to access all labels in resource request. labelExpression of resource request=${label}. Queue labels=${queue.accessibleNodeLabels.join(',')}`,
      );
    }
    if (!host.labels().includes(label)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Invalid label resource request, cluster do not contain , label= ${label}`,
      );
    }
  }
  if (jobType === 'gpu' && partition !== gpuLabel) {
    throw remoteRejection(
      400,
      'BadRequestException',
      `java.lang.Exception: a type:gpu application needs the ${gpuLabel} partition, not ${partition === '' ? 'the default partition' : partition}`,
    );
  }
  return { partition, amLabel };
}

function newRecord(
  host: SubmissionHost,
  id: string,
  c: SubmissionContext,
  user: string,
  queue: QueueConfig | undefined,
  queueName: string,
  labels: { partition: string; amLabel: string },
  job: JobTags,
): AppRecord {
  const command = c.amContainerSpec.command;
  const amExits = !c.unmanagedAM && (command === undefined || command.trim() === '');
  const globalLimit = host.config.amMaxAttempts;
  const local = c.maxAppAttempts !== undefined && c.maxAppAttempts > 0 ? c.maxAppAttempts : undefined;
  return {
    id,
    seq: Number(id.slice(id.lastIndexOf('_') + 1)),
    name: c.applicationName ?? '',
    user,
    queue: queue ? queueName : (c.queue ?? queueName),
    queueKnown: queue !== undefined,
    priority: c.priority === undefined ? -1 : Math.min(c.priority, host.config.maxApplicationPriority),
    applicationType: c.applicationType ?? '',
    tags: job.tags,
    appNodeLabelExpression: c.appNodeLabelExpression ?? '',
    amNodeLabelExpression: labels.amLabel,
    partition: labels.partition,
    context: c,
    unmanaged: c.unmanagedAM,
    amFailure: amExits
      ? {
          attempts: Math.min(local ?? globalLimit, globalLimit),
          globalLimit,
          localLimit: local !== undefined && local < globalLimit ? local : undefined,
        }
      : null,
    submittedSeconds: host.engine.now,
    jobType: job.jobType,
    maps: job.maps,
    reduces: job.reduces,
    inputBytes: job.inputBytes,
    deadlineEpochMs: job.deadlineEpochMs,
    lifetimeExpiryMs: null,
    killedSeconds: null,
    failedSeconds: null,
    diagnostics: job.diagnostics,
    reservationId: c.reservationId && c.reservationId !== '' ? c.reservationId : null,
    amResource: c.resource ?? { memoryMB: 1024, vcores: 1 },
    inEngine: false,
  };
}

/** What happens to a new app: it fails (unknown queue, AM exits), waits (unmanaged AM), or runs its job. */
function start(host: SubmissionHost, rec: AppRecord, queue: QueueConfig | undefined, job: JobTags): void {
  const now = rec.submittedSeconds;
  if (!queue) {
    rec.failedSeconds = now;
    rec.diagnostics.push(
      `Application ${rec.id} submitted by user ${rec.user} to unknown queue: ${rec.queue}`,
    );
    return;
  }
  if (rec.amFailure) {
    rec.failedSeconds = now + rec.amFailure.attempts * AM_ATTEMPT_SECONDS;
    return;
  }
  if (rec.unmanaged) return;
  host.engine.submit(traceJobOf(host.time, rec, queue.name, job));
  if (rec.priority !== 0) host.engine.setPriority(rec.id, rec.priority);
  rec.inEngine = true;
}

function traceJobOf(time: SimTime, rec: AppRecord, queueName: string, job: JobTags): TraceJob {
  const { maps, input } = job;
  const now = rec.submittedSeconds;
  return {
    id: rec.id,
    // SUBMITTED until the scheduler takes it at its next instant; ACCEPTED from then on.
    arrival: now + 1e-3,
    deadline: job.deadlineEpochMs === null ? null : Math.max(0, time.fromEpochMs(job.deadlineEpochMs) - now),
    maps,
    reduces: job.reduces,
    inputBytes: job.inputBytes,
    // Map i reads block i (the blocks over again when maps outnumber them); a split is its
    // block's bytes when there is one map per block.
    splits: input && maps === input.blocks.length ? input.blocks.map((b) => b.bytes) : null,
    type: job.jobType,
    user: rec.user,
    queue: queueName,
    blocks: input ? Array.from({ length: maps }, (_, i) => input.blocks[i % input.blocks.length]!.id) : null,
  };
}
