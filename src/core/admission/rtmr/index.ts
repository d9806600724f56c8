import { createRtmrPolicy, type RtmrOptionsInput, type RtmrPolicy } from './policy';

export type { RtmrPolicy, RtmrOptions, RtmrOptionsInput } from './policy';
export { RTMR_DEFAULTS, validateRtmrOptions } from './policy';
export * from './state';

type Args = Omit<RtmrOptionsInput, 'order' | 'feedback' | 'acceptAll'>;

/** `rtmr`: EDF queue, with the feedback controller ("RTMR" in He et al., RTMR, Tables V-VI). */
export function rtmr(args: Args & { feedback?: boolean }): RtmrPolicy {
  return createRtmrPolicy('rtmr', { ...args, order: 'edf', feedback: args.feedback ?? true });
}
/** `rtmr-no-feedback`: EDF queue, vectors changed only by admissions ("RTMR w/o feedback" in He et al., RTMR, Tables V-VI). */
export function rtmrNoFeedback(args: Args): RtmrPolicy {
  return createRtmrPolicy('rtmr-no-feedback', { ...args, order: 'edf', feedback: false });
}
/** `rtmr-fifo`: the same admission test over a FIFO queue (He et al., RTMR, IV.B: any fixed order). */
export function rtmrFifo(args: Args & { feedback?: boolean }): RtmrPolicy {
  return createRtmrPolicy('rtmr-fifo', { ...args, order: 'fifo', feedback: args.feedback ?? true });
}
