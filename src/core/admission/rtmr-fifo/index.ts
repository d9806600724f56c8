import { admissionEntry, fromArgs } from '../../policy-entry';
import type { RtmrFamilyArgs } from '../rtmr';
import { feedbackArg, VECTORS } from '../rtmr/capabilities';
import { createRtmrPolicy, type RtmrPolicy } from '../rtmr/policy';

/** `rtmr-fifo`: the same admission test over a FIFO queue (He et al., RTMR, IV.B: any fixed order). */
export function rtmrFifo(args: RtmrFamilyArgs & { feedback?: boolean }): RtmrPolicy {
  return createRtmrPolicy('rtmr-fifo', { ...args, order: 'fifo', feedback: args.feedback ?? true });
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'rtmr-fifo';
export const entry = admissionEntry(
  'RTMR admission on a FIFO queue instead of EDF',
  fromArgs(rtmrFifo),
  VECTORS,
  feedbackArg,
);
