import { createHash } from 'node:crypto';
import type { JobView } from '../model/job-views';

const PAGE_STYLE =
  'body{font-family:system-ui,sans-serif;margin:1.5rem}table{border-collapse:collapse}td,th{padding:.25rem .5rem;border-bottom:1px solid #ddd;text-align:left;font-size:.9rem}tr.rejected{color:#8a1c1c}td.miss{color:#b3261e;font-weight:600}';

/** The plain page's policy: no script at all, and only its own inline style (by its hash). */
export const PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** Escape text for HTML element content and attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** An ISO time as the page shows it; anything else (absent, not a time) as empty. */
function time(iso: unknown): string {
  return typeof iso === 'string' ? iso.replace('.000Z', 'Z') : '';
}

/**
 * The predicted finish of a running job, or of an open one predicted to miss, with the miss
 * said in words; empty for the others (their estimate or actual finish says it).
 */
function predictedCell(j: Partial<JobView>): string {
  if (j.state !== 'running' && j.predictedMiss !== true) return '<td></td>';
  const at = escapeHtml(time(j.predictedFinish));
  return j.predictedMiss === true ? `<td class="miss">${at} (predicted to miss)</td>` : `<td>${at}</td>`;
}

function reasonText(job: Partial<JobView>): string {
  const message = (job.reason as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : '';
}

/**
 * The plain page at `/`: admitted and rejected jobs, newest first, server-rendered with no
 * script, from the same job views the read API answers with. Every value goes through
 * escapeHtml.
 */
export function renderJobsPage(jobs: ReadonlyArray<Partial<JobView>>, nowMs: number): string {
  const rows = jobs
    .map(
      (j) => `<tr class="${escapeHtml(j.decision)}">
  <td><a href="/api/v1/jobs/${encodeURIComponent(String(j.id ?? ''))}">${escapeHtml(j.id)}</a></td>
  <td>${escapeHtml(j.name)}</td><td>${escapeHtml(j.user)}</td>
  <td>${escapeHtml(j.decision)}</td><td>${escapeHtml(j.state)}</td><td>${escapeHtml(j.outcome ?? '')}</td>
  <td>${escapeHtml(time(j.deadline))}</td><td>${escapeHtml(time(j.estimatedFinish))}</td>${predictedCell(j)}
  <td>${escapeHtml(time(j.finishedAt))}</td><td>${escapeHtml(j.queue ?? '')}</td><td>${escapeHtml(j.label ?? '')}</td>
  <td>${escapeHtml(reasonText(j))}${j.earliestAdmissibleDeadline ? ` (earliest admissible: ${escapeHtml(time(j.earliestAdmissibleDeadline))})` : ''}</td>
</tr>`,
    )
    .join('\n');
  const now = new Date(nowMs);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>yarn-sched-sidecar: jobs</title>
<meta http-equiv="refresh" content="5">
<style>${PAGE_STYLE}</style>
</head><body>
<h1>Deadline jobs</h1>
<p>${jobs.length} most recent jobs at ${escapeHtml(Number.isFinite(now.getTime()) ? time(now.toISOString()) : '')}. JSON: <a href="/api/v1/jobs">/api/v1/jobs</a>, <a href="/api/v1/cluster">/api/v1/cluster</a>, <a href="/metrics">/metrics</a>.</p>
<table><thead><tr><th>id</th><th>name</th><th>user</th><th>decision</th><th>state</th><th>outcome</th><th>deadline</th><th>estimated finish</th><th>predicted finish</th><th>finished</th><th>queue</th><th>label</th><th>reason</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}
