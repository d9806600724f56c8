import { mapBlockLocations, mapFileStatus, mapFileStatuses } from './mapping';
import type { BlockLocation, FileStatus } from './model';
import type { Tree } from './format';
import { HttpTransport, withUrl, type TransportOptions } from './transport';

/**
 * WebHDFS reads for data locality: `GETFILESTATUS`, `LISTSTATUS` and the public
 * `GETFILEBLOCKLOCATIONS`, not the private `GET_BLOCK_LOCATIONS` (INDEX.md section 12). WebHDFS
 * answers JSON only. A missing path answers 404 with a `FileNotFoundException` RemoteException,
 * which the transport raises as RmRemoteError.
 */
export class WebHdfsClient {
  readonly transport: HttpTransport;

  constructor(options: TransportOptions | HttpTransport) {
    this.transport =
      options instanceof HttpTransport
        ? options
        : new HttpTransport({
            component: 'webhdfs-client',
            service: 'NameNode',
            haDetection: false,
            ...options,
            format: 'json',
          });
  }

  private async get<T>(
    path: string,
    op: string,
    map: (tree: Tree) => T,
    extra: Record<string, number | undefined> = {},
  ): Promise<T> {
    if (!path.startsWith('/')) throw new RangeError(`HDFS path must be absolute: ${JSON.stringify(path)}`);
    const encoded = path
      .split('/')
      .map((p) => encodeURIComponent(p))
      .join('/');
    const { tree, res } = await this.transport.sendForTree({
      method: 'GET',
      path: `/webhdfs/v1${encoded}`,
      query: { op, ...extra },
      format: 'json',
    });
    try {
      return map(tree);
    } catch (err) {
      throw withUrl(err, res.url);
    }
  }

  /** The status of one path (a file or a directory). */
  fileStatus(path: string): Promise<FileStatus> {
    return this.get(path, 'GETFILESTATUS', mapFileStatus);
  }

  /** A directory's entries, one level; for a file, one entry with an empty `pathSuffix`. */
  listStatus(path: string): Promise<FileStatus[]> {
    return this.get(path, 'LISTSTATUS', mapFileStatuses);
  }

  /** Blocks of `path` (absolute HDFS path), optionally only those in [offset, offset+length). */
  blockLocations(path: string, range: { offset?: number; length?: number } = {}): Promise<BlockLocation[]> {
    return this.get(path, 'GETFILEBLOCKLOCATIONS', mapBlockLocations, {
      offset: range.offset,
      length: range.length,
    });
  }
}
