/**
 * Hadoop's HTTP authentication, as a real RM 3.4.3 answered (hadoop.http.authentication.type=
 * simple, simple.anonymous.allowed=false against a stock configuration): every RM, AM proxy
 * and JobHistory call without a user is 401 with Jetty's error page, whose body follows the
 * method and Accept; `user.name` or the `hadoop.auth` cookie it sets lets the call through.
 */
import { jettyErrorPage, signToken } from '../../src/emulator/auth';
import { call } from './raw';
import { defaultEmulatorConfig, harness, type Harness } from './helpers';

const C = '/ws/v1/cluster';
const SLEEP = { 'am-container-spec': { commands: { command: 'sleep 300' } } };

describe('auth: simple (anonymous not allowed)', () => {
  let h: Harness;
  let url: string;
  beforeAll(async () => {
    h = await harness({ config: defaultEmulatorConfig({ auth: 'simple' }) });
    url = h.emu.url;
  });
  afterAll(() => h.emu.close());

  it('answers 401 to an anonymous read, with PseudoAuth, the cookie cleared and Jetty JSON', async () => {
    const r = await call(`${url}${C}/apps`, 'GET', { accept: 'application/json' });
    expect([r.status, r.statusText]).toEqual([401, 'Authentication required']);
    expect(r.headers.get('www-authenticate')).toBe('PseudoAuth');
    expect(r.headers.get('set-cookie')).toBe('hadoop.auth=; Path=/; HttpOnly');
    expect(r.headers.get('cache-control')).toBe('must-revalidate,no-cache,no-store');
    expect(r.headers.get('content-type')).toBe('application/json');
    // Jetty's JSON error page: one member a line, every value a string.
    expect(r.text).toMatch(
      /^\{\n"servlet":"org\.apache\.hadoop\.http\.WebServlet-[0-9a-f]{8}",\n"message":"Authentication required",\n"url":"\/ws\/v1\/cluster\/apps",\n"status":"401"\n\}$/,
    );
  });

  it.each([
    ['GET', undefined, 'text/html;charset=iso-8859-1', /<h2>HTTP ERROR 401 Authentication required<\/h2>/],
    ['GET', 'text/plain', 'text/plain;charset=iso-8859-1', /^HTTP ERROR 401 Authentication required\nURI: /],
    ['GET', 'application/xml', null, /^$/],
    ['GET', 'text/plain;q=0.5, application/json;q=0.9', 'application/json', /"status":"401"/],
    ['POST', 'application/json', 'application/json', /"message":"Authentication required"/],
    ['PUT', 'application/json', null, /^$/],
    ['DELETE', 'application/json', null, /^$/],
  ] as const)('%s with Accept %s: Content-Type %s', async (method, accept, type, body) => {
    const r = await call(`${url}${C}/apps/application_1_1/state`, method, {
      accept,
      body: method === 'GET' || method === 'DELETE' ? undefined : { state: 'KILLED' },
    });
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toBe(type);
    expect(r.text).toMatch(body);
  });

  it('lets every anonymous write through to nothing: the app is not created', async () => {
    const id = (await call(`${url}${C}/apps/new-application?user.name=alice`, 'POST')).json<
      Record<string, string>
    >()['application-id']!;
    expect((await call(`${url}${C}/apps`, 'POST', { body: { 'application-id': id, ...SLEEP } })).status).toBe(
      401,
    );
    expect((await call(`${url}${C}/apps/${id}?user.name=alice`, 'GET')).status).toBe(404);
  });

  it('accepts user.name, sets a signed cookie of type simple, and runs the app as that user', async () => {
    const n = await call(`${url}${C}/apps/new-application?user.name=alice`, 'POST');
    expect(n.status).toBe(200);
    const cookie = n.headers.get('set-cookie')!;
    expect(cookie).toMatch(
      /^hadoop\.auth="u=alice&p=alice&t=simple&e=\d+&s=[A-Za-z0-9+/=]+"; Path=\/; HttpOnly$/,
    );
    // Valid 10 hours from the emulated clock.
    expect(Number(/&e=(\d+)/.exec(cookie)![1])).toBe(h.emu.time.nowEpochMs() + 36_000_000);
    const id = n.json<Record<string, string>>()['application-id']!;
    const s = await call(`${url}${C}/apps?user.name=alice`, 'POST', {
      body: { 'application-id': id, ...SLEEP },
    });
    expect(s.status).toBe(202);
    // The cookie alone authenticates, as the user it names; no new cookie is set.
    const value = cookie.split(';')[0]!;
    const app = await call(`${url}${C}/apps/${id}`, 'GET', { cookie: value });
    expect(app.status).toBe(200);
    expect(app.headers.get('set-cookie')).toBeNull();
    expect(app.json<{ app: { user: string } }>().app.user).toBe('alice');
    // A cookie wins over a user.name given beside it.
    const killed = await call(`${url}${C}/apps/${id}/state?user.name=bob`, 'PUT', {
      cookie: value,
      body: { state: 'KILLED' },
    });
    expect(killed.status).toBe(202);
    h.advance(1);
    expect(
      (await call(`${url}${C}/apps/${id}?user.name=x`, 'GET')).json<{ app: { diagnostics: string } }>().app
        .diagnostics,
    ).toBe(`Application ${id} was killed by user alice`);
  });

  it('refuses a cookie it did not sign, naming the signer exception, unless user.name is given', async () => {
    const forged = `hadoop.auth="${signToken(Buffer.from('not the secret'), 'eve', 'simple', 9e15)}"`;
    const r = await call(`${url}${C}/info`, 'GET', { cookie: forged, accept: 'application/json' });
    const message = 'org.apache.hadoop.security.authentication.util.SignerException: Invalid signature';
    expect([r.status, r.statusText]).toEqual([401, message]);
    expect(r.json<{ message: string }>().message).toBe(message);
    const ok = await call(`${url}${C}/info?user.name=carol`, 'GET', { cookie: forged });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('set-cookie')).toMatch(/^hadoop\.auth="u=carol&/);
  });

  it('guards the AM proxy and /isActive as Jetty does, servlets named proxy and isActive', async () => {
    const p = await call(`${url}/proxy/application_1_1/ws/v1/mapreduce/jobs`, 'GET', {
      accept: 'application/json',
    });
    expect(p.status).toBe(401);
    expect(p.json<{ servlet: string }>().servlet).toBe('proxy');
    const a = await call(`${url}/isActive`, 'GET', { accept: 'application/json' });
    expect(a.status).toBe(401);
    expect(a.json<{ servlet: string }>().servlet).toBe('isActive');
    expect((await call(`${url}/isActive?user.name=x`, 'GET')).text).toBe('I am Active!');
  });

  it('guards the JobHistory server too', async () => {
    const r = await call(`${h.emu.jhsUrl}/ws/v1/history/mapreduce/jobs`, 'GET', {
      accept: 'application/json',
    });
    expect(r.status).toBe(401);
    expect(r.json<{ url: string }>().url).toBe('/ws/v1/history/mapreduce/jobs');
    expect((await call(`${h.emu.jhsUrl}/ws/v1/history/mapreduce/jobs?user.name=x`, 'GET')).status).toBe(200);
  });

  it('leaves the test controls and WebHDFS (the NameNode has its own filter) open', async () => {
    expect((await call(`${url}/_emulator/state`, 'GET')).status).toBe(200);
    expect((await call(`${url}/webhdfs/v1/?op=LISTSTATUS`, 'GET')).status).toBe(200);
  });

  it('answers an empty user.name with Jetty 500 in both modes', async () => {
    const r = await call(`${url}${C}/info?user.name=`, 'GET', { accept: 'application/json' });
    expect([r.status, r.statusText]).toEqual([
      500,
      "java.lang.IllegalArgumentException: userName is NULL, empty or contains a '&'",
    ]);
    expect(r.json()).toMatchObject({
      cause0: 'java.lang.IllegalArgumentException: userName is NULL, empty or contains a &apos;&amp;&apos;',
      status: '500',
    });
  });

  it('says simple in the delegation-token refusal and in /conf', async () => {
    const d = await call(`${url}${C}/delegation-token?user.name=x`, 'POST', { body: { renewer: 'x' } });
    expect(d.status).toBe(403);
    expect(d.text).toMatch(/got type simple$/);
    const conf = await call(
      `${url}/conf?name=hadoop.http.authentication.simple.anonymous.allowed&user.name=x`,
      'GET',
      {
        accept: 'application/json',
      },
    );
    expect(conf.json()).toEqual({
      property: {
        key: 'hadoop.http.authentication.simple.anonymous.allowed',
        value: 'false',
        isFinal: false,
        resource: 'core-site.xml',
      },
    });
  });
});

