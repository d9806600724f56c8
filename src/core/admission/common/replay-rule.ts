import type { SlotModel } from '../../slots/model';
import { dispatchNext, type DispatchChoice, type DispatchJobView } from './dispatch';

/** A dispatch rule the replay can run (the reservation rule by default; a variant in tests). */
export type DispatchRule = (
  model: SlotModel,
  lane: number,
  queue: readonly DispatchJobView[],
  free: number,
) => DispatchChoice | null;

export function dispatchDispatchable(
  rule: DispatchRule | undefined,
  model: SlotModel,
  lane: number,
  queue: readonly DispatchJobView[],
  free: number,
): DispatchChoice | null {
  return (rule ?? dispatchNext)(model, lane, queue, free);
}
