import { ValidationError, type ValidationIssue, issueCollector } from '../../../errors/validation';
import { DEFAULT_ESTIMATES, jobOverheads, validateEstimates, type Estimates } from '../../estimates';
import { absoluteDeadline, validateJob, type DeadlineJob } from '../../job';
import { satu } from '../../slots/literal';
import type { Step } from '../../slots/fast';
import {
  reduceCapacity,
  takesAmSlot,
  usableMapSlots,
  validateSlotModel,
  type JobWork,
  type Placement,
  type SlotModel,
} from '../../slots/model';
import { DEADLINE_HORIZON_SECONDS, searchEarliestDeadline } from '../common/earliest';
import type {
  AdmissionPolicy,
  AdmissionResult,
  AdmitOptions,
  JobActuals,
  RejectReason,
} from '../common/types';
import {
  emptyRtmrState,
  FastWalker,
  fieldsOf,
  freshWork,
  insertionIndex,
  keepCheckpoints,
  DENSE_STRIDE,
  denseOf,
  indexOfJob,
  lastStartedOf,
  makeRtmrState,
  newDense,
  writeDense,
  newWalker,
  placedEntry,
  recordsOf,
  rtmrStateFromSnapshot,
  runLanesBefore,
  vectorsBefore,
  walkerBefore,
  walkSuccessors,
  type ClusterSnapshot,
  type Dense,
  type QueueOrder,
  type Records,
  type RtmrEntry,
  type RtmrState,
  type VectorEngine,
  type Walker,
} from './state';

/** What the user writes for an RTMR-family policy. */
export interface RtmrOptionsInput {
  readonly slotModel: unknown;
  readonly estimates?: unknown;
  readonly order?: QueueOrder;
  readonly feedback?: boolean;
  /** DeltaT of Alg. 5.5: feedback runs when |estimated - actual finish| exceeds it (seconds). */
  readonly feedbackThresholdSeconds?: number;
  readonly engine?: VectorEngine;
  /** fifo-all: place jobs to estimate their finish, but never refuse one. */
  readonly acceptAll?: boolean;
}

export interface RtmrOptions {
  readonly slotModel: SlotModel;
  readonly estimates: Estimates;
  readonly order: QueueOrder;
  readonly feedback: boolean;
  readonly feedbackThresholdSeconds: number;
  readonly engine: VectorEngine;
  readonly acceptAll: boolean;
}

/** Defaults: EDF, feedback on, DeltaT = 30 s (about one typical map task, as the RTMR paper sets it in V). */
export const RTMR_DEFAULTS = Object.freeze({
  order: 'edf' as QueueOrder,
  feedback: true,
  feedbackThresholdSeconds: 30,
  engine: 'fast' as VectorEngine,
  acceptAll: false,
});

export function validateRtmrOptions(input: RtmrOptionsInput): RtmrOptions {
  const issues: ValidationIssue[] = [];
  const collect = issueCollector(issues);
  const slotModel = collect(() => validateSlotModel(input.slotModel));
  const estimates =
    input.estimates === undefined ? DEFAULT_ESTIMATES : collect(() => validateEstimates(input.estimates));
  const o = {
    ...RTMR_DEFAULTS,
    ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
  } as RtmrOptionsInput & typeof RTMR_DEFAULTS;
  if (o.order !== 'edf' && o.order !== 'fifo')
    issues.push({ path: 'order', message: "must be 'edf' or 'fifo'" });
  if (o.engine !== 'fast' && o.engine !== 'literal')
    issues.push({ path: 'engine', message: "must be 'fast' or 'literal'" });
  if (typeof o.feedback !== 'boolean') issues.push({ path: 'feedback', message: 'must be true or false' });
  if (!Number.isFinite(o.feedbackThresholdSeconds) || o.feedbackThresholdSeconds < 0)
    issues.push({ path: 'feedbackThresholdSeconds', message: 'must be a finite number >= 0' });
  if (issues.length > 0 || slotModel === undefined || estimates === undefined)
    throw new ValidationError(issues);
  return Object.freeze({
    slotModel,
    estimates,
    order: o.order,
    feedback: o.feedback,
    feedbackThresholdSeconds: o.feedbackThresholdSeconds,
    engine: o.engine,
    acceptAll: o.acceptAll,
  });
}

