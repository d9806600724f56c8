import { ValidationError } from '../../../errors/validation';
import { taskEstimates, validateEstimates, type Estimates } from '../../estimates';
import { absoluteDeadline, validateJob, type DeadlineJob } from '../../job';
import { validateSlotModel, type SlotModel } from '../../slots/model';
import type { AdmissionPolicy, AdmissionResult, JobActuals } from '../common/types';
import { admissionEntry } from '../../policy-entry';

/**
 * `yarn-greedy`: the admission test YARN itself offers, as a baseline beside RTMR.
 *
 * YARN's ReservationSystem (Rayon) admits a reservation when its planning agent can fit the
 * reservation's stages into the plan's free capacity between arrival and deadline. The
 * default agent, GreedyReservationAgent, is an IterativePlanner that walks the stages of an
 * R_ORDER reservation from the last to the first (reduces, then maps), giving each stage the
 * interval [arrival, start of the stage after it], and allocates each stage with the greedy
 * rule: repeatedly place as many containers as fit over the latest window of the stage's
 * duration ending at the current stage deadline, then move the deadline left to the most
 * constraining instant and try again (StageAllocatorGreedy). The reservation is accepted
 * only if every stage is fully placed; its allocations then occupy the plan.
 *
 * Mapped onto a MapReduce job J = (A, D, M, R, delta):
 *  - stage 1 = M map containers of eps^m seconds each, stage 2 = R reduce containers of
 *    eps^r seconds each (the same worst-case task estimates RTMR uses, He et al., RTMR, IV.A);
 *  - the plan is a step function of containers in use over time, one per lane: with the
 *    `mr1` slot model map stages use the map-slot lane and reduce stages the reduce-slot lane
 *    (the plan's capacity per lane is the slot count); with `unified` one lane of containers;
 *  - time is discretised in plan steps (`planStepSeconds`, YARN's plan step): durations
 *    rounded up, the deadline rounded down, the earliest start rounded up, as
 *    IterativePlanner does;
 *  - the earliest start of every stage is max(A, now) (StageEarliestStartByJobArrival).
 *
 * Bounded whatever the job: the plan starts at the current step (steps already past are
 * dropped, so the arrays never span the epoch), it looks at most `maxPlanSteps` steps ahead (a
 * later deadline is planned as if it were that far: admitting then stays safe), and one
 * admission test visits at most `maxStepVisits` plan steps; past that the job is rejected
 * (`plan-budget-exceeded`) rather than planned for seconds on end.
 *
 * Admitted jobs are dispatched in EDF order (the same queue RTMR uses), and a finished job
 * leaves its reservation in the plan until it expires (YARN does not shrink a reservation
 * when its job ends early); a killed job's reservation is deleted.
 *
 * Worked example (a test): 4 map slots, 1 reduce slot, step 1 s. J1 = 4 maps x 10 s,
 * 1 reduce x 5 s, A = 0, D = 20: the reduce goes to [15, 20), the four maps to [5, 15).
 * J2, the same job with D = 30: reduce at [25, 30), maps at [15, 25): admitted. J3, the same
 * job with D = 20 again: the reduce slot is taken in [15, 20), so its reduce moves to
 * [10, 15); its maps would then need [0, 10), but J1's maps hold every map slot in [5, 10):
 * rejected. Where the greedy plan differs from RTMR is a job that fits only if an earlier
 * reservation were moved: the agent never moves one (the test "left-packed vs right-packed").
 */

export interface YarnGreedyArgs {
  slotModel: SlotModel;
  estimates: Estimates;
  /** The plan's time step, seconds (YARN's reservation plan step; default 1 s). */
  planStepSeconds: number;
  /** How many steps ahead of now the plan reaches (default 2^20: 12 days at 1 s). */
  maxPlanSteps: number;
  /** Most plan steps one admission test may visit (default 2^24). */
  maxStepVisits: number;
}

export const DEFAULT_MAX_PLAN_STEPS = 2 ** 20;
export const DEFAULT_MAX_STEP_VISITS = 2 ** 24;

interface Allocation {
  readonly lane: number;
  /** [fromStep, toStep) in plan steps. */
  readonly from: number;
  readonly to: number;
  readonly count: number;
}

