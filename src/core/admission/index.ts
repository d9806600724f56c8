export * from './types';
export { rtmr, rtmrNoFeedback, rtmrFifo } from './rtmr';
export type {
  RtmrPolicy,
  RtmrOptions,
  RtmrOptionsInput,
  RtmrState,
  ClusterSnapshot,
  QueuedJobSnapshot,
} from './rtmr';
export { vectorsAfter, vectorsBefore } from './rtmr';
export { fifoAll } from './fifo-all';
export {
  dispatchNext,
  nextMapTask,
  nextReduceTask,
  nextContainerTask,
  type DispatchJobView,
  type DispatchChoice,
} from './dispatch';
export { replay, type ReplayJob, type ReplayOutcome, type ReplayResult } from './replay';
export { DEADLINE_HORIZON_SECONDS, searchEarliestDeadline } from './earliest';
export {
  dc,
  dcPlan,
  dcNextTask,
  dcReduceSlots,
  DC_DEFAULTS,
  type DcDispatchJob,
  type DcOptions,
  type DcState,
} from './dc';
