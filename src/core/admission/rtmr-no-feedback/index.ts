import { admissionEntry, fromArgs } from '../../policy-entry';
import type { RtmrFamilyArgs } from '../rtmr';
import { ON_EDF_VECTORS } from '../rtmr/capabilities';
import { createRtmrPolicy, type RtmrPolicy } from '../rtmr/policy';

/** `rtmr-no-feedback`: EDF queue, vectors changed only by admissions ("RTMR w/o feedback" in He et al., RTMR, Tables V-VI). */
export function rtmrNoFeedback(args: RtmrFamilyArgs): RtmrPolicy {
  return createRtmrPolicy('rtmr-no-feedback', { ...args, order: 'edf', feedback: false });
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'rtmr-no-feedback';
export const entry = admissionEntry('RTMR without the feedback controller', fromArgs(rtmrNoFeedback), {
  ...ON_EDF_VECTORS,
  feedback: false,
});
