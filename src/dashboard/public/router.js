// @ts-check
/*
 * The view the address asks for: the jobs (the page's panels, #job=<id> with a job's panel
 * open) or the replays (#replays, #replay=<id>).
 */
import { $, tbodyOf } from './dom.js';
import { inReplays, refreshReplays, replayView } from './replays.js';
import { state } from './state.js';

/** The job the address opens (#job=<id>); null for none. */
export function jobInAddress() {
  const m = /^#job=(.+)$/.exec(window.location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}

/** Show the view the address asks for; the replays are read only while theirs is open. */
export function applyView() {
  const on = inReplays();
  const m = /^#replay=(.+)$/.exec(window.location.hash);
  replayView.selected = m ? decodeURIComponent(m[1]) : null;
  $('replays-view').hidden = !on || state.locked;
  $('content').hidden = on || state.locked;
  $('nav-jobs').classList.toggle('current', !on);
  $('nav-replays').classList.toggle('current', on);
  for (const tr of Array.from(tbodyOf('replays').rows))
    tr.classList.toggle('selected', tr.dataset.replayId === replayView.selected);
  if (on) void refreshReplays();
  else window.clearTimeout(replayView.timer);
}
