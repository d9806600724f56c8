export * from './model';
export { literalPlace, satu } from './literal';
export {
  RunLane,
  RunLanes,
  batchFromSorted,
  valueHash,
  applySteps,
  type Batch,
  type Fill,
  type Step,
} from './fast';