export interface RtmrPolicy extends AdmissionPolicy<RtmrState> {
  readonly options: RtmrOptions;
  /** Rebuild from a running cluster (see ClusterSnapshot). */
  fromSnapshot(snapshot: ClusterSnapshot): RtmrState;
  /** The same queue, with the other implementation of the vectors (for checks and benches). */
  withEngine(state: RtmrState, engine: VectorEngine): RtmrState;
}

type Decision =
  | { ok: true; position: number; finish: number; state: RtmrState }
  /** `finish`: the job's own estimated finish at `position` (null: it was not placed). */
  | { ok: false; reason: RejectReason; position: number; finish: number | null };

/**
 * A job with no slot its tasks can ever run in (its map lane, or the reduce lane when it has
 * reduces, empty): refused before any vector is computed, since it would wait for ever (null
 * when it has slots). A map-only job needs no reduce slot.
 */
export function unusableSlots(
  model: SlotModel,
  job: DeadlineJob,
  estimates: Estimates = DEFAULT_ESTIMATES,
): RejectReason | null {
  const kind = job.lane ?? 'cpu';
  // An AM in a container of the lane (estimates' amContainers) leaves one fewer for tasks: on
  // a lane of one container it would hold the only one, and its maps could never start.
  const amSlot = jobOverheads(estimates, job, model)?.amSlot === true ? 1 : 0;
  const lane =
    usableMapSlots(model, kind) - amSlot <= 0
      ? (`${kind} map` as const)
      : job.reduces > 0 && reduceCapacity(model) === 0
        ? 'reduce'
        : null;
  if (lane === null) return null;
  return {
    kind: 'no-usable-slots',
    jobId: job.id,
    deadline: absoluteDeadline(job),
    estimatedFinish: null,
    lateBySeconds: null,
    lane,
  };
}

/**
 * Alg. 5.1: admission controller. A rejected job changes nothing: the old state is returned.
 * `wantState: false` (the earliest-deadline search) skips building the admitted state.
 */
function decide(
  state: RtmrState,
  job: DeadlineJob,
  now: number,
  acceptAll: boolean,
  wantState = true,
): Decision {
  const p = insertionIndex(state, job);
  const unusable = unusableSlots(state.model, job, state.estimates);
  if (unusable) return { ok: false, position: p, reason: unusable, finish: null };
  if (state.engine === 'literal')
    return decideWalkingAll(state, job, p, walkerBefore(state, p), now, acceptAll);
  const lanes = runLanesBefore(state, p); // lines 1-3
  let lowest = Infinity;
  for (const l of lanes.lanes) lowest = Math.min(lowest, l.min());
  const work = freshWork(state.estimates, job, state.model);
  const r = lanes.place(work, now); // lines 4-6
  const deadline = absoluteDeadline(job);
  if (!acceptAll && r.finish > deadline) return ownMiss(job, p, r.finish);
  const rec = recordsOf(state);
  const es = rec.list;
  const n = es.length;
  // A no-op placement (zero-length tasks on slots after now) may let the walk stop early where
  // a successor's old vectors come out unchanged: the full walk of walkSuccessors does that.
  if (p < n && !r.raised) return decideWalkingAll(state, job, p, new FastWalker(lanes), now, acceptAll, r);
  const entry = placedEntry({ job, work, started: false }, r, now);
  // lines 10-21: walk the successors while a bound cannot vouch for the rest (see successorBound).
  const bound = acceptAll ? null : successorBound(rec, p, now, Math.max(0, r.finish - lowest), work);
  const stop = bound === null ? p : bound.walkUntil;
  const walked: RtmrEntry[] = [];
  for (let s = p; s < stop; s++) {
    const prev = es[s]!;
    const q = lanes.place(prev.work, now);
    if (q.finish > absoluteDeadline(prev.job)) return successorMiss(prev, p, q.finish, r.finish);
    walked.push(placedEntry(prev, q, now));
  }
  if (!wantState) return { ok: true, position: p, finish: r.finish, state };
  // lines 22-23: insert J; the successors not walked keep provisional records (Records).
  const list = es.slice(0, p);
  list.push(entry);
  for (const w of walked) list.push(w);
  for (let s = stop; s < n; s++) list.push(es[s]!);
  const fields = { ...fieldsOf(state), checkpoints: keepCheckpoints(state, p) };
  const pending =
    stop < n ? { from: stop + 1, now, shift: bound === null ? Infinity : bound.shift } : undefined;
  const memo: { derive?: () => Dense; lastStarted?: number } = {};
  if (rec.lastStarted !== undefined) memo.lastStarted = rec.lastStarted; // p is behind it
  const old = rec.dense;
  if (old !== undefined)
    // Built when first needed: the old rows before p and from `stop` on, and the rows of the
    // new job and of the walked successors between. (An old provisional row that the old state
    // recomputed meanwhile holds its exact figures: still below the bound, see Records.)
    memo.derive = () => {
      const d = newDense(n + 1);
      const S = DENSE_STRIDE;
      d.num.set(old.num.subarray(0, p * S));
      d.ids.set(old.ids.subarray(0, p));
      d.num.set(old.num.subarray(stop * S), (stop + 1) * S);
      d.ids.set(old.ids.subarray(stop), stop + 1);
      for (let k = p; k <= stop; k++) writeDense(d, k, list[k]!);
      return d;
    };
  return { ok: true, position: p, finish: r.finish, state: makeRtmrState(fields, list, pending, memo) };
}

