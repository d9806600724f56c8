/**
 * The largest job the sidecar reads, wherever it comes from (the API, or an app's tags on the
 * RM), and how far ahead a deadline may lie. Everything the core computes from a job stays
 * finite and within what a JavaScript Date can show under these bounds.
 */
export const JOB_LIMITS = {
  /** Map tasks of one job. */
  maxMaps: 1_000_000,
  /** Reduce tasks of one job. */
  maxReduces: 100_000,
  /** Bytes of input of one job: 1 PiB (2^50). */
  maxInputBytes: 2 ** 50,
  /**
   * How far ahead a deadline may lie, seconds (366 days). The API refuses a later deadline;
   * the earliest-deadline search answers "none within" it instead of looking further.
   */
  deadlineHorizonSeconds: 366 * 24 * 3600,
} as const;
