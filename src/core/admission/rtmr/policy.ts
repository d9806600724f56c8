import { ValidationError, type ValidationIssue, issueCollector } from '../../../errors/validation';
import { DEFAULT_ESTIMATES, validateEstimates, type Estimates } from '../../estimates';
import { absoluteDeadline, validateJob, type DeadlineJob } from '../../job';
import { satu } from '../../slots/literal';
import { reduceCapacity, usableMapSlots, validateSlotModel, type SlotModel } from '../../slots/model';
import { DEADLINE_HORIZON_SECONDS, searchEarliestDeadline } from '../earliest';
import type { AdmissionPolicy, AdmissionResult, AdmitOptions, JobActuals, RejectReason } from '../types';
import {
  emptyRtmrState,
  freshWork,
  insertionIndex,
  keepCheckpoints,
  newWalker,
  placedEntry,
  rtmrStateFromSnapshot,
  runLanesBefore,
  vectorsBefore,
  walkerBefore,
  walkSuccessors,
  type ClusterSnapshot,
  type QueueOrder,
  type RtmrEntry,
  type RtmrState,
  type VectorEngine,
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

/** Defaults: EDF, feedback on, DeltaT = 30 s (about one typical map task, as seed 000 V sets it). */
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
  | { ok: false; reason: RejectReason; position: number };

/**
 * A job with no slot its tasks can ever run in (its map lane, or the reduce lane when it has
 * reduces, empty): refused before any vector is computed, since it would wait for ever (null
 * when it has slots). A map-only job needs no reduce slot.
 */
export function unusableSlots(model: SlotModel, job: DeadlineJob): RejectReason | null {
  const kind = job.lane ?? 'cpu';
  const lane =
    usableMapSlots(model, kind) === 0
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

/** Alg. 5.1: admission controller. A rejected job changes nothing: the old state is returned. */
function decide(state: RtmrState, job: DeadlineJob, now: number, acceptAll: boolean): Decision {
  const p = insertionIndex(state, job);
  const unusable = unusableSlots(state.model, job);
  if (unusable) return { ok: false, position: p, reason: unusable };
  const walker = walkerBefore(state, p); // lines 1-3
  const work = freshWork(state.estimates, job, state.model);
  const r = walker.place(work, now); // lines 4-6
  const deadline = absoluteDeadline(job);
  if (!acceptAll && r.finish > deadline) {
    // lines 7-9
    return {
      ok: false,
      position: p,
      reason: {
        kind: 'new-job-misses',
        jobId: job.id,
        deadline,
        estimatedFinish: r.finish,
        lateBySeconds: r.finish - deadline,
      },
    };
  }
  const entry = placedEntry({ job, work, started: false }, r, now);
  // lines 10-21; a no-op placement (zero-length tasks on slots after now) may let the walk stop
  // early: the successors' old vectors are then compared as the walk goes.
  const unchanged = state.engine === 'fast' && p < state.entries.length && !r.raised;
  const w = walkSuccessors(
    state,
    p,
    walker,
    now,
    !acceptAll,
    unchanged ? () => runLanesBefore(state, p) : undefined,
  );
  if (w.miss) {
    const d = absoluteDeadline(w.miss.entry.job);
    return {
      ok: false,
      position: p,
      reason: {
        kind: 'admitted-job-would-miss',
        jobId: w.miss.entry.job.id,
        deadline: d,
        estimatedFinish: w.miss.finish,
        lateBySeconds: w.miss.finish - d,
      },
    };
  }
  // lines 22-23: insert J, record the new vectors of J and its successors.
  const entries = [...state.entries.slice(0, p), entry, ...w.entries];
  return {
    ok: true,
    position: p,
    finish: r.finish,
    state: { ...state, entries, checkpoints: keepCheckpoints(state, p) },
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
  return { ...state, entries, checkpoints: keepCheckpoints(state, i) };
}

export function createRtmrPolicy(name: string, input: RtmrOptionsInput): RtmrPolicy {
  const options = validateRtmrOptions(input);
  const indexOf = (state: RtmrState, id: string): number => state.entries.findIndex((e) => e.job.id === id);

  const policy: RtmrPolicy = {
    name,
    options,
    initialState: (now) =>
      emptyRtmrState(options.slotModel, options.estimates, options.engine, options.order, now),
    fromSnapshot: (snap) =>
      rtmrStateFromSnapshot(options.slotModel, options.estimates, options.engine, options.order, snap),
    withEngine: (state, engine) => {
      const base = { ...state, engine, entries: [] as RtmrEntry[], checkpoints: new Map() };
      const entries = state.entries.map((e, i) => {
        const lanes = vectorsBefore(state, i + 1);
        return { ...e, steps: [{ kind: 'full' as const, lanes }] };
      });
      return { ...base, entries };
    },
    admit(state, jobInput, now, opts: AdmitOptions = {}): AdmissionResult<RtmrState> {
      const job = validateJob(jobInput);
      if (!Number.isFinite(now))
        throw new ValidationError([{ path: 'now', message: 'must be a finite time' }]);
      if (indexOf(state, job.id) >= 0)
        throw new ValidationError([{ path: 'job.id', message: `job ${job.id} is already queued` }]);
      const d = decide(state, job, now, options.acceptAll);
      if (d.ok)
        return {
          admitted: true,
          jobId: job.id,
          estimatedFinish: d.finish,
          position: d.position,
          state: d.state,
        };
      let earliest: number | null = null;
      let searchedUpTo: number | undefined;
      // No deadline admits a job that can never run: nothing to search.
      if (opts.searchEarliest !== false && d.reason.kind !== 'no-usable-slots') {
        const tail = walkerBefore(state, state.entries.length).place(
          freshWork(state.estimates, job, state.model),
          now,
        ).finish;
        const lastDeadline = state.entries.reduce((m, e) => Math.max(m, absoluteDeadline(e.job)), -Infinity);
        const hint = Math.max(tail - job.arrival, lastDeadline - job.arrival + 1);
        // The horizon counts from now; D counts from the job's arrival.
        const horizon = Math.floor(
          Math.max(0, now - job.arrival) + (opts.horizon ?? DEADLINE_HORIZON_SECONDS),
        );
        earliest = searchEarliestDeadline((D) => decide(state, { ...job, deadline: D }, now, false).ok, {
          hint,
          horizon,
        });
        if (earliest === null) searchedUpTo = horizon;
      }
      return {
        admitted: false,
        jobId: job.id,
        reason: d.reason,
        earliestAdmissibleDeadline: earliest,
        ...(searchedUpTo === undefined ? {} : { searchedUpTo }),
        state,
      };
    },
    markStarted(state, jobId) {
      const i = indexOf(state, jobId);
      if (i < 0 || state.entries[i]!.started) return state;
      const entries = state.entries.slice();
      entries[i] = { ...entries[i]!, started: true };
      return { ...state, entries };
    },
    complete(state, jobId, actuals: JobActuals, now) {
      const i = indexOf(state, jobId);
      if (i < 0) return state;
      const e = state.entries[i]!;
      const issues: ValidationIssue[] = [];
      const times = (p: string, a: readonly number[], n: number): void => {
        if (a.length > n)
          issues.push({ path: p, message: `has ${a.length} entries, the job has ${n} tasks` });
        a.forEach((t, k) => {
          if (!Number.isFinite(t)) issues.push({ path: `${p}[${k}]`, message: 'must be a finite time' });
        });
      };
      times('actuals.mapFinishTimes', actuals.mapFinishTimes, e.job.maps);
      times('actuals.reduceFinishTimes', actuals.reduceFinishTimes, e.job.reduces);
      if (!Number.isFinite(actuals.finishedAt))
        issues.push({ path: 'actuals.finishedAt', message: 'must be a finite time' });
      if (issues.length > 0) throw new ValidationError(issues);
      let s = state;
      // Alg. 5.5 line 7 (seed 000 uses >, seed 004 prints >=; DESIGN.md follows seed 000).
      if (
        options.feedback &&
        (Math.abs(e.finish - actuals.finishedAt) > options.feedbackThresholdSeconds ||
          actuals.finishedAt > absoluteDeadline(e.job))
      ) {
        const pred = vectorsBefore(state, i); // lines 3-5
        // lines 8-11, the maps on the job's own map lane
        const u = satu(state.model, pred, actuals.mapFinishTimes, actuals.reduceFinishTimes, e.work.mapLane);
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
        s = {
          ...state,
          entries: [...state.entries.slice(0, i), updated, ...w.entries],
          checkpoints: keepCheckpoints(state, i),
        };
      }
      return removeAt(s, i);
    },
    leave(state, jobId) {
      const i = indexOf(state, jobId);
      return i < 0 ? state : removeAt(state, i);
    },
    queue: (state) => state.entries.map((e) => e.job),
  };
  return Object.freeze(policy);
}
