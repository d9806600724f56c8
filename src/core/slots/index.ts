export * from './model';
export { literalPlace, satu } from './literal';
export { waterFill, applyDelta, applySteps, VectorCursor, type Step } from './fast';