interface Reservation {
  readonly job: DeadlineJob;
  readonly allocations: readonly Allocation[];
  readonly estimatedFinish: number;
  readonly started: boolean;
}

export interface YarnGreedyState {
  readonly kind: 'yarn-greedy';
  readonly args: YarnGreedyArgs;
  /** The plan step that index 0 of every lane's array stands for. */
  readonly origin: number;
  /** Containers in use per plan step, one array per lane (index = step - origin). */
  readonly plan: readonly Int32Array[];
  /** Admitted, unfinished jobs in EDF order. */
  readonly queue: readonly Reservation[];
}

export function validateYarnGreedyArgs(raw: unknown, path = 'admission.args'): YarnGreedyArgs {
  const rec = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const slotModel = validateSlotModel(rec.slotModel, `${path}.slotModel`, { gpuMapLane: false });
  const estimates = validateEstimates(rec.estimates, `${path}.estimates`);
  const step = rec.planStepSeconds ?? 1;
  if (typeof step !== 'number' || !Number.isFinite(step) || step <= 0) {
    throw new ValidationError([{ path: `${path}.planStepSeconds`, message: 'must be a number > 0' }]);
  }
  const whole = (key: string, v: unknown, max: number): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max)
      throw new ValidationError([
        { path: `${path}.${key}`, message: `must be a whole number from 1 to ${max}` },
      ]);
    return v;
  };
  const maxPlanSteps = whole('maxPlanSteps', rec.maxPlanSteps ?? DEFAULT_MAX_PLAN_STEPS, 2 ** 26);
  const maxStepVisits = whole('maxStepVisits', rec.maxStepVisits ?? DEFAULT_MAX_STEP_VISITS, 2 ** 30);
  return Object.freeze({ slotModel, estimates, planStepSeconds: step, maxPlanSteps, maxStepVisits });
}

function capacities(model: SlotModel): number[] {
  return model.name === 'mr1' ? [model.mapSlots, model.reduceSlots] : [model.containers];
}

function reduceLaneOf(model: SlotModel): number {
  return model.name === 'mr1' ? 1 : 0;
}

/**
 * A read view of the plan plus this planning round's tentative allocations, counting the plan
 * steps it visits: once `budget` is spent, `exhausted` is set and the planning round gives up.
 */
export class Workspace {
  private readonly extra = new Map<number, Int32Array>();
  private visits = 0;
  constructor(
    private readonly plan: readonly Int32Array[],
    private readonly caps: readonly number[],
    /** The plan step of index 0. */
    private readonly origin = 0,
    private readonly budget = Number.POSITIVE_INFINITY,
  ) {}

  get exhausted(): boolean {
    return this.visits > this.budget;
  }

  available(lane: number, step: number): number {
    this.visits++;
    const i = step - this.origin;
    const used = (this.plan[lane] as Int32Array)[i] ?? 0;
    return (this.caps[lane] as number) - used - (this.extra.get(lane)?.[i] ?? 0);
  }

  add(a: Allocation): void {
    this.visits += a.to - a.from;
    const need = a.to - this.origin;
    let m = this.extra.get(a.lane);
    if (!m || m.length < need) {
      const grown = new Int32Array(Math.max(need, 2 * (m?.length ?? 0)));
      if (m) grown.set(m);
      this.extra.set(a.lane, (m = grown));
    }
    for (let s = a.from - this.origin; s < need; s++) m[s] = (m[s] as number) + a.count;
  }
}

/**
 * StageAllocatorGreedy: place `containers` containers of `dur` steps within
 * [earliest, deadline), right to left. Returns the allocations, or null when the stage does
 * not fit (the caller then rejects the whole reservation).
 */
