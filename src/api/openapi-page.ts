import { createHash } from 'node:crypto';

/**
 * /api/v1/docs: the OpenAPI document as an HTML reference, rendered on the server from the
 * document itself (operations with their security, parameters, request body and every answer;
 * then the schemas with their fields), so it needs no script, no CDN and nothing from outside.
 * One inline style sheet, allowed by its hash in the page's content security policy.
 */

/** The parts of an OpenAPI 3.1 document the page reads. */
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: boolean | Schema;
  description?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Answer {
  description?: string;
  content?: Record<string, { schema?: Schema }>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, Answer>;
}
export interface OpenApiLike {
  info: { title: string; version: string; description?: string };
  servers?: Array<{ url: string; description?: string }>;
  security?: Array<Record<string, string[]>>;
  components?: {
    securitySchemes?: Record<string, { type: string; scheme?: string; description?: string }>;
    schemas?: Record<string, Schema>;
  };
  paths: Record<string, Partial<Record<string, Operation>>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const DOCS_STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1rem 1.5rem;color:#1b1f24}
h1{margin-bottom:.2rem}h2{margin-top:2.2rem;border-bottom:1px solid #d0d7de}h3{margin:1.6rem 0 .3rem;font-size:1.05rem}
code{font:13px ui-monospace,monospace;background:#f3f4f6;padding:0 .25rem;border-radius:3px}
.m{display:inline-block;min-width:4.2rem;font:600 12px ui-monospace,monospace;color:#fff;background:#0a5ea8;border-radius:3px;padding:.1rem .4rem;text-align:center}
.m-post{background:#1a7f37}.m-delete{background:#b42318}.m-put,.m-patch{background:#9a6700}
table{border-collapse:collapse;width:100%;margin:.4rem 0}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}td{overflow-wrap:break-word}td code{white-space:nowrap}.muted{color:#57606a}nav ul{columns:2}`;

/** The page's content security policy: nothing but its own inline style sheet, by hash. */
export const DOCS_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(DOCS_STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const esc = (v: unknown): string =>
  String(v).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const anchor = (kind: string, name: string) => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** A schema in one line: `Job`, `array of string`, `"cpu" | "gpu"`, `integer (0 to 100)`. */
export function typeText(s: Schema | undefined): string {
  if (!s) return 'any';
  if (s.$ref) {
    const name = s.$ref.replace('#/components/schemas/', '');
    return `<a href="#${anchor('schema', name)}">${esc(name)}</a>`;
  }
  if (s.const !== undefined) return `<code>${esc(JSON.stringify(s.const))}</code>`;
  if (s.enum) return s.enum.map((v) => `<code>${esc(JSON.stringify(v))}</code>`).join(' | ');
  const union = s.anyOf ?? s.oneOf;
  if (union) return union.map(typeText).join(' | ');
  if (s.allOf) return s.allOf.map(typeText).join(' &amp; ');
  const type = Array.isArray(s.type) ? s.type.join(' | ') : s.type;
  if (type === 'array') return `array of ${typeText(s.items)}`;
  if (type === 'object' && !s.properties && s.additionalProperties && s.additionalProperties !== true)
    return `map of ${typeText(s.additionalProperties)}`;
  return esc(type ?? 'any') + bounds(s);
}

function bounds(s: Schema): string {
  const parts: string[] = [];
  if (s.format) parts.push(s.format);
  const range = (lo: number | undefined, hi: number | undefined, unit: string) => {
    if (lo !== undefined && hi !== undefined) parts.push(`${lo} to ${hi}${unit}`);
    else if (lo !== undefined) parts.push(`at least ${lo}${unit}`);
    else if (hi !== undefined) parts.push(`at most ${hi}${unit}`);
  };
  range(s.minimum, s.maximum, '');
  range(s.minLength, s.maxLength, ' characters');
  range(s.minItems, s.maxItems, ' items');
  if (s.pattern) parts.push(`matching ${s.pattern}`);
  return parts.length ? ` <span class="muted">(${esc(parts.join(', '))})</span>` : '';
}

function securityText(doc: OpenApiLike, op: Operation): string {
  const sec = op.security ?? doc.security ?? [];
  if (sec.length === 0) return 'open';
  const each = sec.map((r) => (Object.keys(r).length === 0 ? 'none' : Object.keys(r).join(' + ')));
  if (each.every((e) => e === 'none')) return 'open';
  return each.includes('none')
    ? `${each.filter((e) => e !== 'none').join(', ')} when configured (auth.protectReads), else open`
    : `${each.join(' or ')} token required`;
}

const bodySchemas = (content: Record<string, { schema?: Schema }> | undefined): string =>
  Object.entries(content ?? {})
    .map(([type, c]) => `<code>${esc(type)}</code> ${typeText(c.schema)}`)
    .join('<br>');

function operationHtml(doc: OpenApiLike, path: string, method: string, op: Operation): string {
  const id = op.operationId ?? `${method}-${path}`;
  const out = [
    `<h3 id="${anchor('op', id)}"><span class="m m-${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code> ${esc(op.summary ?? '')}</h3>`,
    `<p class="muted">operationId <code>${esc(id)}</code>; security: ${esc(securityText(doc, op))}</p>`,
  ];
  if (op.description) out.push(`<p>${esc(op.description)}</p>`);
  if (op.parameters?.length) {
    out.push(
      '<table><tr><th>parameter</th><th>in</th><th>type</th><th>required</th><th>description</th></tr>',
    );
    for (const p of op.parameters)
      out.push(
        `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${typeText(p.schema)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${esc(p.description ?? '')}</td></tr>`,
      );
    out.push('</table>');
  }
  if (op.requestBody)
    out.push(
      `<p><b>Request body</b>${op.requestBody.required ? ' (required)' : ''}: ${bodySchemas(op.requestBody.content)}${op.requestBody.description ? ` ${esc(op.requestBody.description)}` : ''}</p>`,
    );
  out.push('<table><tr><th>status</th><th>answer</th><th>body</th></tr>');
  for (const [status, a] of Object.entries(op.responses ?? {}))
    out.push(
      `<tr><td><code>${esc(status)}</code></td><td>${esc(a.description ?? '')}</td><td>${bodySchemas(a.content)}</td></tr>`,
    );
  out.push('</table>');
  return out.join('\n');
}

function schemaHtml(name: string, s: Schema): string {
  const out = [`<h3 id="${anchor('schema', name)}">${esc(name)}</h3>`];
  if (s.description) out.push(`<p>${esc(s.description)}</p>`);
  if (s.properties) {
    const required = new Set(s.required ?? []);
    out.push('<table><tr><th>field</th><th>type</th><th>required</th><th>description</th></tr>');
    for (const [field, f] of Object.entries(s.properties))
      out.push(
        `<tr><td><code>${esc(field)}</code></td><td>${typeText(f)}</td><td>${required.has(field) ? 'yes' : 'no'}</td><td>${esc(f.description ?? '')}</td></tr>`,
      );
    out.push('</table>');
  } else out.push(`<p>${typeText(s)}</p>`);
  return out.join('\n');
}

/**
 * The whole page for an OpenAPI 3.1 document. It is read as JSON data: the generated document's
 * schemas are typed loosely (zod's JSON Schema output), the shape above is what the page uses.
 */
export function renderOpenApiPage(document: object): string {
  const doc = document as OpenApiLike;
  const ops: Array<[string, string, Operation]> = [];
  for (const [path, item] of Object.entries(doc.paths))
    for (const m of METHODS) if (item[m]) ops.push([path, m, item[m]]);
  const schemas = Object.entries(doc.components?.schemas ?? {});
  const schemes = Object.entries(doc.components?.securitySchemes ?? {});
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} API ${esc(doc.info.version)}</title><style>${DOCS_STYLE}</style></head>
<body>
<h1>${esc(doc.info.title)} API <span class="muted">version ${esc(doc.info.version)}</span></h1>
<p>${esc(doc.info.description ?? '')}</p>
<p>Machine-readable: <a href="openapi.json">openapi.json</a> (OpenAPI ${esc((doc as { openapi?: string }).openapi ?? '')}).
Servers: ${(doc.servers ?? []).map((s) => `<code>${esc(s.url)}</code> ${esc(s.description ?? '')}`).join('; ')}.</p>
${schemes.map(([n, s]) => `<p>Security scheme <code>${esc(n)}</code>: ${esc(s.type)}${s.scheme ? ` ${esc(s.scheme)}` : ''}; ${esc(s.description ?? '')}</p>`).join('\n')}
<nav><h2>Operations</h2><ul>
${ops.map(([path, m, op]) => `<li><a href="#${anchor('op', op.operationId ?? `${m}-${path}`)}">${m.toUpperCase()} ${esc(path)}</a></li>`).join('\n')}
</ul></nav>
${ops.map(([path, m, op]) => operationHtml(doc, path, m, op)).join('\n')}
<h2>Schemas</h2>
${schemas.map(([n, s]) => schemaHtml(n, s)).join('\n')}
</body></html>
`;
}
