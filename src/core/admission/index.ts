export * from './common/types';
export { rtmr } from './rtmr';
export { rtmrNoFeedback } from './rtmr-no-feedback';
export { rtmrFifo } from './rtmr-fifo';
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
} from './common/dispatch';
export { replay, type ReplayJob, type ReplayOutcome, type ReplayResult } from './common/replay';
export { DEADLINE_HORIZON_SECONDS, searchEarliestDeadline } from './common/earliest';
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
