import type { JobRecord } from '../store/ledger';

/** Escape text for HTML element content and attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function time(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

function reasonText(job: JobRecord): string {
  const r = job.reason as { message?: string } | null;
  return r?.message ?? '';
}

/**
 * The plain page at `/`: admitted and rejected jobs, newest first, server-rendered with no
 * script. Every user-supplied value goes through escapeHtml.
 */
export function renderJobsPage(jobs: readonly JobRecord[], nowMs: number): string {
  const rows = jobs
    .map(
      (j) => `<tr class="${escapeHtml(j.decision)}">
  <td><a href="/api/v1/jobs/${encodeURIComponent(j.id)}">${escapeHtml(j.id)}</a></td>
  <td>${escapeHtml(j.name)}</td><td>${escapeHtml(j.user)}</td>
  <td>${escapeHtml(j.decision)}</td><td>${escapeHtml(j.state)}</td><td>${escapeHtml(j.outcome ?? '')}</td>
  <td>${escapeHtml(time(j.deadlineMs))}</td><td>${escapeHtml(time(j.estimatedFinishMs))}</td>
  <td>${escapeHtml(time(j.finishedMs))}</td><td>${escapeHtml(j.queue ?? '')}</td><td>${escapeHtml(j.label ?? '')}</td>
  <td>${escapeHtml(reasonText(j))}${j.earliestDeadlineMs !== null ? ` (earliest admissible: ${escapeHtml(time(j.earliestDeadlineMs))})` : ''}</td>
</tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>yarn-sched-sidecar: jobs</title>
<meta http-equiv="refresh" content="5">
<style>body{font-family:system-ui,sans-serif;margin:1.5rem}table{border-collapse:collapse}td,th{padding:.25rem .5rem;border-bottom:1px solid #ddd;text-align:left;font-size:.9rem}tr.rejected{color:#8a1c1c}</style>
</head><body>
<h1>Deadline jobs</h1>
<p>${jobs.length} most recent jobs at ${escapeHtml(time(nowMs))}. JSON: <a href="/api/v1/jobs">/api/v1/jobs</a>, <a href="/api/v1/cluster">/api/v1/cluster</a>, <a href="/metrics">/metrics</a>.</p>
<table><thead><tr><th>id</th><th>name</th><th>user</th><th>decision</th><th>state</th><th>outcome</th><th>deadline</th><th>estimated finish</th><th>finished</th><th>queue</th><th>label</th><th>reason</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}
