/**
 * A cluster of its own with simple web authentication and anonymous requests refused
 * (--auth simple): every RM, JHS and WebHDFS request without ?user.name= is a 401, reads too.
 */
import { startHadoop, type RunningHadoop } from '../../hadoop/launch';
import { at, http, read, submitSleeper } from './cluster';

let hadoop: RunningHadoop;

beforeAll(async () => {
  hadoop = await startHadoop({ auth: 'simple' });
}, 300_000);

afterAll(async () => {
  await hadoop?.stop();
});

describe('--auth simple', () => {
  const endpoints = (): Array<[string, string]> => [
    ['RM cluster info', `${hadoop.info.rm}/ws/v1/cluster/info`],
    ['RM apps', `${hadoop.info.rm}/ws/v1/cluster/apps`],
    ['JHS info', `${hadoop.info.jhs}/ws/v1/history/info`],
    ['WebHDFS', `${hadoop.info.webhdfs}/webhdfs/v1/?op=GETFILESTATUS`],
  ];

  it('is reported in the ready line', () => {
    expect(hadoop.info.auth).toBe('simple');
  });

  it('refuses every read without user.name (401) and answers it with one (200)', async () => {
    for (const [what, url] of endpoints()) {
      const anonymous = await http(url);
      expect([what, anonymous.status]).toEqual([what, 401]);
      expect(anonymous.location).toBeNull();
      const alice = await http(url, { user: 'alice' });
      expect([what, alice.status]).toEqual([what, 200]);
    }
  });

  it('says why in JSON when asked for JSON', async () => {
    const a = await http(`${hadoop.info.rm}/ws/v1/cluster/info`);
    expect(a.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(a.text)).toMatchObject({ message: 'Authentication required', status: '401' });
  });

  it('refuses a write without user.name, and runs an app as the user named', async () => {
    const anonymous = await http(`${hadoop.info.rm}/ws/v1/cluster/apps/new-application`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    const id = await submitSleeper(hadoop.info.rm, { user: 'alice', queue: 'besteffort' });
    const app = await read(`${hadoop.info.rm}/ws/v1/cluster/apps/${id}`, 'json', 'alice');
    expect(at(app, 'app.user')).toBe('alice');
    expect(at(app, 'app.queue')).toBe('root.besteffort');
  });
});