/**
 * The earliest-deadline search's test: whether `decide` admits `job` with relative deadline D,
 * remembered per insertion position. At one position the job's placement (so its finish) and
 * the walk of its successors (each against its own deadline) are the same whatever D is: D only
 * chooses the position (EDF) and is compared with the job's own finish. So each position is
 * decided once, and again only if its first D was before the job's finish there (the walk of its
 * successors not made yet); any other probe at a position seen before is a comparison. `tail` is
 * the finish at the tail of the queue, known already (no successors there). The same answers as
 * calling `decide` for each D, in any order (rtmr-earliest.test.ts).
 */
export function earliestTrials(
  state: RtmrState,
  job: DeadlineJob,
  now: number,
  tail?: number,
): (D: number) => boolean {
  const seen = new Map<number, { finish: number; successors: boolean | undefined }>();
  if (tail !== undefined) seen.set(recordsOf(state).list.length, { finish: tail, successors: true });
  return (D) => {
    const trial: DeadlineJob = { ...job, deadline: D };
    const p = insertionIndex(state, trial);
    const at = seen.get(p);
    if (at !== undefined) {
      if (at.finish > absoluteDeadline(trial)) return false;
      if (at.successors !== undefined) return at.successors;
    }
    const d = decide(state, trial, now, false, false);
    if (d.ok) seen.set(p, { finish: d.finish, successors: true });
    else if (d.finish !== null) {
      const own = d.reason.kind === 'new-job-misses';
      seen.set(p, { finish: d.finish, successors: own ? undefined : false });
    }
    return d.ok;
  };
}

/** Alg. 5.1 lines 7-9. */
function ownMiss(job: DeadlineJob, p: number, finish: number): Decision {
  const deadline = absoluteDeadline(job);
  return {
    ok: false,
    position: p,
    finish,
    reason: {
      kind: 'new-job-misses',
      jobId: job.id,
      deadline,
      estimatedFinish: finish,
      lateBySeconds: finish - deadline,
    },
  };
}

/** Alg. 5.1 lines 15-17: the first successor found to miss its deadline. */
function successorMiss(e: RtmrEntry, p: number, finish: number, ownFinish: number): Decision {
  const d = absoluteDeadline(e.job);
  return {
    ok: false,
    position: p,
    finish: ownFinish,
    reason: {
      kind: 'admitted-job-would-miss',
      jobId: e.job.id,
      deadline: d,
      estimatedFinish: finish,
      lateBySeconds: finish - d,
    },
  };
}

/**
 * Where an admission at `p` may stop walking its successors, and the bound on how far the
 * records it does not walk can be above their stored ones.
 *
 * Why it is exact. Placing a job (Alg. 5.2/5.3) on sorted vectors is monotone and
 * shift-invariant: if every slot time of vectors A is at most that of vectors B plus D
 * (componentwise on the sorted vectors) and A's release instant is at most B's plus D, then
 * the job's finish, end of maps and every slot time after it are at most B's plus D, since
 * each task writes max(t, release) + seconds, a non-decreasing function of t and release. The
 * new job raises the vectors before `p`: every slot it takes ends at most at its finish and
 * started at least at the lowest slot time, so the vectors after it are at most the old ones
 * plus delta = finish - lowest. The old records from `p` on are a chain of such placements
 * (at the instant each was computed; a record that absorbed a departed job's steps only sits
 * higher, a SATU record (`full` step) is no placement and stops the bound), and provisional
 * old records are themselves below their stored figures plus the old `shift`. So every
 * successor's exact new finish is at most its stored one plus
 *   shift = max(delta, now - each record's instant) + old shift (if provisional ones follow),
 * and a successor whose slack (deadline - stored finish) is at least that cannot miss. The
 * walk goes on up to the last successor that is not vouched for (or the last SATU record), so
 * a rejection is always found by the walk itself, with the walk's exact figures.
 *
 * Rounding: each task's float addition can make the chain's gap grow by at most 2 units in the
 * last place of the largest time involved; `eps` allows 2^-48 (32 times that) per task placed
 * from `p` on, and the slack must clear the shift by another `eps`.
 */