export function allocateStage(
  ws: Workspace,
  lane: number,
  containers: number,
  dur: number,
  earliest: number,
  deadline: number,
): Allocation[] | null {
  const out: Allocation[] = [];
  let toPlace = containers;
  let stageDeadline = deadline;
  while (toPlace > 0 && stageDeadline - dur >= earliest && !ws.exhausted) {
    // Scan the window [stageDeadline - dur, stageDeadline) from the right; remember the
    // smallest availability and the leftmost instant where it occurs ("minPoint").
    let maxGang = toPlace;
    let minPoint = stageDeadline;
    for (let t = stageDeadline - 1; t >= stageDeadline - dur && maxGang > 0; t--) {
      const fit = Math.min(toPlace, Math.max(0, ws.available(lane, t)));
      if (fit <= maxGang) {
        maxGang = fit;
        minPoint = t;
      }
    }
    if (maxGang > 0) {
      const a: Allocation = { lane, from: stageDeadline - dur, to: stageDeadline, count: maxGang };
      ws.add(a);
      out.push(a);
      toPlace -= maxGang;
    }
    // Nothing right of the most constraining instant can take a whole container any more.
    stageDeadline = minPoint;
  }
  return toPlace === 0 && !ws.exhausted ? out : null;
}

/** The plan with `allocations` added (or, sign -1, removed); steps before `origin` are past. */
function planWith(
  plan: readonly Int32Array[],
  origin: number,
  allocations: readonly Allocation[],
  sign: 1 | -1,
): Int32Array[] {
  const next = plan.map((l) => l);
  const touched = new Set<number>();
  for (const a of allocations) {
    const to = a.to - origin;
    if (to <= 0) continue;
    if (!touched.has(a.lane)) {
      const old = next[a.lane] as Int32Array;
      const copy = new Int32Array(Math.max(old.length, to));
      copy.set(old);
      next[a.lane] = copy;
      touched.add(a.lane);
    } else if ((next[a.lane] as Int32Array).length < to) {
      const old = next[a.lane] as Int32Array;
      const copy = new Int32Array(to);
      copy.set(old);
      next[a.lane] = copy;
    }
    const lane = next[a.lane] as Int32Array;
    for (let s = Math.max(0, a.from - origin); s < to; s++) lane[s] = (lane[s] as number) + sign * a.count;
  }
  return next;
}

/** The state with the plan's steps before `step` dropped (they are past: nothing plans there). */
function advancedTo(state: YarnGreedyState, step: number): YarnGreedyState {
  const drop = step - state.origin;
  if (!(drop > 0)) return state;
  return { ...state, origin: step, plan: state.plan.map((l) => l.slice(Math.min(drop, l.length))) };
}

function edfInsert(
  queue: readonly Reservation[],
  r: Reservation,
): { queue: Reservation[]; position: number } {
  const d = absoluteDeadline(r.job);
  let i = queue.length;
  // Never ahead of a started job (no preemption), otherwise by deadline, ties by arrival.
  while (i > 0) {
    const prev = queue[i - 1] as Reservation;
    if (prev.started || absoluteDeadline(prev.job) <= d) break;
    i--;
  }
  const out = queue.slice();
  out.splice(i, 0, r);
  return { queue: out, position: i };
}

/** A job's stages as the plan counts them: whole plan steps, the window [earliest, deadline). */
function stageWindow(
  args: YarnGreedyArgs,
  state: YarnGreedyState,
  job: DeadlineJob,
  now: number,
): { earliest: number; deadline: number; mapDur: number; reduceDur: number } {
  const step = args.planStepSeconds;
  const est = taskEstimates(args.estimates, job);
  const earliest = Math.ceil(Math.max(job.arrival, now) / step - 1e-9);
  // Planned no further than maxPlanSteps ahead: a fit before then is a fit before the deadline.
  const deadline = Math.min(
    Math.floor(absoluteDeadline(job) / step + 1e-9),
    Math.max(earliest, state.origin) + args.maxPlanSteps,
  );
  const mapDur = Math.max(1, Math.ceil(est.mapSeconds / step - 1e-9));
  const reduceDur = Math.max(1, Math.ceil(est.reduceSeconds / step - 1e-9));
  return { earliest, deadline, mapDur, reduceDur };
}

/**
 * IterativePlanner: the stages in reverse order, each stage's deadline the start of the next
 * (reduces, then maps), each allocated by StageAllocatorGreedy. Null when a stage does not fit,
 * 'budget' when the round visited more plan steps than `maxStepVisits`.
 */
