package yss.hadoop;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * HDFS for the test cluster: a MiniDFSCluster (one NameNode, one DataNode, WebHDFS on) in a JVM
 * of its own. hdfs-site.xml and core-site.xml come from the conf folder first on the class
 * path; the NameNode's ports are given, the DataNode's are ephemeral.
 *
 * <p>Usage: DfsMain BASE_DIR NAMENODE_RPC_PORT NAMENODE_HTTP_PORT READY_FILE
 */
public final class DfsMain {
  private DfsMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: DfsMain BASE_DIR NAMENODE_RPC_PORT NAMENODE_HTTP_PORT READY_FILE");
      System.exit(2);
    }
    HdfsConfiguration conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, args[0]);
    MiniDFSCluster cluster =
        new MiniDFSCluster.Builder(conf)
            .numDataNodes(1)
            .nameNodePort(Integer.parseInt(args[1]))
            .nameNodeHttpPort(Integer.parseInt(args[2]))
            .format(true)
            .build();
    cluster.waitActive();
    cluster.waitClusterUp();
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::shutdown, "dfs-shutdown"));
    Path ready = Path.of(args[3]);
    Files.writeString(ready.resolveSibling(ready.getFileName() + ".tmp"), "up\n");
    Files.move(ready.resolveSibling(ready.getFileName() + ".tmp"), ready);
    // MiniDFSCluster's threads keep the JVM alive until SIGTERM or the launcher goes away.
  }
}
