import { admissionEntry, fromArgs } from '../../policy-entry';
import { ADMIT_ALL } from '../rtmr/capabilities';
import { createRtmrPolicy, type RtmrOptionsInput, type RtmrPolicy } from '../rtmr/policy';

/**
 * `fifo-all`: Hadoop's FIFO, which accepts everything (the papers' utilisation yardstick). Jobs
 * are still placed on the vectors in FIFO order so each answer carries an estimated finish,
 * but nothing is ever refused.
 */
export function fifoAll(args: Omit<RtmrOptionsInput, 'order' | 'acceptAll' | 'feedback'>): RtmrPolicy {
  return createRtmrPolicy('fifo-all', { ...args, order: 'fifo', feedback: true, acceptAll: true });
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'fifo-all';
export const entry = admissionEntry('admit every job, FIFO, with estimated finish times', fromArgs(fifoAll), {
  ...ADMIT_ALL,
  queueOrder: 'arrival',
});
