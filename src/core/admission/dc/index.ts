import { ValidationError, type ValidationIssue } from '../../../errors/validation';
import { absoluteDeadline, validateJob, type DeadlineJob } from '../../job';
import { validateSlotModel, type SlotModel } from '../../slots/model';
import { DEADLINE_HORIZON_SECONDS, searchEarliestDeadline } from '../common/earliest';
import { dcCosts, type DcOptions } from './costs';
import type { AdmissionPolicy, AdmissionResult, AdmitOptions, RejectReason } from '../common/types';
import { admissionEntry, fromArgs } from '../../policy-entry';

/**
 * The Deadline Constraint scheduler's schedulability test (Kc and Anyanwu, DC; as described in He et al., RTMR,
 * section III, and restated in docs/admission.md, "DC (baseline)"), a baseline. With filter ratio f, unit costs c_m, c_r, unit transfer
 * cost c_d, map start s_m = A and all R reduces running at once:
 *   S_r^max = A + D - f*delta*c_r/R - f*delta*c_d
 *   n_m^min = ceil(delta*c_m / (S_r^max - s_m))
 * accept only if n_m^min map slots are free at A and R reduce slots are free at the instant
 * S_r^max. A map-only job (R = 0) has S_r^max = A + D and needs no reduce slot. Its two flaws (He et al., RTMR, III) are kept on purpose: it needs the slots free at one
 * instant (rejecting jobs that later free slots would serve), and it checks the reduce slots only
 * at S_r^max, not over [S_r^max, A + D] (accepting pairs that then miss).
 */
export type { DcOptions } from './costs';

export const DC_DEFAULTS = Object.freeze({
  filterRatio: 1,
  mapCost: 0.25,
  reduceCost: 0.25,
  transferCost: 0,
});

export function validateDcOptions(
  input: { slotModel: unknown } & Partial<Omit<DcOptions, 'slotModel'>>,
): DcOptions {
  const issues: ValidationIssue[] = [];
  let slotModel: SlotModel | undefined;
  try {
    slotModel = validateSlotModel(input.slotModel, 'slotModel', { gpuMapLane: false });
  } catch (e) {
    if (e instanceof ValidationError) issues.push(...e.issues);
    else throw e;
  }
  const o = {
    ...DC_DEFAULTS,
    ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
  } as Record<string, unknown>;
  for (const f of ['filterRatio', 'mapCost', 'reduceCost', 'transferCost']) {
    const v = o[f];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      issues.push({ path: f, message: 'must be a finite number >= 0' });
  }
  if (issues.length > 0 || slotModel === undefined) throw new ValidationError(issues);
  return Object.freeze({ ...(o as unknown as DcOptions), slotModel });
}

/** One accepted job and the slots DC planned for it. */
export interface DcEntry {
  readonly job: DeadlineJob;
  readonly mapSlots: number;
  /** Map slots held over [A, reduceStart); R reduce slots over [reduceStart, A + D). */
  readonly reduceStart: number;
}

export interface DcState {
  readonly kind: 'dc';
  readonly entries: readonly DcEntry[];
}

export interface DcPlan {
  readonly reduceStart: number;
  readonly mapSlotsNeeded: number;
}

export function dcPlan(o: DcOptions, job: DeadlineJob): DcPlan {
  const c = dcCosts(o, job);
  const fd = c.filterRatio * job.inputSize;
  // A map-only job (R = 0) has no reduce stage and no shuffle: its maps may use the whole
  // window, S_r^max = A + D, and it holds no reduce slot.
  const reduceStart =
    job.reduces === 0
      ? absoluteDeadline(job)
      : absoluteDeadline(job) - (fd * c.reduceCost) / job.reduces - fd * c.transferCost;
  const mapSlotsNeeded = Math.ceil((job.inputSize * c.mapCost) / (reduceStart - job.arrival));
  return { reduceStart, mapSlotsNeeded };
}

/** What the schedulability test answers: the plan of an accepted job, or why it is refused. */
type DcTest = { ok: true; plan: DcPlan } | { ok: false; reason: RejectReason };

/** Slots of each kind DC has promised at instant t (on unified both come from one pool). */
function slotsInUse(m: SlotModel, s: DcState, t: number): { maps: number; reduces: number } {
  let maps = 0;
  let reduces = 0;
  for (const e of s.entries) {
    if (e.job.arrival <= t && t < e.reduceStart) maps += e.mapSlots;
    if (e.reduceStart <= t && t < absoluteDeadline(e.job)) reduces += e.job.reduces;
  }
  return m.name === 'mr1' ? { maps, reduces } : { maps: maps + reduces, reduces: maps + reduces };
}

