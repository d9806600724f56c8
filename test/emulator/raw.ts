/** Raw HTTP for the tests that assert the RM's exact answers: status line, headers, body. */
export interface RawAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
  /** The body as JSON (throws when it is not). */
  json<T = Record<string, unknown>>(): T;
}

export interface RawOptions {
  body?: unknown;
  /** Content-Type of the body; JSON by default. */
  contentType?: string;
  /** Accept; none sent when undefined (fetch then sends `*` + `/*`). */
  accept?: string;
  cookie?: string;
}

export async function call(url: string, method: string, o: RawOptions = {}): Promise<RawAnswer> {
  const headers: Record<string, string> = {};
  if (o.accept !== undefined) headers.accept = o.accept;
  if (o.cookie !== undefined) headers.cookie = o.cookie;
  let body: string | undefined;
  if (o.body !== undefined) {
    headers['content-type'] = o.contentType ?? 'application/json';
    body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
  }
  const res = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  return {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
    text,
    json: <T>() => JSON.parse(text) as T,
  };
}

const CLUSTER = '/ws/v1/cluster';

/** An RM's app endpoints over raw HTTP: new ids, submissions, reports, states and PUTs. */
export function rawRm<App>(url: string) {
  const newId = async (): Promise<string> =>
    (await call(`${url}${CLUSTER}/apps/new-application`, 'POST')).json<Record<string, string>>()[
      'application-id'
    ]!;
  /** POST /apps with the context (and a new id unless it names one); the answer beside the id. */
  const submit = async (ctx: Record<string, unknown>, query = '') => {
    const id = (ctx['application-id'] as string | undefined) ?? (await newId());
    const r = await call(`${url}${CLUSTER}/apps${query}`, 'POST', { body: { 'application-id': id, ...ctx } });
    return { id, r };
  };
  const app = async (id: string) =>
    (await call(`${url}${CLUSTER}/apps/${id}`, 'GET')).json<{ app: App }>().app;
  const state = async (id: string) =>
    (await call(`${url}${CLUSTER}/apps/${id}/state`, 'GET')).json<{ state: string }>().state;
  const put = (id: string, what: string, body: unknown, accept?: string, contentType?: string) =>
    call(`${url}${CLUSTER}/apps/${id}/${what}`, 'PUT', { body, accept, contentType });
  return { url, newId, submit, app, state, put };
}
