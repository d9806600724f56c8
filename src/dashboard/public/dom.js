// @ts-check
/*
 * The few DOM helpers every view uses. Every value reaches the page through textContent, an
 * attribute or a form control's value, never through markup.
 */

/**
 * The element with this id; the page's HTML holds every id the modules ask for, so a missing
 * one is a mistake in the page and fails here, naming it.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function $(id) {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no element #${id}`);
  return found;
}

/**
 * An element of a given kind by id (a table, a select, an input), checked.
 * @template {HTMLElement} T
 * @param {string} id @param {new () => T} kind
 * @returns {T}
 */
export function $as(id, kind) {
  const found = $(id);
  if (!(found instanceof kind)) throw new Error(`#${id} is not a ${kind.name}`);
  return found;
}

/** @param {string} id */
export const table = (id) => $as(id, HTMLTableElement);

/**
 * A table's body: the page's HTML gives each table one.
 * @param {string} id
 */
export function tbodyOf(id) {
  const body = table(id).tBodies[0];
  if (!body) throw new Error(`#${id} has no body`);
  return body;
}

/**
 * A new element with its text and class.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {unknown} [textValue] @param {string} [className]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function node(tag, textValue, className) {
  const n = document.createElement(tag);
  if (textValue !== undefined && textValue !== null) n.textContent = String(textValue);
  if (className) n.className = className;
  return n;
}

/** @param {Node} n */
export function clear(n) {
  while (n.firstChild) n.removeChild(n.firstChild);
}

/**
 * A table body's one row saying why it is empty, across every column.
 * @param {HTMLTableSectionElement} tbody @param {string} message
 */
export function emptyRow(tbody, message) {
  const tr = document.createElement('tr');
  const td = node('td', message, 'empty');
  const head = tbody.parentElement instanceof HTMLTableElement ? tbody.parentElement.tHead : null;
  td.colSpan = head && head.rows[0] ? head.rows[0].cells.length : 1;
  tr.appendChild(td);
  tbody.appendChild(tr);
}

/** @param {string} id @param {unknown} value */
export function setText(id, value) {
  $(id).textContent = value === null || value === undefined ? '' : String(value);
}

/** @param {unknown} textValue @param {string} href @param {string} [className] */
export function link(textValue, href, className) {
  const a = node('a', textValue, className);
  a.href = href;
  return a;
}

/**
 * A link to another site (the RM's own page of an app), opened apart and told nothing of this one.
 * @param {string} textValue @param {string} href @param {string} className
 */
export function outsideLink(textValue, href, className) {
  const a = link(textValue, href, className);
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  return a;
}

/**
 * A value as a class name only when it is one of the names the stylesheet knows.
 * @param {unknown} value @param {readonly string[]} allowed
 */
export function safeClass(value, allowed) {
  return typeof value === 'string' && allowed.includes(value) ? value : '';
}

/**
 * A header cell: [text, tooltip, class].
 * @typedef {[text: string, title?: string, className?: string]} Head
 */

/**
 * A table's header row, and its column widths when `widths` are given (a fixed layout): the
 * page's HTML holds only each table's body.
 * @param {string} tableId @param {readonly Head[]} heads @param {readonly string[]} [widths]
 */
export function buildHead(tableId, heads, widths) {
  const t = table(tableId);
  if (widths) {
    const group = document.createElement('colgroup');
    for (const w of widths) {
      const col = document.createElement('col');
      if (w) col.className = w;
      group.appendChild(col);
    }
    t.insertBefore(group, t.firstChild);
  }
  const tr = document.createElement('tr');
  for (const [text, title, cls] of heads) {
    const th = node('th', text, cls || undefined);
    if (title) th.title = title;
    tr.appendChild(th);
  }
  t.insertBefore(document.createElement('thead'), t.tBodies[0] || null).appendChild(tr);
}

/**
 * A cell per [key, text, raw value]: data-k names it, data-value holds the number behind the
 * text (for the tests and for a reader of the page's source).
 * @param {HTMLTableRowElement} tr @param {ReadonlyArray<[string, string, unknown]>} cells
 */
export function keyedCells(tr, cells) {
  for (const [k, textValue, raw] of cells) {
    const td = node('td', textValue);
    td.dataset.k = k;
    if (typeof raw === 'number' && Number.isFinite(raw)) td.dataset.value = String(raw);
    tr.appendChild(td);
  }
}

/**
 * A term and its value in a definition list; an empty value is left out.
 * @param {HTMLElement} dl @param {string} key @param {unknown} value
 */
export function field(dl, key, value) {
  if (value === null || value === undefined || value === '') return;
  const pair = document.createElement('div');
  pair.appendChild(node('dt', key));
  pair.appendChild(node('dd', value));
  dl.appendChild(pair);
}

/**
 * A JSON value folded under a summary; null when there is none.
 * @param {string} summary @param {unknown} value
 */
export function jsonDetails(summary, value) {
  if (value === null || value === undefined) return null;
  const d = document.createElement('details');
  d.appendChild(node('summary', summary));
  d.appendChild(node('pre', JSON.stringify(value, null, 2)));
  return d;
}

/**
 * The element an event happened in (a table row, a chart's bar) that matches `selector`.
 * @param {Event} ev @param {string} selector
 * @returns {HTMLElement | SVGElement | null}
 */
export function closestTo(ev, selector) {
  const target = ev.target;
  const found = target instanceof Element ? target.closest(selector) : null;
  return found instanceof HTMLElement || found instanceof SVGElement ? found : null;
}
