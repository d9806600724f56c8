import type { AdmissionCapabilities } from '../../policy-entry';

/** RTMR and the policies built on its slot vectors (createRtmrPolicy). */
export const VECTORS: Partial<AdmissionCapabilities> = Object.freeze({
  dispatch: 'reservation',
  snapshotRebuild: true,
  feedback: true,
  earliestDeadline: true,
  reservations: true,
});

/** RTMR's EDF queue: where YARN cannot be given that order, the same test on a FIFO queue. */
export const ON_EDF_VECTORS: Partial<AdmissionCapabilities> = Object.freeze({
  ...VECTORS,
  arrivalOrderTwin: 'rtmr-fifo',
});

/** Baselines that admit every job and only estimate its finish on the vectors. */
export const ADMIT_ALL: Partial<AdmissionCapabilities> = Object.freeze({
  promisesDeadlines: false,
  snapshotRebuild: true,
  feedback: true,
});

/** RTMR's feedback controller can be turned off by its arguments (`feedback: false`). */
export function feedbackArg(args: unknown): Partial<AdmissionCapabilities> {
  const off = typeof args === 'object' && args !== null && 'feedback' in args && args.feedback === false;
  return off ? { feedback: false } : {};
}
