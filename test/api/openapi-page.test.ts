/**
 * /api/v1/docs over real HTTP from a real sidecar: the OpenAPI document as an HTML reference
 * rendered on the server, every operation and schema of the document on it, with a content
 * security policy that allows its own style sheet and nothing else (no script, no CDN).
 */
import { createHash } from 'node:crypto';
import { buildConfig } from '../../src/config/load';
import { openApiDocument } from '../../src/api/openapi';
import { DOCS_CSP, renderOpenApiPage, typeText } from '../../src/api/openapi-page';
import { silentLogger } from '../../src/log';
import { startSidecar, type RunningSidecar } from '../../src/service/start';

describe('the API docs page', () => {
  let sidecar: RunningSidecar;
  let page: string;
  let res: Response;

  beforeAll(async () => {
    const config = buildConfig({
      // No poll runs: the page needs no RM.
      rm: { addresses: ['http://127.0.0.1:9'] },
      server: { port: 0, host: '127.0.0.1' },
      ledger: { path: ':memory:' },
      auth: { tokens: [{ name: 'ops', token: 'docs-token-0123456789abcdef' }], protectReads: true },
    });
    sidecar = await startSidecar(config, { logger: silentLogger(), manualPolling: true });
    res = await fetch(`${sidecar.url}/api/v1/docs`);
    page = await res.text();
  });
  afterAll(() => sidecar.close());

  it('is served as HTML, open to all (as the document it shows), with the page CSP', () => {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(DOCS_CSP);
    expect(DOCS_CSP).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(DOCS_CSP).not.toMatch(/script-src|unsafe|https?:/);
    // The one inline style sheet is the one the policy's hash allows; no script, nothing remote.
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)![1]!;
    expect(DOCS_CSP).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(page).not.toMatch(/<script|<link|src="https?:|href="https?:/);
  });

  it('shows every operation of the document with its id, security and every answer', () => {
    const paths = openApiDocument.paths as Record<
      string,
      Record<string, { operationId: string; responses: object }>
    >;
    let operations = 0;
    for (const [path, item] of Object.entries(paths))
      for (const [method, op] of Object.entries(item)) {
        operations++;
        const at = page.indexOf(`id="op-${op.operationId}"`);
        expect(at).toBeGreaterThan(0);
        const section = page.slice(at, page.indexOf('<h3', at + 1));
        expect(section).toContain(`${method.toUpperCase()}</span> <code>${path}</code>`);
        expect(section).toContain(`operationId <code>${op.operationId}</code>`);
        for (const status of Object.keys(op.responses))
          expect(section).toContain(`<td><code>${status}</code></td>`);
      }
    expect(operations).toBeGreaterThanOrEqual(14);
    expect(page).toContain('id="op-getApiDocs"');
  });

  it('shows the submission operation with its token, body and answers, linked to their schemas', () => {
    const at = page.indexOf('id="op-submitJob"');
    const section = page.slice(at, page.indexOf('<h3', at + 1));
    expect(section).toContain('security: bearer token required');
    expect(section).toMatch(
      /Request body<\/b> \(required\): <code>application\/json<\/code> <a href="#schema-Submission">Submission<\/a>/,
    );
    expect(section).toMatch(
      /<td><code>201<\/code><\/td><td>[^<]*admitted[^<]*<\/td><td><code>application\/json<\/code> <a href="#schema-Answer">Answer<\/a>/,
    );
    const reads = page.slice(page.indexOf('id="op-listJobs"'), page.indexOf('id="op-getJob"'));
    expect(reads).toContain('security: bearer when configured (auth.protectReads), else open');
    expect(reads).toMatch(
      /<code>limit<\/code><\/td><td>query<\/td><td>integer <span class="muted">\(1 to 1000\)<\/span><\/td><td>no<\/td>/,
    );
    expect(reads).toContain('<td><code>&quot;admitted&quot;</code> | <code>&quot;rejected&quot;</code></td>');
  });

  it('shows every schema with its fields, which are required and their types', () => {
    const schemas = openApiDocument.components.schemas as Record<
      string,
      { properties?: Record<string, unknown>; required?: string[] }
    >;
    for (const [name, s] of Object.entries(schemas)) {
      expect(page).toContain(`<h3 id="schema-${name}">${name}</h3>`);
      for (const field of Object.keys(s.properties ?? {}))
        expect(page).toContain(`<td><code>${field}</code></td>`);
    }
    const submission = page.slice(page.indexOf('id="schema-Submission"'));
    expect(submission).toMatch(
      /<td><code>jobType<\/code><\/td><td><code>&quot;cpu&quot;<\/code> \| <code>&quot;gpu&quot;<\/code> \| <code>&quot;adaptive&quot;<\/code>/,
    );
    expect(submission).toMatch(
      /<td><code>maps<\/code><\/td><td>integer[^<]*<span class="muted">\([^)]*\)<\/span><\/td><td>yes<\/td>/,
    );
  });

  it('writes types in one line and escapes what the document says', () => {
    expect(typeText({ type: 'array', items: { $ref: '#/components/schemas/Job' } })).toBe(
      'array of <a href="#schema-Job">Job</a>',
    );
    expect(typeText({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('string | null');
    expect(typeText({ type: 'object', additionalProperties: { type: 'number' } })).toBe('map of number');
    expect(typeText({ type: 'string', minLength: 1, maxLength: 8 })).toBe(
      'string <span class="muted">(1 to 8 characters)</span>',
    );
    const evil = renderOpenApiPage({
      openapi: '3.1.0',
      info: { title: '<script>x</script>', version: '1' },
      paths: { '/a': { get: { operationId: 'a', summary: '"><img>', responses: {} } } },
    });
    expect(evil).not.toContain('<script>x');
    expect(evil).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(evil).toContain('&quot;&gt;&lt;img&gt;');
  });
});