/** A refusal's reason, with the slots needed and free at the instant tested where it says so. */
function refused(
  job: DeadlineJob,
  kind: RejectReason['kind'],
  slotsNeeded?: number,
  slotsFree?: number,
): DcTest {
  return {
    ok: false,
    reason: {
      jobId: job.id,
      deadline: absoluteDeadline(job),
      estimatedFinish: null,
      lateBySeconds: null,
      kind,
      ...(slotsNeeded === undefined ? {} : { slotsNeeded, slotsFree }),
    },
  };
}

/**
 * The schedulability test: R within the reduce capacity, time left for the maps before
 * S_r^max, n_m^min map slots free at A and R reduce slots free at S_r^max.
 */
function schedulable(o: DcOptions, s: DcState, job: DeadlineJob): DcTest {
  const m = o.slotModel;
  const mapTotal = m.name === 'mr1' ? m.mapSlots : m.containers;
  const reduceTotal = m.name === 'mr1' ? m.reduceSlots : m.containers;
  if (job.reduces > reduceTotal) return refused(job, 'dc-too-many-reduces', job.reduces, reduceTotal);
  const plan = dcPlan(o, job);
  if (!(plan.reduceStart > job.arrival)) return refused(job, 'dc-no-time-for-maps');
  const mapsFree = mapTotal - slotsInUse(m, s, job.arrival).maps;
  if (plan.mapSlotsNeeded > mapsFree)
    return refused(job, 'dc-map-slots-unavailable', plan.mapSlotsNeeded, mapsFree);
  const reducesFree = reduceTotal - slotsInUse(m, s, plan.reduceStart).reduces;
  if (job.reduces > reducesFree) return refused(job, 'dc-reduce-slots-unavailable', job.reduces, reducesFree);
  return { ok: true, plan };
}

/** The accepted job in the queue by deadline (behind equal ones), planned to end at its deadline. */
function accepted(state: DcState, job: DeadlineJob, plan: DcPlan): AdmissionResult<DcState> {
  const entry: DcEntry = { job, mapSlots: plan.mapSlotsNeeded, reduceStart: plan.reduceStart };
  const d = absoluteDeadline(job);
  let position = state.entries.findIndex((e) => absoluteDeadline(e.job) > d);
  if (position < 0) position = state.entries.length;
  const entries = [...state.entries.slice(0, position), entry, ...state.entries.slice(position)];
  // DC plans the job to end exactly at its deadline.
  return { admitted: true, jobId: job.id, estimatedFinish: d, position, state: { kind: 'dc', entries } };
}

/** A refusal, with the earliest deadline the same test admits (none for too many reduces). */
function refusal(
  o: DcOptions,
  state: DcState,
  job: DeadlineJob,
  now: number,
  reason: RejectReason,
  opts: AdmitOptions,
): AdmissionResult<DcState> {
  const searched = opts.searchEarliest !== false && reason.kind !== 'dc-too-many-reduces';
  const horizon = Math.floor(Math.max(0, now - job.arrival) + (opts.horizon ?? DEADLINE_HORIZON_SECONDS));
  const earliest = searched
    ? searchEarliestDeadline((D) => schedulable(o, state, { ...job, deadline: D }).ok, {
        hint: job.deadline,
        horizon,
      })
    : null;
  return {
    admitted: false,
    jobId: job.id,
    reason,
    earliestAdmissibleDeadline: earliest,
    ...(searched && earliest === null ? { searchedUpTo: horizon } : {}),
    state,
  };
}

export function dc(
  input: { slotModel: unknown } & Partial<Omit<DcOptions, 'slotModel'>>,
): AdmissionPolicy<DcState> & { readonly options: DcOptions } {
  const o = validateDcOptions(input);
  const policy: AdmissionPolicy<DcState> & { readonly options: DcOptions } = {
    name: 'dc',
    options: o,
    initialState: () => ({ kind: 'dc', entries: [] }),
    admit(state, jobInput, now, opts = {}): AdmissionResult<DcState> {
      const job = validateJob(jobInput);
      if (!Number.isFinite(now))
        throw new ValidationError([{ path: 'now', message: 'must be a finite time' }]);
      const r = schedulable(o, state, job);
      return r.ok ? accepted(state, job, r.plan) : refusal(o, state, job, now, r.reason, opts);
    },
    markStarted: (s) => s,
    complete: (s, id) => ({ kind: 'dc', entries: s.entries.filter((e) => e.job.id !== id) }),
    leave: (s, id) => ({ kind: 'dc', entries: s.entries.filter((e) => e.job.id !== id) }),
    queue: (s) => s.entries.map((e) => e.job),
  };
  return Object.freeze(policy);
}

export { dcNextTask, dcReduceSlots, type DcDispatchJob } from './dispatch';
export { dcCosts } from './costs';

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'dc';
export const entry = admissionEntry(
  'Deadline Constraint scheduler, a baseline (Kc and Anyanwu, DC)',
  fromArgs(dc),
  {
    dispatch: 'minimum-tasks',
    args: 'unit-costs',
    estimateModel: 'paper',
    earliestDeadline: true,
    reducesAtOnce: true,
  },
);
