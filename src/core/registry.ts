import { ValidationError } from '../errors/validation';
import * as dc from './admission/dc';
import * as edfAll from './admission/edf-all';
import * as fifoAll from './admission/fifo-all';
import * as rtmr from './admission/rtmr';
import * as rtmrFifo from './admission/rtmr-fifo';
import * as rtmrNoFeedback from './admission/rtmr-no-feedback';
import * as yarnGreedy from './admission/yarn-greedy';
import * as asrpt from './placement/asrpt';
import * as delay from './placement/delay';
import * as efh from './placement/efh';
import * as efhNoAe from './placement/efh-no-ae';
import * as fairDelay from './placement/fair-delay';
import * as fairMatchmaking from './placement/fair-matchmaking';
import * as fifo from './placement/fifo';
import * as idealEnergy from './placement/ideal-energy';
import * as jobSize from './placement/job-size';
import * as matchmaking from './placement/matchmaking';
import type {
  AdmissionCapabilities,
  AdmissionEntry,
  AnyAdmissionPolicy,
  PlacementCapabilities,
  PlacementEntry,
  PolicyContext,
  PolicyEntry,
  PolicyKind,
} from './policy-entry';
import type { PlacementPolicy } from './placement/common/types';

/**
 * The policy registry. Each policy's folder (src/core/admission/<name>, src/core/placement/<name>)
 * exports its `name` and its `entry` (src/core/policy-entry.ts), as a Kubernetes scheduler plugin
 * exports its Name and New; the tables below list them, one line each. Drivers ask the registry
 * what a policy needs and offers, never what it is called.
 */

const ADMISSION_DEFAULTS: AdmissionCapabilities = Object.freeze({
  arrivalOrderTwin: null,
  promisesDeadlines: true,
  queueOrder: 'policy',
  dispatch: null,
  args: 'estimates',
  snapshotRebuild: false,
  feedback: false,
  earliestDeadline: false,
  reservations: false,
  reducesAtOnce: false,
});

const PLACEMENT_DEFAULTS: PlacementCapabilities = Object.freeze({
  energyProfile: false,
  partitionRanking: 'given',
  adaptiveExecution: true,
});

/** Every placement policy, by the name configuration and the simulator use. */
export const placementEntries: Readonly<Record<string, PlacementEntry>> = Object.freeze({
  [fifo.name]: fifo.entry,
  [delay.name]: delay.entry,
  [matchmaking.name]: matchmaking.entry,
  [fairDelay.name]: fairDelay.entry,
  [fairMatchmaking.name]: fairMatchmaking.entry,
  [efh.name]: efh.entry,
  [efhNoAe.name]: efhNoAe.entry,
  [idealEnergy.name]: idealEnergy.entry,
  [asrpt.name]: asrpt.entry,
  [jobSize.name]: jobSize.entry,
});

export interface PolicyRegistry<A = unknown> {
  readonly placement: Readonly<Record<string, PlacementEntry>>;
  readonly admission: Readonly<Record<string, AdmissionEntry<A>>>;
  names(kind: PolicyKind): string[];
  /**
   * What the admission policy `name` needs and offers (an unknown name is a ValidationError);
   * with its arguments, as they configure it (RTMR with `feedback: false` has no feedback).
   */
  admissionCapabilities(name: string, args?: unknown): AdmissionCapabilities;
  /** What the placement policy `name` needs and offers (an unknown name is a ValidationError). */
  placementCapabilities(name: string): PlacementCapabilities;
  createPlacement(name: string, args?: unknown, ctx?: PolicyContext): PlacementPolicy<unknown>;
  createAdmission(name: string, args?: unknown, ctx?: PolicyContext): A;
}

/**
 * Builds the registry: the placement policies above plus the admission policies given
 * (`admissionEntries` below for the sidecar and the simulator).
 */
export function buildRegistry<A = unknown>(
  admission: Readonly<Record<string, AdmissionEntry<A>>> = {},
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

  function lookup<P, C>(
    kind: PolicyKind,
    table: Readonly<Record<string, PolicyEntry<P, C>>>,
    name: string,
  ): PolicyEntry<P, C> {
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
    admissionCapabilities: (name: string, args?: unknown) => {
      const e = lookup('admission', frozenAdmission, name);
      return {
        ...ADMISSION_DEFAULTS,
        ...e.capabilities,
        ...(args === undefined ? {} : e.capabilitiesOf?.(args)),
      };
    },
    placementCapabilities: (name: string) => ({
      ...PLACEMENT_DEFAULTS,
      ...lookup('placement', frozenPlacement, name).capabilities,
    }),
  });
}

/** Every admission policy of src/core/admission, by the name configuration and the simulator use. */
export const admissionEntries: Readonly<Record<string, AdmissionEntry>> = Object.freeze({
  [rtmr.name]: rtmr.entry,
  [rtmrNoFeedback.name]: rtmrNoFeedback.entry,
  [dc.name]: dc.entry,
  [rtmrFifo.name]: rtmrFifo.entry,
  [fifoAll.name]: fifoAll.entry,
  [edfAll.name]: edfAll.entry,
  [yarnGreedy.name]: yarnGreedy.entry,
});

/** The registry the sidecar and the simulator start with: every placement and admission policy. */
export function defaultRegistry(): PolicyRegistry<AnyAdmissionPolicy> {
  return buildRegistry(admissionEntries);
}