describe('auth: none (a stock RM)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(() => h.emu.close());

  it('accepts anonymous writes and runs the app as dr.who, with no cookie', async () => {
    const url = h.emu.url;
    const n = await call(`${url}${C}/apps/new-application`, 'POST');
    expect(n.headers.get('set-cookie')).toBeNull();
    const id = n.json<Record<string, string>>()['application-id']!;
    expect((await call(`${url}${C}/apps`, 'POST', { body: { 'application-id': id, ...SLEEP } })).status).toBe(
      202,
    );
    expect((await call(`${url}${C}/apps/${id}`, 'GET')).json<{ app: { user: string } }>().app.user).toBe(
      'dr.who',
    );
  });

  it('honours user.name all the same, with the RM filter’s cookie of type simple-dt', async () => {
    const url = h.emu.url;
    const n = await call(`${url}${C}/apps/new-application?user.name=alice`, 'POST');
    expect(n.headers.get('set-cookie')).toMatch(/^hadoop\.auth="u=alice&p=alice&t=simple-dt&e=\d+&s=/);
    const id = n.json<Record<string, string>>()['application-id']!;
    await call(`${url}${C}/apps?user.name=alice`, 'POST', { body: { 'application-id': id, ...SLEEP } });
    expect((await call(`${url}${C}/apps/${id}`, 'GET')).json<{ app: { user: string } }>().app.user).toBe(
      'alice',
    );
    // The JobHistory server has no such filter: no cookie there.
    expect(
      (await call(`${h.emu.jhsUrl}/ws/v1/history?user.name=alice`, 'GET')).headers.get('set-cookie'),
    ).toBeNull();
  });

  it('says null in the delegation-token refusal', async () => {
    const d = await call(`${h.emu.url}${C}/delegation-token`, 'POST', { body: { renewer: 'x' } });
    expect([d.status, d.headers.get('content-type')]).toEqual([403, 'application/json;charset=utf-8']);
    expect(d.text).toBe(
      'Delegation token operations can only be carried out on a Kerberos authenticated channel. Expected auth type is kerberos, got type null',
    );
  });
});

