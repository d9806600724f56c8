import { mapBlockLocations } from './mapping';
import type { BlockLocation } from './model';
import { HttpTransport, withUrl, type TransportOptions } from './transport';

/**
 * WebHDFS block locations, for data locality. Uses the public `GETFILEBLOCKLOCATIONS`, not the
 * private `GET_BLOCK_LOCATIONS` (INDEX.md section 12). WebHDFS answers JSON only.
 */
export class WebHdfsClient {
  readonly transport: HttpTransport;

  constructor(options: TransportOptions | HttpTransport) {
    this.transport =
      options instanceof HttpTransport
        ? options
        : new HttpTransport({ component: 'webhdfs-client', haDetection: false, ...options, format: 'json' });
  }

  /** Blocks of `path` (absolute HDFS path), optionally only those in [offset, offset+length). */
  async blockLocations(
    path: string,
    range: { offset?: number; length?: number } = {},
  ): Promise<BlockLocation[]> {
    if (!path.startsWith('/')) throw new RangeError(`HDFS path must be absolute: ${JSON.stringify(path)}`);
    const encoded = path
      .split('/')
      .map((p) => encodeURIComponent(p))
      .join('/');
    const { tree, res } = await this.transport.sendForTree({
      method: 'GET',
      path: `/webhdfs/v1${encoded}`,
      query: { op: 'GETFILEBLOCKLOCATIONS', offset: range.offset, length: range.length },
      format: 'json',
    });
    try {
      return mapBlockLocations(tree);
    } catch (err) {
      throw withUrl(err, res.url);
    }
  }
}
