import { createRtmrPolicy, type RtmrOptionsInput, type RtmrPolicy } from '../rtmr/policy';

/**
 * `fifo-all`: Hadoop's FIFO, which accepts everything (the papers' utilisation yardstick). Jobs
 * are still placed on the vectors in FIFO order so each answer carries an estimated finish,
 * but nothing is ever refused.
 */
export function fifoAll(args: Omit<RtmrOptionsInput, 'order' | 'acceptAll' | 'feedback'>): RtmrPolicy {
  return createRtmrPolicy('fifo-all', { ...args, order: 'fifo', feedback: true, acceptAll: true });
}