function planReservation(
  args: YarnGreedyArgs,
  caps: readonly number[],
  state: YarnGreedyState,
  job: DeadlineJob,
  now: number,
): { allocations: Allocation[]; finish: number } | 'budget' | null {
  const ws = new Workspace(state.plan, caps, state.origin, args.maxStepVisits);
  const { earliest, deadline, mapDur, reduceDur } = stageWindow(args, state, job, now);
  const reduces = allocateStage(ws, reduceLaneOf(args.slotModel), job.reduces, reduceDur, earliest, deadline);
  if (!reduces) return ws.exhausted ? 'budget' : null;
  // Loops, not Math.min(...spread): a stage may hold more gangs than a call takes arguments.
  // A map-only job (R = 0) has an empty reduce stage: its maps are planned up to the deadline
  // and it ends with its last map.
  let reduceStart = reduces.length === 0 ? deadline : Infinity;
  let end = -Infinity;
  for (const a of reduces) {
    reduceStart = Math.min(reduceStart, a.from);
    end = Math.max(end, a.to);
  }
  const maps = allocateStage(ws, 0, job.maps, mapDur, earliest, reduceStart);
  if (!maps) return ws.exhausted ? 'budget' : null;
  if (reduces.length === 0) for (const a of maps) end = Math.max(end, a.to);
  return { allocations: maps.concat(reduces), finish: end * args.planStepSeconds };
}

/** A job the plan has no room for (or that spent the round's budget): the state unchanged. */
function refusal(
  job: DeadlineJob,
  budget: boolean,
  state: YarnGreedyState,
): AdmissionResult<YarnGreedyState> {
  return {
    admitted: false,
    jobId: job.id,
    reason: {
      kind: budget ? 'plan-budget-exceeded' : 'new-job-misses',
      jobId: job.id,
      deadline: absoluteDeadline(job),
      estimatedFinish: null,
      lateBySeconds: null,
    },
    earliestAdmissibleDeadline: null,
    state,
  };
}

/** The reservation accepted: its allocations occupy the plan, its job joins the EDF queue. */
function accepted(
  state: YarnGreedyState,
  job: DeadlineJob,
  placed: { allocations: Allocation[]; finish: number },
): AdmissionResult<YarnGreedyState> {
  const reservation: Reservation = {
    job,
    allocations: placed.allocations,
    estimatedFinish: placed.finish,
    started: false,
  };
  const { queue, position } = edfInsert(state.queue, reservation);
  return {
    admitted: true,
    jobId: job.id,
    estimatedFinish: placed.finish,
    position,
    state: { ...state, plan: planWith(state.plan, state.origin, placed.allocations, 1), queue },
  };
}

export function createYarnGreedy(rawArgs: unknown): AdmissionPolicy<YarnGreedyState> {
  const args = validateYarnGreedyArgs(rawArgs);
  const caps = capacities(args.slotModel);
  const step = args.planStepSeconds;
  return {
    name: 'yarn-greedy',
    initialState: (now = 0) => ({
      kind: 'yarn-greedy',
      args,
      origin: Math.max(0, Math.floor(now / step)),
      plan: caps.map(() => new Int32Array(0)),
      queue: [],
    }),

    admit(given, rawJob, now): AdmissionResult<YarnGreedyState> {
      const job = validateJob(rawJob);
      const state = advancedTo(given, Math.floor(now / step));
      const placed = planReservation(args, caps, state, job, now);
      if (placed === null || placed === 'budget') return refusal(job, placed === 'budget', given);
      return accepted(state, job, placed);
    },

    markStarted(state, jobId) {
      return { ...state, queue: state.queue.map((r) => (r.job.id === jobId ? { ...r, started: true } : r)) };
    },

    complete(state, jobId, _actuals: JobActuals) {
      // The reservation stays in the plan until it expires: YARN keeps it to its end time.
      return { ...state, queue: state.queue.filter((r) => r.job.id !== jobId) };
    },

    leave(state, jobId) {
      const r = state.queue.find((x) => x.job.id === jobId);
      if (!r) return state;
      return {
        ...state,
        plan: planWith(state.plan, state.origin, r.allocations, -1),
        queue: state.queue.filter((x) => x.job.id !== jobId),
      };
    },

    queue: (state) => state.queue.map((r) => r.job),
  };
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'yarn-greedy';
export const entry = admissionEntry(
  "YARN ReservationSystem's GreedyReservationAgent as an admission test",
  (a) => createYarnGreedy(a),
  { earliestDeadline: true },
);