function successorBound(
  rec: Records,
  p: number,
  now: number,
  delta: number,
  work: JobWork,
): { walkUntil: number; shift: number } {
  const n = rec.list.length;
  const num = denseOf(rec).num;
  const S = DENSE_STRIDE;
  const exactTo = Math.min(rec.from, n);
  // Provisional records are to be recomputed at rec.now.
  let oldest = exactTo < n ? rec.now : Infinity;
  let tasks = work.pendingMaps + work.pendingReduces + 2;
  let scale = Math.abs(now) + 1;
  for (let i = p, o = p * S; i < n; i++, o += S) {
    if (i < exactTo && num[o + 1]! < oldest) oldest = num[o + 1]!;
    tasks += num[o + 2]!;
    if (num[o + 3]! > scale) scale = num[o + 3]!;
  }
  const lift = Math.max(delta, now - oldest);
  const shift0 = lift + (exactTo < n ? rec.shift : 0);
  const eps = 2 ** -48 * tasks * (scale + shift0 + 1);
  const shift = shift0 + eps;
  const need = shift + eps;
  // A record holding a SATU step (slack -Infinity: a completed job's feedback vectors, absorbed
  // when it left) breaks the chain: its walk recomputes it from fresh vectors, which may sit
  // above the feedback ones by more than any shift, and every record after it was placed on
  // them. Nothing after it is vouched for: the walk goes to the end.
  for (let k = p; k < n; k++) if (num[k * S] === -Infinity) return { walkUntil: n, shift };
  // The last successor the bound does not vouch for: the walk must go past it.
  let i = n - 1;
  while (i >= p && num[i * S]! >= need) i--;
  return { walkUntil: i + 1, shift };
}

/** Alg. 5.1 walking every successor (the literal engine, and a fast no-op placement). */
function decideWalkingAll(
  state: RtmrState,
  job: DeadlineJob,
  p: number,
  walker: Walker,
  now: number,
  acceptAll: boolean,
  placed?: Placement & { steps: Step[]; firstPick: number; raised: boolean },
): Decision {
  const work = freshWork(state.estimates, job, state.model);
  const r = placed ?? walker.place(work, now); // lines 4-6
  const deadline = absoluteDeadline(job);
  if (!acceptAll && r.finish > deadline) return ownMiss(job, p, r.finish);
  const entry = placedEntry({ job, work, started: false }, r, now);
  // lines 10-21; a no-op placement (zero-length tasks on slots after now) may let the walk stop
  // early: the successors' old vectors are then compared as the walk goes.
  const es = state.entries;
  const unchanged = state.engine === 'fast' && p < es.length && !r.raised;
  const w = walkSuccessors(
    state,
    p,
    walker,
    now,
    !acceptAll,
    unchanged ? () => runLanesBefore(state, p) : undefined,
  );
  if (w.miss) return successorMiss(w.miss.entry, p, w.miss.finish, r.finish);
  // lines 22-23: insert J, record the new vectors of J and its successors.
  const entries = [...es.slice(0, p), entry, ...w.entries];
  return {
    ok: true,
    position: p,
    finish: r.finish,
    state: makeRtmrState({ ...fieldsOf(state), checkpoints: keepCheckpoints(state, p) }, entries),
  };
}

function removeAt(state: RtmrState, i: number): RtmrState {
  const es = state.entries;
  const gone = es[i]!;
  const next = es[i + 1];
  // The successor keeps its vectors: they are recorded relative to the departing job's, so its
  // steps absorb the departed ones. Without feedback nothing is recomputed (seed: vectors are
  // only changed by admission and by the feedback controller). The next walk through it
  // (Alg. 5.1 lines 12-14, Alg. 5.5 lines 14-16) recomputes it from its new predecessor, which
  // drops the departed steps; `absorbed` keeps the fast engine's early stop from skipping that.
  const entries = [
    ...es.slice(0, i),
    ...(next ? [{ ...next, steps: [...gone.steps, ...next.steps], absorbed: true }] : []),
    ...es.slice(i + 2),
  ];
  return makeRtmrState({ ...fieldsOf(state), checkpoints: keepCheckpoints(state, i) }, entries);
}

