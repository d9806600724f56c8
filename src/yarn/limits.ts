/**
 * The limits on what one answer of the RM or the JobHistory server may weigh, per endpoint, and
 * on how deeply it may nest. Each is sized from what a real RM (3.4.3, as the emulated RM answers)
 * sends at the largest cluster docs/performance.md measures (50,000 apps, 10,000 nodes), with
 * room to spare: an answer past its limit is not an RM's answer at that size, and reading it
 * would only cost memory and time. docs/security.md ("What the RM sends") gives the figures.
 */

/** The endpoints with a limit of their own (`rm.responseLimits.<endpoint>`). */
export const ENDPOINTS = [
  'info',
  'metrics',
  'conf',
  'nodeLabels',
  'scheduler',
  'nodes',
  'apps',
  'app',
  'jobs',
  'tasks',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export interface EndpointLimit {
  /** Bytes of the answer, counted after decompression as they arrive. */
  maxBytes: number;
  /** Items of a list answer (nodes, apps, jobs, tasks), counted as they are read. */
  maxItems?: number;
}

export type ResponseLimits = Record<Endpoint, EndpointLimit>;

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Measured per item on the emulated RM (JSON / XML): a node 1.9 / 2.9 KB; a running app 4.5 /
 * 7 KB with every member, 1.1 / 1.7 KB with the sidecar's deSelects; a finished task 0.24 / 0.32
 * KB; a job summary 0.35 / 0.5 KB; a queue of the scheduler about 6 / 9 KB. Whole answers:
 * cluster info 0.5 / 0.8 KB, metrics 0.5 / 0.9 KB, one /conf key 0.1 / 0.2 KB.
 */
export const DEFAULT_RESPONSE_LIMITS: Readonly<ResponseLimits> = Object.freeze({
  /** `/cluster/info`: under 1 KB on a real RM, whatever the cluster's size. */
  info: { maxBytes: 64 * KiB },
  /** `/cluster/metrics`: under 1 KB. */
  metrics: { maxBytes: 64 * KiB },
  /** `/conf?name=…`: one key, under 1 KB. */
  conf: { maxBytes: 64 * KiB },
  /** `/get-node-labels`, `/get-node-to-labels`, `/label-mappings`: 10,000 nodes' labels are 0.7 MB in XML. */
  nodeLabels: { maxBytes: 4 * MiB },
  /** `/cluster/scheduler`: about 9 KB a queue in XML; 32 MiB holds 3,500 queues. */
  scheduler: { maxBytes: 32 * MiB },
  /** `/cluster/nodes`: 10,000 nodes are 18 MiB in JSON, 28 MiB in XML. */
  nodes: { maxBytes: 48 * MiB, maxItems: 15_000 },
  /**
   * `/cluster/apps`: the sidecar reads the live apps (and new and followed ones), the live third
   * of 50,000 apps is about 17,000: 19 MB in JSON, 29 MB in XML with the deSelects the RM 3.4
   * applies (1.1 / 1.7 KB an app); an RM that ignores them sends 4.5 / 7 KB an app, and 64 MiB
   * holds 9,000 of those in XML.
   */
  apps: { maxBytes: 64 * MiB, maxItems: 25_000 },
  /** `/cluster/apps/{id}` and its members: one app, whose resource requests may list thousands of hosts. */
  app: { maxBytes: 16 * MiB },
  /** JobHistory `/jobs` and `/jobs/{id}`: the server keeps 20,000 jobs by default (9 MB of XML). */
  jobs: { maxBytes: 32 * MiB, maxItems: 50_000 },
  /** JobHistory's and a running AM's `/jobs/{id}/tasks` and below: 200,000 tasks are 65 MB in XML. */
  tasks: { maxBytes: 80 * MiB, maxItems: 200_000 },
});

/**
 * Deepest nesting of arrays and objects (JSON) or elements (XML) read from an answer. The RM's
 * deepest is the scheduler's queue tree: 17 levels for a root with leaves, 3 more per level of
 * queues, so 128 holds a hierarchy 38 queues deep. Checked as the text arrives, before anything
 * walks the tree (a walk of a tree nested 100,000 deep overflows the stack).
 */
export const MAX_ANSWER_DEPTH = 128;

/**
 * Time from an attempt's start (connection included) to the first byte of its answer, by
 * default. An RM that accepts the connection and says nothing is given up on then, not after
 * the attempt's or the call's whole time.
 */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 5_000;

/**
 * Past `rm.timeoutMs`, an attempt goes on while its answer keeps arriving at this rate or more
 * (bytes in the last second): a large answer on a slow link may use the whole call budget, a
 * body dripped a byte at a time may not.
 */
export const KEEPS_ARRIVING_BYTES_PER_SECOND = 64 * KiB;

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
