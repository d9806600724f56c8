import { z } from 'zod';
import { OutboxActionInvalidError } from '../errors/outbox-action-invalid';
import { ValidationError, zodIssues, type ValidationIssue } from '../errors/validation';
import type { ActionRecord } from '../store/types';
import type { ReservationDefinition } from '../yarn/model';
import { parseSubmissionRequest, type SubmissionRequest } from '../yarn/submission';

/**
 * The outbox's actions, typed: what the plan writes (`ActionPayload`) and what the enforcer and
 * the planners read back (`OutboxAction`). The ledger keeps a payload as JSON under its kind;
 * each kind has one decoder here, which checks the row and gives the payload its type, so a
 * payload is decoded once, where it is read, and nothing downstream casts it. A row that does
 * not decode is an `OutboxActionInvalidError` naming the action's id, its kind and each field at
 * fault.
 */

export interface SubmitPayload {
  sidecarId: string;
  name: string;
  user: string;
  queue: string;
  priority: number;
  labelExpression: string | null;
  tags: string[];
  applicationType: string;
  /** The submitter's part of the submission context (its `yarnSubmission`, read and checked). */
  request?: SubmissionRequest;
  /**
   * Rows written before the request was typed hold the raw `yarnSubmission`; the decoder reads
   * (and checks) it into `request`.
   */
  yarnSubmission?: Record<string, unknown>;
  reservationId?: string;
}

export interface PriorityPayload {
  appId: string;
  priority: number;
}

export interface MovePayload {
  appId: string;
  queue: string;
}

export interface LifetimePayload {
  appId: string;
  expiryMs: number;
}

export interface ReservePayload {
  queue: string;
  definition: ReservationDefinition;
  reservationId?: string;
}

/** An action as the plan writes it. */
export type ActionPayload =
  | { kind: 'submit'; payload: SubmitPayload }
  | { kind: 'set-priority'; payload: PriorityPayload }
  | { kind: 'move-queue'; payload: MovePayload }
  | { kind: 'set-lifetime'; payload: LifetimePayload }
  | { kind: 'reserve'; payload: ReservePayload };

export type ActionKind = ActionPayload['kind'];

/** A submission as read back: its request always typed (an old row's `yarnSubmission` read into it). */
export interface DecodedSubmit extends Omit<SubmitPayload, 'request' | 'yarnSubmission'> {
  request: SubmissionRequest;
}

/** An action's payload as read back, by kind. */
export type DecodedPayload =
  { kind: 'submit'; payload: DecodedSubmit } | Exclude<ActionPayload, { kind: 'submit' }>;

/** An outbox row as read back: the ledger's record with its kind and payload typed. */
export type OutboxAction = Omit<ActionRecord, 'kind' | 'payload'> & DecodedPayload;

const stringMap = z.record(z.string(), z.string());

const localResource = z.object({
  resource: z.string(),
  type: z.enum(['FILE', 'ARCHIVE', 'PATTERN']),
  visibility: z.enum(['PUBLIC', 'PRIVATE', 'APPLICATION']),
  size: z.number(),
  timestamp: z.number(),
  pattern: z.string().optional(),
});

/** The typed request as the plan wrote it (SubmissionRequest, JSON round trip). */
const submissionRequest: z.ZodType<SubmissionRequest> = z.object({
  am: z.object({
    command: z.string().min(1, 'must not be empty'),
    localResources: z.record(z.string(), localResource),
    environment: stringMap,
    serviceData: stringMap,
    credentials: z.object({ tokens: stringMap, secrets: stringMap }).optional(),
    applicationAcls: stringMap,
  }),
  amResource: z.object({ memoryMB: z.number(), vcores: z.number() }).optional(),
  amNodeLabelExpression: z.string().optional(),
  applicationType: z.string().optional(),
  maxAppAttempts: z.number().optional(),
  attemptFailuresValidityIntervalMs: z.number().optional(),
  keepContainersAcrossApplicationAttempts: z.boolean().optional(),
  unmanagedAM: z.boolean().optional(),
  cancelTokensWhenComplete: z.boolean().optional(),
  logAggregation: z
    .object({
      logIncludePattern: z.string().optional(),
      logExcludePattern: z.string().optional(),
      rolledLogIncludePattern: z.string().optional(),
      rolledLogExcludePattern: z.string().optional(),
      policyClassName: z.string().optional(),
      policyParameters: z.string().optional(),
    })
    .optional(),
});

const submitPayload = z.object({
  sidecarId: z.string(),
  name: z.string(),
  user: z.string(),
  queue: z.string(),
  priority: z.number().int(),
  labelExpression: z.string().nullable(),
  tags: z.array(z.string()),
  applicationType: z.string(),
  request: submissionRequest.optional(),
  yarnSubmission: z.record(z.string(), z.unknown()).optional(),
  reservationId: z.string().optional(),
});

const appId = z.string().min(1, 'must not be empty');