/** The same queue, every record one `full` step of the other engine's vectors. */
function withEngine(state: RtmrState, engine: VectorEngine): RtmrState {
  const entries = state.entries.map((e, i) => {
    const lanes = vectorsBefore(state, i + 1);
    return { ...e, steps: [{ kind: 'full' as const, lanes }] };
  });
  return makeRtmrState({ ...fieldsOf(state), engine, checkpoints: new Map() }, entries);
}

/** The job put to `admit`, validated: a finite `now`, and a job not queued already. */
function jobToAdmit(state: RtmrState, jobInput: unknown, now: number): DeadlineJob {
  const job = validateJob(jobInput);
  if (!Number.isFinite(now)) throw new ValidationError([{ path: 'now', message: 'must be a finite time' }]);
  if (indexOfJob(state, job.id) >= 0)
    throw new ValidationError([{ path: 'job.id', message: `job ${job.id} is already queued` }]);
  return job;
}

/**
 * The earliest admissible deadline of a refused job (see "Earliest admissible deadline" in
 * docs/admission.md): the search starts from the finish at the tail of the queue, or just past
 * the last queued deadline, and goes no further than the horizon; `searchedUpTo` says how far
 * it looked when nothing admits the job.
 */
function earliestAdmissible(
  state: RtmrState,
  job: DeadlineJob,
  now: number,
  opts: AdmitOptions,
): { earliest: number | null; searchedUpTo?: number } {
  const tail = walkerBefore(state, state.entries.length).place(
    freshWork(state.estimates, job, state.model),
    now,
  ).finish;
  const lastDeadline = recordsOf(state).list.reduce(
    (m, e) => Math.max(m, absoluteDeadline(e.job)),
    -Infinity,
  );
  const hint = Math.max(tail - job.arrival, lastDeadline - job.arrival + 1);
  // The horizon counts from now; D counts from the job's arrival.
  const horizon = Math.floor(Math.max(0, now - job.arrival) + (opts.horizon ?? DEADLINE_HORIZON_SECONDS));
  const earliest = searchEarliestDeadline(earliestTrials(state, job, now, tail), { hint, horizon });
  return earliest === null ? { earliest, searchedUpTo: horizon } : { earliest };
}

/** A refusal: the reason, the earliest admissible deadline when searched, the state unchanged. */
function refusal(
  state: RtmrState,
  job: DeadlineJob,
  now: number,
  reason: RejectReason,
  opts: AdmitOptions,
): AdmissionResult<RtmrState> {
  // No deadline admits a job that can never run: nothing to search.
  const searched = opts.searchEarliest !== false && reason.kind !== 'no-usable-slots';
  const { earliest, searchedUpTo } = searched
    ? earliestAdmissible(state, job, now, opts)
    : { earliest: null, searchedUpTo: undefined };
  return {
    admitted: false,
    jobId: job.id,
    reason,
    earliestAdmissibleDeadline: earliest,
    ...(searchedUpTo === undefined ? {} : { searchedUpTo }),
    state,
  };
}

/** The dispatcher launched a task of the job: later arrivals go behind it (no preemption). */
function markStartedAt(state: RtmrState, jobId: string): RtmrState {
  const i = indexOfJob(state, jobId);
  const rec = recordsOf(state);
  if (i < 0 || rec.list[i]!.started) return state;
  // The start flag is no part of a record: provisional records stay provisional.
  const entries = rec.list.slice();
  entries[i] = { ...entries[i]!, started: true };
  // The dense rows are shared, not copied (a cycle in which hundreds of jobs start made a
  // copy of them per start). Both states hold the same jobs at the same rows, and a row is
  // only ever written by `settle`, with the exact figures of its record, which are the same
  // in both (the start flag is no part of a record); a row holding the exact figures of a
  // record still provisional in the other state is below the bound (see Records). Checked
  // by test/core/admission/bounded-walk.test.ts, which reads the older state last.
  const memo = {
    lastStarted: Math.max(i, lastStartedOf(rec)),
    ...(rec.dense ? { dense: rec.dense } : {}),
  };
  return makeRtmrState(fieldsOf(state), entries, rec, memo);
}

