import { WORKLOAD_CLASS_PATTERN } from '../core/estimates';
import { isJobType, type JobType } from '../core/kinds';
import { JOB_LIMITS } from '../core/limits';

/**
 * Application tags the sidecar writes and reads. YARN lower-cases tags, so every value is
 * read case-insensitively: `deadline:2026-11-22T09:00:00.000Z` comes back as
 * `deadline:2026-11-22t09:00:00.000z`.
 */
export interface DeadlineTags {
  sidecarId?: string;
  deadlineMs?: number;
  maps?: number;
  reduces?: number;
  inputBytes?: number;
  jobType?: JobType;
  /** `class:NAME`: the workload class whose estimates judge the app (default: its type). */
  workloadClass?: string;
  /** `input:PATH`, one per input path (lower-cased on the way back, as YARN stores tags). */
  inputPaths?: string[];
}

/** YARN refuses a tag longer than this (ApplicationSubmissionContext, APPLICATION_MAX_TAG_LENGTH). */
export const MAX_TAG_LENGTH = 100;

/** YARN refuses an app with more tags than this (YarnConfiguration.APPLICATION_MAX_TAGS). */
export const MAX_TAGS = 10;

/** Tags the sidecar itself writes on every app it submits: six, and `class:` when one is named. */
export function ownTagCount(hasWorkloadClass: boolean): number {
  return 6 + (hasWorkloadClass ? 1 : 0);
}

/** How many tags of the user's own a submission may carry beside the sidecar's. */
export function userTagBudget(hasWorkloadClass: boolean): number {
  return MAX_TAGS - ownTagCount(hasWorkloadClass);
}

/**
 * One `input:PATH` tag per input path, so the RM side can tell what the app reads (the
 * emulator runs its maps on those files' blocks). A path whose tag would be longer than YARN
 * allows is left out rather than getting the submission refused.
 */
export function inputTags(paths: readonly string[]): string[] {
  return [...new Set(paths.map((p) => `input:${p}`))].filter((t) => t.length <= MAX_TAG_LENGTH);
}

export function encodeTags(
  t: Required<
    Pick<DeadlineTags, 'sidecarId' | 'deadlineMs' | 'maps' | 'reduces' | 'inputBytes' | 'jobType'>
  > &
    Pick<DeadlineTags, 'workloadClass' | 'inputPaths'>,
): string[] {
  return [
    `sidecar-id:${t.sidecarId}`,
    `deadline:${new Date(t.deadlineMs).toISOString()}`,
    `maps:${t.maps}`,
    `reduces:${t.reduces}`,
    `input-bytes:${Math.round(t.inputBytes)}`,
    `type:${t.jobType}`,
    ...(t.workloadClass === undefined ? [] : [`class:${t.workloadClass}`]),
    ...inputTags(t.inputPaths ?? []),
  ];
}

/**
 * The tags an app is submitted with: the sidecar's own (`encodeTags` without the inputs), the
 * user's, then `input:` tags while YARN's limit of 10 leaves room. The input tags are hints (the
 * sidecar decides locality from WebHDFS, not from them), so the ones beyond the limit are left
 * out rather than getting the submission refused; the user's are bounded at validation.
 */
export function submissionTags(own: Parameters<typeof encodeTags>[0], userTags: readonly string[]): string[] {
  // One tag per lower-cased value: YARN stores them lower-cased, but counts the set it is sent.
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (t: string): void => {
    if (out.length >= MAX_TAGS || seen.has(t.toLowerCase())) return;
    seen.add(t.toLowerCase());
    out.push(t);
  };
  for (const t of [...encodeTags({ ...own, inputPaths: [] }), ...userTags]) add(t);
  for (const t of inputTags(own.inputPaths ?? [])) add(t);
  return out;
}

/**
 * The keys of the tags the sidecar writes and reads (`key:value`): a user's own tags may not
 * use them, or the user could name another job as theirs (`sidecar-id:`) or restate the
 * deadline the sidecar decided on.
 */
export const RESERVED_TAG_KEYS = [
  'sidecar-id',
  'deadline',
  'maps',
  'reduces',
  'input-bytes',
  'type',
  'class',
  'input',
] as const;

/** A tag's key as decodeTags reads it: before the first `:`, trimmed and lower-cased. */
function splitTag(raw: string): { key: string; value: string } | undefined {
  const tag = raw.trim();
  const at = tag.indexOf(':');
  if (at < 0) return undefined;
  return { key: tag.slice(0, at).trim().toLowerCase(), value: tag.slice(at + 1).trim() };
}

/** The reserved key a tag uses (`Sidecar-ID:x` -> `sidecar-id`), or undefined for a free tag. */
export function reservedTagKey(tag: string): string | undefined {
  const key = splitTag(tag)?.key;
  return key !== undefined && (RESERVED_TAG_KEYS as readonly string[]).includes(key) ? key : undefined;
}

/** A whole number, held to `max`: an app tagged with more is judged at the most the API takes. */
function wholeNumber(v: string, max: number): number | undefined {
  return /^\d+$/.test(v) ? Math.min(Number(v), max) : undefined;
}

/** Keys an app carries once; two different values of one of them make it unreadable. */
const SINGLE_KEYS: ReadonlyArray<keyof DeadlineTags> = [
  'sidecarId',
  'deadlineMs',
  'maps',
  'reduces',
  'inputBytes',
  'jobType',
  'workloadClass',
];

/**
 * Reads the deadline tags of an app; unknown or malformed tags are ignored, and so is a key
 * given twice with different values (an app tagged `sidecar-id:a` and `sidecar-id:b` names no
 * job: which one it is cannot be told).
 */
export function decodeTags(tags: readonly string[]): DeadlineTags {
  const seen = new Map<keyof DeadlineTags, Set<unknown>>();
  const out = decodeEach(tags, (k, v) => {
    const values = seen.get(k) ?? new Set<unknown>();
    values.add(v);
    seen.set(k, values);
  });
  for (const k of SINGLE_KEYS) if ((seen.get(k)?.size ?? 0) > 1) delete out[k];
  return out;
}

function decodeEach(
  tags: readonly string[],
  saw: (key: keyof DeadlineTags, value: unknown) => void,
): DeadlineTags {
  const out: DeadlineTags = {};
  const set = <K extends keyof DeadlineTags>(k: K, v: DeadlineTags[K]): void => {
    if (v === undefined) return;
    out[k] = v;
    saw(k, v);
  };
  for (const raw of tags) {
    const split = splitTag(raw);
    if (!split) continue;
    const { key, value } = split;
    switch (key) {
      case 'sidecar-id':
        if (value) set('sidecarId', value.toLowerCase());
        break;
      case 'deadline': {
        const ms = Date.parse(value.toUpperCase());
        if (Number.isFinite(ms)) set('deadlineMs', ms);
        break;
      }
      case 'maps':
        set('maps', wholeNumber(value, JOB_LIMITS.maxMaps));
        break;
      case 'reduces':
        set('reduces', wholeNumber(value, JOB_LIMITS.maxReduces));
        break;
      case 'input-bytes':
        set('inputBytes', wholeNumber(value, JOB_LIMITS.maxInputBytes));
        break;
      case 'class': {
        // Lower-cased as YARN does; a name the API would refuse is ignored like any bad tag.
        const v = value.toLowerCase();
        if (WORKLOAD_CLASS_PATTERN.test(v)) set('workloadClass', v);
        break;
      }
      case 'input':
        if (value) (out.inputPaths ??= []).push(value);
        break;
      case 'type': {
        const v = value.toLowerCase();
        if (isJobType(v)) set('jobType', v);
        break;
      }
    }
  }
  return out;
}
