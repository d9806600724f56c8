import { admissionEntry, fromArgs } from '../../policy-entry';
import { feedbackArg, ON_EDF_VECTORS } from './capabilities';
import { createRtmrPolicy, type RtmrOptionsInput, type RtmrPolicy } from './policy';

export type { RtmrPolicy, RtmrOptions, RtmrOptionsInput } from './policy';
export { RTMR_DEFAULTS, validateRtmrOptions } from './policy';
export * from './state';

/** RTMR's options but those each policy of the family sets itself. */
export type RtmrFamilyArgs = Omit<RtmrOptionsInput, 'order' | 'feedback' | 'acceptAll'>;

/** `rtmr`: EDF queue, with the feedback controller ("RTMR" in He et al., RTMR, Tables V-VI). */
export function rtmr(args: RtmrFamilyArgs & { feedback?: boolean }): RtmrPolicy {
  return createRtmrPolicy('rtmr', { ...args, order: 'edf', feedback: args.feedback ?? true });
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'rtmr';
export const entry = admissionEntry(
  'RTMR: EDF admission on slot vectors, with feedback (He et al., RTMR)',
  fromArgs(rtmr),
  ON_EDF_VECTORS,
  feedbackArg,
);