/** A finished job's actual finish times: finite, and no more of them than the job has tasks. */
function validateActuals(job: DeadlineJob, actuals: JobActuals): void {
  const issues: ValidationIssue[] = [];
  const times = (p: string, a: readonly number[], n: number): void => {
    if (a.length > n) issues.push({ path: p, message: `has ${a.length} entries, the job has ${n} tasks` });
    a.forEach((t, k) => {
      if (!Number.isFinite(t)) issues.push({ path: `${p}[${k}]`, message: 'must be a finite time' });
    });
  };
  times('actuals.mapFinishTimes', actuals.mapFinishTimes, job.maps);
  times('actuals.reduceFinishTimes', actuals.reduceFinishTimes, job.reduces);
  if (!Number.isFinite(actuals.finishedAt))
    issues.push({ path: 'actuals.finishedAt', message: 'must be a finite time' });
  if (issues.length > 0) throw new ValidationError(issues);
}

/**
 * Alg. 5.5 line 7: feedback runs when the job's finish was off its estimate by more than DeltaT,
 * or it missed its deadline. He et al., RTMR, Alg. V prints `>`, He, dissertation, Alg. 5.5 `>=`.
 */
function feedbackDue(options: RtmrOptions, e: RtmrEntry, actuals: JobActuals): boolean {
  return (
    options.feedback &&
    (Math.abs(e.finish - actuals.finishedAt) > options.feedbackThresholdSeconds ||
      actuals.finishedAt > absoluteDeadline(e.job))
  );
}

/**
 * Alg. 5.5 lines 3-19, the feedback controller: the finished job's record rebuilt with SATU from
 * its actual task finish times, then its successors recomputed at `now`.
 */
function feedback(state: RtmrState, i: number, actuals: JobActuals, now: number): RtmrState {
  const e = state.entries[i]!; // every record exact from here on
  const pred = vectorsBefore(state, i); // lines 3-5
  // lines 8-11, the maps on the job's own map lane
  // The job's AM gave its container back when the job ended (on the maps' lane).
  const mapLaneFinishes = takesAmSlot(e.work)
    ? [...actuals.mapFinishTimes, actuals.finishedAt]
    : actuals.mapFinishTimes;
  const u = satu(state.model, pred, mapLaneFinishes, actuals.reduceFinishTimes, e.work.mapLane);
  const updated: RtmrEntry = {
    ...e,
    steps: [{ kind: 'full', lanes: u }],
    finish: actuals.finishedAt,
    mapEnd: actuals.mapFinishTimes.reduce((m, t) => Math.max(m, t), -Infinity),
    computedAt: now,
  };
  const walker = newWalker(state, u);
  // lines 12-19, stopping once a successor's vectors come out unchanged.
  const w = walkSuccessors(state, i + 1, walker, now, false, () => runLanesBefore(state, i + 1));
  return makeRtmrState({ ...fieldsOf(state), checkpoints: keepCheckpoints(state, i) }, [
    ...state.entries.slice(0, i),
    updated,
    ...w.entries,
  ]);
}

export function createRtmrPolicy(name: string, input: RtmrOptionsInput): RtmrPolicy {
  const options = validateRtmrOptions(input);
  const policy: RtmrPolicy = {
    name,
    options,
    initialState: (now) =>
      emptyRtmrState(options.slotModel, options.estimates, options.engine, options.order, now),
    fromSnapshot: (snap) =>
      rtmrStateFromSnapshot(options.slotModel, options.estimates, options.engine, options.order, snap),
    withEngine,
    admit(state, jobInput, now, opts: AdmitOptions = {}): AdmissionResult<RtmrState> {
      const job = jobToAdmit(state, jobInput, now);
      const d = decide(state, job, now, options.acceptAll);
      if (!d.ok) return refusal(state, job, now, d.reason, opts);
      return {
        admitted: true,
        jobId: job.id,
        estimatedFinish: d.finish,
        position: d.position,
        state: d.state,
      };
    },
    markStarted: markStartedAt,
    complete(state, jobId, actuals: JobActuals, now) {
      const i = indexOfJob(state, jobId);
      if (i < 0) return state;
      const e = state.entries[i]!;
      validateActuals(e.job, actuals);
      return removeAt(feedbackDue(options, e, actuals) ? feedback(state, i, actuals, now) : state, i);
    },
    leave(state, jobId) {
      const i = indexOfJob(state, jobId);
      return i < 0 ? state : removeAt(state, i);
    },
    queue: (state) => recordsOf(state).list.map((e) => e.job),
  };
  return Object.freeze(policy);
}
