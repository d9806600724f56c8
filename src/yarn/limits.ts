/**
 * Limits on what an answer of the RM or the JobHistory server may hold, as it is read.
 */

const MiB = 1024 * 1024;

/**
 * Deepest nesting of arrays and objects (JSON) or elements (XML) read from an answer. The RM's
 * deepest is the scheduler's queue tree: 17 levels for a root with leaves, 3 more per level of
 * queues, so 128 holds a hierarchy 38 queues deep. Checked as the text arrives, before anything
 * walks the tree (a walk of a tree nested 100,000 deep overflows the stack).
 */
export const MAX_ANSWER_DEPTH = 128;

/** Thrown by a list reader past its limit of items; the transport makes it RM_RESPONSE_TOO_LARGE. */
export class TooManyItems extends Error {
  constructor(readonly items: number) {
    super(`more than ${items - 1} items`);
  }
}

/** The limit of items a list reader holds to (none: unbounded). */
export interface ItemLimit {
  maxItems: number;
}

/** Counts one more item; throws TooManyItems past the limit. */
export function countItem(limit: ItemLimit | undefined, count: number): void {
  if (limit !== undefined && count > limit.maxItems) throw new TooManyItems(count);
}

/**
 * Characters of one item of a list answer (one app, node, task) read item by item, and of a
 * list answer not in the RM's list shape: an app whose resource requests name thousands of hosts
 * is a few MB; past this it is no RM's, and is not held whole.
 */
export const MAX_ITEM_CHARS = 16 * MiB;

/** Thrown by a list reader for an item past MAX_ITEM_CHARS; the transport makes it RM_RESPONSE_TOO_LARGE. */
export class TooLargeItem extends Error {
  constructor(readonly chars: number) {
    super(`one item of ${chars} characters`);
  }
}
