import type { HistoryJob } from '../../src/replay/history';

/**
 * A history job for the replay's tests: submitted at `submitS` (seconds from 1 Jan 2026), its
 * maps of the given seconds all starting after `setupS`, its reduces after the maps, then
 * `commitS`; a recurring name (`etl NNN`) unless told.
 */
export const T0 = Date.UTC(2026, 0, 1);

export function historyJob(
  id: number,
  o: {
    submitS: number;
    maps: number[];
    reduces?: number[];
    setupS?: number;
    commitS?: number;
    name?: string;
    user?: string;
    inputBytes?: number;
    taggedDeadlineS?: number;
  },
): HistoryJob {
  const submitMs = T0 + o.submitS * 1000;
  const start = submitMs + (o.setupS ?? 5) * 1000;
  const maps: number[] = [];
  let mapsEnd = start;
  for (const s of o.maps) {
    maps.push(start, start + s * 1000);
    mapsEnd = Math.max(mapsEnd, start + s * 1000);
  }
  const reduces: number[] = [];
  let last = mapsEnd;
  for (const s of o.reduces ?? []) {
    reduces.push(mapsEnd, mapsEnd + s * 1000);
    last = Math.max(last, mapsEnd + s * 1000);
  }
  const jobId = `job_1767225600000_${String(id).padStart(4, '0')}`;
  return {
    id: jobId,
    appId: jobId.replace('job_', 'application_'),
    name: o.name ?? `etl ${id}`,
    user: o.user ?? 'alice',
    queue: 'default',
    source: 'jobhistory',
    applicationType: 'MAPREDUCE',
    submitMs,
    finishMs: last + (o.commitS ?? 2) * 1000,
    maps,
    reduces,
    inputBytes: o.inputBytes ?? 64 * 1024 * 1024 * o.maps.length,
    mapBytes: null,
    shuffleBytes: null,
    jobType: 'cpu',
    ...(o.taggedDeadlineS !== undefined ? { taggedDeadlineMs: submitMs + o.taggedDeadlineS * 1000 } : {}),
  };
}
