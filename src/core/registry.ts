import { ValidationError } from '../errors/validation';
import { dc, fifoAll, rtmr, rtmrFifo, rtmrNoFeedback, type AdmissionPolicy } from './admission';
import { createYarnGreedy } from './admission/yarn-greedy';
import type { EnergyProfile } from './energy/profile';
import { createAsrpt } from './placement/asrpt';
import { createDelay } from './placement/delay';
import { createEfh } from './placement/efh';
import { createEfhNoAe } from './placement/efh-no-ae';
import { createFairDelay } from './placement/fair-delay';
import { createFairMatchmaking } from './placement/fair-matchmaking';
import { createFifo } from './placement/fifo';
import { createIdealEnergy } from './placement/ideal-energy';
import { createJobSize } from './placement/job-size';
import { createMatchmaking } from './placement/matchmaking';
import type { PlacementPolicy } from './placement/types';

/** What a factory may need besides its own arguments: values validated elsewhere at start. */
export interface PolicyContext {
  readonly energyProfile?: EnergyProfile;
}

export type PolicyKind = 'placement' | 'admission';

export interface PolicyEntry<P> {
  readonly description: string;
  /** Builds the policy from its raw arguments, validating them (a ValidationError names each bad field). */
  readonly create: (args: unknown, ctx: PolicyContext) => P;
}

export type PlacementEntry = PolicyEntry<PlacementPolicy<unknown>>;

/**
 * Every placement policy, by the name configuration and the simulator use. Written out here,
 * one line each, rather than filled in by importing modules.
 */
export const placementEntries: Readonly<Record<string, PlacementEntry>> = Object.freeze({
  fifo: entry('Hadoop FIFO: local tasks of the first job, else one non-local task per heartbeat', (a) =>
    createFifo(a),
  ),
  delay: entry('delay scheduling (skip a job without a local task for up to D) on FIFO order', (a) =>
    createDelay(a),
  ),
  matchmaking: entry('matchmaking with locality markers on FIFO order (seed 004 Alg. 1-2)', (a) =>
    createMatchmaking(a),
  ),
  'fair-delay': entry('delay scheduling on fair-share order', (a) => createFairDelay(a)),
  'fair-matchmaking': entry('matchmaking on fair-share order', (a) => createFairMatchmaking(a)),
  efh: entry(
    'EFH energy-efficient two-level scheduler with adaptive execution (seed 004 Tables 6.2, 6.4)',
    (a, c) => createEfh(a, c),
  ),
  'efh-no-ae': entry('EFH without adaptive execution (seed 004 Tables 6.3, 6.4)', (a, c) =>
    createEfhNoAe(a, c),
  ),
  'ideal-energy': entry(
    'every map task on its least-energy container type only (seed 004 section 6.3.3.3)',
    (a, c) => createIdealEnergy(a, c),
  ),
  asrpt: entry('available shortest remaining processing time (seed 003 Alg. 1)', (a) => createAsrpt(a)),
  'job-size': entry('job-size based two-tier scheduler (seed 002)', (a) => createJobSize(a)),
});

export interface PolicyRegistry<A = unknown> {
  readonly placement: Readonly<Record<string, PlacementEntry>>;
  readonly admission: Readonly<Record<string, PolicyEntry<A>>>;
  names(kind: PolicyKind): string[];
  createPlacement(name: string, args?: unknown, ctx?: PolicyContext): PlacementPolicy<unknown>;
  createAdmission(name: string, args?: unknown, ctx?: PolicyContext): A;
}

/**
 * Builds the registry: the placement policies above plus the admission policies given.
 * The admission core (src/core/admission) adds its entries with one line each in
 * `defaultRegistry` below, e.g. `rtmr: entry('...', (a) => createRtmr(a))`.
 */
export function buildRegistry<A = unknown>(
  admission: Readonly<Record<string, PolicyEntry<A>>> = {},
  placement: Readonly<Record<string, PlacementEntry>> = placementEntries,
): PolicyRegistry<A> {
  const clash = Object.keys(admission).filter((n) => n in placement);
  if (clash.length > 0) {
    throw new ValidationError(
      clash.map((n) => ({ path: `registry.${n}`, message: 'named both as placement and admission policy' })),
    );
  }
  const frozenAdmission = Object.freeze({ ...admission });
  const frozenPlacement = Object.freeze({ ...placement });

  function lookup<P>(
    kind: PolicyKind,
    table: Readonly<Record<string, PolicyEntry<P>>>,
    name: string,
  ): PolicyEntry<P> {
    if (Object.prototype.hasOwnProperty.call(table, name)) return table[name];
    const other = kind === 'placement' ? frozenAdmission : frozenPlacement;
    const hint = Object.prototype.hasOwnProperty.call(other, name)
      ? ` ("${name}" is ${kind === 'placement' ? 'an admission' : 'a placement'} policy)`
      : '';
    const known = Object.keys(table).sort();
    throw new ValidationError([
      {
        path: `${kind}.policy`,
        message: `unknown ${kind} policy "${name}"${hint}; known: ${known.length > 0 ? known.join(', ') : '(none registered)'}`,
      },
    ]);
  }

  return Object.freeze({
    placement: frozenPlacement,
    admission: frozenAdmission,
    names: (kind: PolicyKind) => Object.keys(kind === 'placement' ? frozenPlacement : frozenAdmission).sort(),
    createPlacement: (name: string, args: unknown = {}, ctx: PolicyContext = {}) =>
      lookup('placement', frozenPlacement, name).create(args, ctx),
    createAdmission: (name: string, args: unknown = {}, ctx: PolicyContext = {}) =>
      lookup('admission', frozenAdmission, name).create(args, ctx),
  });
}

/** Admission policies as the registry sees them: their state type is the policy's own business. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each policy threads its own state type
export type AnyAdmissionPolicy = AdmissionPolicy<any>;

/**
 * The admission policies of src/core/admission, one line each. Each factory validates its own
 * arguments (a ValidationError names each bad field).
 */
export const admissionEntries: Readonly<Record<string, PolicyEntry<AnyAdmissionPolicy>>> = Object.freeze({
  rtmr: entry('RTMR: EDF admission on slot vectors, with feedback (seed 000)', (a) =>
    rtmr(a as Parameters<typeof rtmr>[0]),
  ),
  'rtmr-no-feedback': entry('RTMR without the feedback controller', (a) =>
    rtmrNoFeedback(a as Parameters<typeof rtmrNoFeedback>[0]),
  ),
  dc: entry('Deadline Constraint scheduler, a baseline (seed 001)', (a) => dc(a as Parameters<typeof dc>[0])),
  'rtmr-fifo': entry('RTMR admission on a FIFO queue instead of EDF', (a) =>
    rtmrFifo(a as Parameters<typeof rtmrFifo>[0]),
  ),
  'fifo-all': entry('admit every job, FIFO, with estimated finish times', (a) =>
    fifoAll(a as Parameters<typeof fifoAll>[0]),
  ),
  'yarn-greedy': entry("YARN ReservationSystem's GreedyReservationAgent as an admission test", (a) =>
    createYarnGreedy(a),
  ),
});

/** The registry the sidecar and the simulator start with: every placement and admission policy. */
export function defaultRegistry(): PolicyRegistry<AnyAdmissionPolicy> {
  return buildRegistry(admissionEntries);
}

export function entry<P>(
  description: string,
  create: (args: unknown, ctx: PolicyContext) => P,
): PolicyEntry<P> {
  return Object.freeze({ description, create });
}