const priorityPayload: z.ZodType<PriorityPayload> = z.object({ appId, priority: z.number().int() });
const movePayload: z.ZodType<MovePayload> = z.object({
  appId,
  queue: z.string().min(1, 'must not be empty'),
});
const lifetimePayload: z.ZodType<LifetimePayload> = z.object({ appId, expiryMs: z.number() });

const resource = z.object({
  memoryMB: z.number(),
  vcores: z.number(),
  extra: z.record(z.string(), z.number()),
});

const reservePayload: z.ZodType<ReservePayload> = z.object({
  queue: z.string().min(1, 'must not be empty'),
  definition: z.object({
    arrival: z.number(),
    deadline: z.number(),
    name: z.string(),
    priority: z.number().optional(),
    recurrenceExpression: z.string().optional(),
    interpreter: z.number().int(),
    requests: z.array(
      z.object({
        capability: resource,
        numContainers: z.number().int(),
        minConcurrency: z.number().int(),
        durationMs: z.number(),
      }),
    ),
  }),
  reservationId: z.string().optional(),
});

/** The payload of one kind read with its schema; the issues name `payload.<field>`. */
function read<T>(schema: z.ZodType<T>, payload: unknown): T | ValidationIssue[] {
  const parsed = schema.safeParse(payload);
  return parsed.success ? parsed.data : zodIssues(parsed.error, { noun: 'field', prefix: 'payload' });
}

/** A submission read back: an old row's raw `yarnSubmission` read (and checked) into `request`. */
function decodeSubmit(payload: unknown): DecodedSubmit | ValidationIssue[] {
  const p = read(submitPayload, payload);
  if (Array.isArray(p)) return p;
  const { request, yarnSubmission, ...rest } = p;
  if (request !== undefined) return { ...rest, request };
  if (yarnSubmission === undefined)
    return [{ path: 'payload.request', message: 'is missing (and no yarnSubmission to read it from)' }];
  try {
    return { ...rest, request: parseSubmissionRequest(yarnSubmission, 'payload.yarnSubmission') };
  } catch (err) {
    if (err instanceof ValidationError) return [...err.issues];
    throw err;
  }
}

/** The action kinds, each with its decoder below. */
const KINDS: readonly ActionKind[] = ['submit', 'set-priority', 'move-queue', 'set-lifetime', 'reserve'];

function isKind(kind: string): kind is ActionKind {
  return KINDS.some((k) => k === kind);
}

/** An outbox row typed by its kind's decoder; OutboxActionInvalidError when it does not decode. */
export function decodeAction(record: ActionRecord): OutboxAction {
  const { kind, payload, ...rest } = record;
  if (!isKind(kind))
    throw new OutboxActionInvalidError(record.id, kind, [
      { path: 'kind', message: `is not an action kind (${KINDS.join(', ')})` },
    ]);
  const ok = <T>(decoded: T | ValidationIssue[]): T => {
    if (Array.isArray(decoded)) throw new OutboxActionInvalidError(record.id, kind, decoded);
    return decoded;
  };
  switch (kind) {
    case 'submit':
      return { ...rest, kind, payload: ok(decodeSubmit(payload)) };
    case 'set-priority':
      return { ...rest, kind, payload: ok(read(priorityPayload, payload)) };
    case 'move-queue':
      return { ...rest, kind, payload: ok(read(movePayload, payload)) };
    case 'set-lifetime':
      return { ...rest, kind, payload: ok(read(lifetimePayload, payload)) };
    case 'reserve':
      return { ...rest, kind, payload: ok(read(reservePayload, payload)) };
  }
}

/** Rows read back: the ones that decode, in order, and the error of each that does not. */
export function decodeActions(records: readonly ActionRecord[]): {
  actions: OutboxAction[];
  invalid: Array<{ record: ActionRecord; error: OutboxActionInvalidError }>;
} {
  const actions: OutboxAction[] = [];
  const invalid: Array<{ record: ActionRecord; error: OutboxActionInvalidError }> = [];
  for (const record of records) {
    try {
      actions.push(decodeAction(record));
    } catch (err) {
      if (!(err instanceof OutboxActionInvalidError)) throw err;
      invalid.push({ record, error: err });
    }
  }
  return { actions, invalid };
}

/** The app an action writes to (set-priority, move-queue, set-lifetime), if it names one. */
export function appIdOf(action: OutboxAction): string | undefined {
  switch (action.kind) {
    case 'set-priority':
    case 'move-queue':
    case 'set-lifetime':
      return action.payload.appId;
    default:
      return undefined;
  }
}

const reservedResult = z.object({ reservationId: z.string() });

/** The reservation id a done `reserve` action's result holds, if it holds one. */
export function reservationIdOf(result: unknown): string | undefined {
  const parsed = reservedResult.safeParse(result);
  return parsed.success ? parsed.data.reservationId : undefined;
}

const refusalResult = z.object({ refusal: z.object({ status: z.number().optional() }) });

/** The HTTP status of an RM refusal recorded in a failed action's result, if there is one. */
export function refusalStatusOf(result: unknown): number | undefined {
  const parsed = refusalResult.safeParse(result);
  return parsed.success ? parsed.data.refusal.status : undefined;
}
