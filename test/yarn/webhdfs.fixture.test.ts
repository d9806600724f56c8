import { startFixtureServer, type FixtureServer } from '../fixture-server/server';
import { RmRemoteError } from '../../src/errors/rm-remote';
import { WebHdfsClient } from '../../src/yarn/webhdfs';

describe("WebHDFS GETFILESTATUS and LISTSTATUS against Hadoop's samples", () => {
  let server: FixtureServer;
  let hdfs: WebHdfsClient;
  beforeAll(async () => {
    server = await startFixtureServer();
    hdfs = new WebHdfsClient({ urls: [server.url], user: 'hdfs', maxAttempts: 1 });
  });
  afterAll(() => server.close());

  it('reads the GETFILESTATUS sample (a directory) and sends op and user.name', async () => {
    expect(await hdfs.fileStatus('/user/alice')).toEqual({
      pathSuffix: '',
      type: 'DIRECTORY',
      length: 0,
      blockSize: 0,
      replication: 0,
      modificationTime: 1320173277227,
    });
    const req = server.requests[server.requests.length - 1]!;
    expect(req.path).toBe('/webhdfs/v1/user/alice');
    expect(req.query).toMatchObject({ op: 'GETFILESTATUS', 'user.name': 'hdfs' });
  });

  it('reads the LISTSTATUS sample: a file and a directory, always an array', async () => {
    const entries = await hdfs.listStatus('/foo');
    expect(entries.map((e) => [e.pathSuffix, e.type, e.length, e.blockSize, e.replication])).toEqual([
      ['a.patch', 'FILE', 24930, 33554432, 1],
      ['bar', 'DIRECTORY', 0, 0, 0],
    ]);
    expect(server.requests[server.requests.length - 1]!.query.op).toBe('LISTSTATUS');
  });

  it('turns a 404 FileNotFoundException into a typed error for every read', async () => {
    for (const read of [
      () => hdfs.fileStatus('/missing/x'),
      () => hdfs.listStatus('/missing/x'),
      () => hdfs.blockLocations('/missing/x'),
    ]) {
      const err = await read().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmRemoteError);
      expect(err).toMatchObject({ status: 404, exception: 'FileNotFoundException' });
    }
  });

  it('refuses a relative path before any call', async () => {
    const before = server.requests.length;
    await expect(hdfs.listStatus('rel/path')).rejects.toThrow(RangeError);
    expect(server.requests.length).toBe(before);
  });
});
