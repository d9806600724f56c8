import { admissionEntry, fromArgs } from '../../policy-entry';
import { ADMIT_ALL } from '../rtmr/capabilities';
import { createRtmrPolicy, type RtmrOptionsInput, type RtmrPolicy } from '../rtmr/policy';

type Args = Omit<RtmrOptionsInput, 'order' | 'acceptAll' | 'feedback'>;

/**
 * `edf-all`: every job admitted, the queue in EDF order (earliest absolute deadline first), a
 * baseline with no admission control. Jobs are placed on the slot vectors in that order, so an
 * answer still carries an estimated finish, and placement serves the queue in EDF order; nothing
 * is refused and no deadline is promised. Beside `fifo-all` it separates what EDF order alone
 * gives from what RTMR's admission test adds.
 */
export function edfAll(args: Args): RtmrPolicy {
  return createRtmrPolicy('edf-all', { ...args, order: 'edf', feedback: true, acceptAll: true });
}

/**
 * Its name and registration (src/core/registry.ts, one line): what it needs and offers. It admits
 * all (no deadline promised), serves its own EDF queue, and rebuilds its vectors from a snapshot
 * with feedback as RTMR does; it has no dispatcher of its own.
 */
export const name = 'edf-all';
export const entry = admissionEntry(
  'admit every job, EDF order, with estimated finish times (a baseline without admission control)',
  fromArgs(edfAll),
  { ...ADMIT_ALL, queueOrder: 'policy' },
);
