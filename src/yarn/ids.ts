/**
 * Identifier rules the RM and the MapReduce JobHistory server share (INDEX.md section 12).
 */

const APP_ID = /^application_(\d+)_(\d+)$/;

/**
 * The MapReduce job id of a YARN application: the AM builds its one job id from its own
 * application id, so `application_1429692837321_0001` → `job_1429692837321_0001`.
 */
export function appIdToJobId(appId: string): string {
  const m = APP_ID.exec(appId);
  if (!m) throw new RangeError(`not a YARN application id: ${JSON.stringify(appId)}`);
  return `job_${m[1]}_${m[2]}`;
}

/** The leaf name of a queue given by name or full path: `root.a.b` → `b`. */
export function queueLeaf(queue: string): string {
  const i = queue.lastIndexOf('.');
  return i < 0 ? queue : queue.slice(i + 1);
}

/**
 * Whether the queue the RM reports is the queue that was asked for. The RM may answer with the
 * full path (`root.test` for a request of `test`, TestRMWebServicesAppsModification), so compare
 * full paths when both are paths, else leaf names (INDEX.md 9.1).
 */
export function sameQueue(requested: string, reported: string): boolean {
  if (requested === reported) return true;
  if (requested.includes('.') && reported.includes('.')) return false;
  return queueLeaf(requested) === queueLeaf(reported);
}