describe("Jetty's error page", () => {
  const err = { status: 401, message: 'Authentication required' };
  const S = 'org.apache.hadoop.http.WebServlet-6999cd39';

  it('is byte for byte the page a real RM 3.4.3 sent', () => {
    expect(jettyErrorPage('GET', '*/*', '/ws/v1/cluster/apps', S, err)).toEqual({
      contentType: 'text/html;charset=iso-8859-1',
      body:
        '<html>\n<head>\n<meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1"/>\n' +
        '<title>Error 401 Authentication required</title>\n</head>\n' +
        '<body><h2>HTTP ERROR 401 Authentication required</h2>\n<table>\n' +
        '<tr><th>URI:</th><td>/ws/v1/cluster/apps</td></tr>\n<tr><th>STATUS:</th><td>401</td></tr>\n' +
        '<tr><th>MESSAGE:</th><td>Authentication required</td></tr>\n' +
        `<tr><th>SERVLET:</th><td>${S}</td></tr>\n</table>\n\n</body>\n</html>\n`,
    });
    // 458 and 161 bytes, as measured; 140 for the JSON one.
    expect(jettyErrorPage('GET', undefined, '/ws/v1/cluster/apps', S, err)!.body).toHaveLength(458);
    expect(jettyErrorPage('GET', 'text/plain', '/ws/v1/cluster/apps', S, err)!.body).toHaveLength(161);
    expect(jettyErrorPage('GET', 'application/json', '/ws/v1/cluster/apps', S, err)!.body).toHaveLength(140);
  });

  it('has no body for XML, application/*, text/xml, or a PUT', () => {
    for (const accept of ['application/xml', 'application/*', 'text/xml', 'application/xml, text/xml;q=0.9'])
      expect(jettyErrorPage('GET', accept, '/x', S, err)).toBeUndefined();
    expect(jettyErrorPage('PUT', 'application/json', '/x', S, err)).toBeUndefined();
    expect(jettyErrorPage('GET', 'text/*', '/x', S, err)!.contentType).toBe('text/html;charset=iso-8859-1');
    expect(jettyErrorPage('GET', 'text/json', '/x', S, err)!.contentType).toBe('text/json');
  });
});
