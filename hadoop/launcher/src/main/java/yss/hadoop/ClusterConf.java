package yss.hadoop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The test cluster's ports, folders and Hadoop configuration, written as one conf folder per
 * daemon (conf/rm1, conf/nm1, ...) plus conf/client for clients such as SleepJob.
 *
 * <p>Queues and labels follow docker/hadoop/capacity-scheduler.xml (realtime 50 %, besteffort
 * 30 %, default 10 %, the reservable root.reserved 10 %; the exclusive partition gpu shared
 * 70/30 by realtime and besteffort).
 */
final class ClusterConf {
  static final int DEFAULT_NODE_MEMORY_MB = 16384;
  static final int DEFAULT_NODE_VCORES = 16;
  /** The largest container, as in docker/ (4 GB, 4 vcores), never larger than a node. */
  static final int MAX_ALLOCATION_MB = 4096;
  static final int MAX_ALLOCATION_VCORES = 4;

  record Rm(String id, int rpc, int scheduler, int tracker, int admin, int web) {
    String webUrl() {
      return "http://127.0.0.1:" + web;
    }
  }

  record Nm(String name, int rpc, int localizer, int web, int shuffle, String label) {}

  final Options opts;
  final Path work;
  final Path jar;
  final Path libDir;
  final String user = System.getProperty("user.name");
  final int nnRpc;
  final int nnHttp;
  final int zk;
  final int jhsRpc;
  final int jhsWeb;
  final int jhsAdmin;
  final List<Rm> rms = new ArrayList<>();
  final List<Nm> nms = new ArrayList<>();

  ClusterConf(Options opts, Path work, Path jar) throws IOException {
    this.opts = opts;
    this.work = work;
    this.jar = jar;
    this.libDir = jar.resolveSibling("lib");
    int rmCount = opts.ha ? 2 : 1;
    int[] p = Ports.free(6 + rmCount * 5 + 2 * 4);
    int i = 0;
    nnRpc = p[i++];
    nnHttp = p[i++];
    zk = p[i++];
    jhsRpc = p[i++];
    jhsWeb = p[i++];
    jhsAdmin = p[i++];
    for (int r = 1; r <= rmCount; r++) {
      rms.add(new Rm("rm" + r, p[i++], p[i++], p[i++], p[i++], p[i++]));
    }
    // The second NodeManager carries the exclusive label gpu, as nodemanager-gpu in docker/.
    nms.add(new Nm("nm1", p[i++], p[i++], p[i++], p[i++], null));
    nms.add(new Nm("nm2", p[i++], p[i++], p[i++], p[i++], "gpu"));
  }

  Path confDir(String daemon) {
    return work.resolve("conf").resolve(daemon);
  }

  Path logFile(String daemon) {
    return work.resolve("logs").resolve(daemon + ".log");
  }

  Path data(String name) {
    return work.resolve("data").resolve(name);
  }

  /** Jars for daemons, MapReduce containers and clients: the launcher jar and its lib folder. */
  String jarsClasspath() {
    return jar + ":" + libDir + "/*";
  }

  String nameNodeUri() {
    return "hdfs://127.0.0.1:" + nnRpc;
  }

  String jhsUrl() {
    return "http://127.0.0.1:" + jhsWeb;
  }

  String webHdfsUrl() {
    return "http://127.0.0.1:" + nnHttp;
  }

  void writeAll() throws IOException {
    Files.createDirectories(work.resolve("logs"));
    Files.createDirectories(data("node-labels"));
    Path secret = work.resolve("conf").resolve("http-signature-secret");
    Files.createDirectories(secret.getParent());
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    Files.writeString(secret, HexFormat.of().formatHex(bytes), StandardCharsets.US_ASCII);
    List<String> daemons = new ArrayList<>(List.of("client", "dfs", "jhs"));
    for (Rm rm : rms) daemons.add(rm.id());
    for (Nm nm : nms) {
      daemons.add(nm.name());
      Files.createDirectories(data(nm.name()).resolve("local"));
      Files.createDirectories(data(nm.name()).resolve("logs"));
    }
    for (String d : daemons) writeConfDir(d);
  }

  private void writeConfDir(String daemon) throws IOException {
    Path dir = confDir(daemon);
    Files.createDirectories(dir);
    Files.createDirectories(work.resolve("tmp").resolve(daemon));
    writeXml(dir.resolve("core-site.xml"), core(daemon));
    writeXml(dir.resolve("hdfs-site.xml"), hdfs());
    writeXml(dir.resolve("yarn-site.xml"), yarn(daemon));
    writeXml(dir.resolve("mapred-site.xml"), mapred(daemon));
    writeXml(dir.resolve("capacity-scheduler.xml"), capacityScheduler(opts.preemption != null, opts.realtimeCapacity));
    Files.writeString(
        dir.resolve("log4j.properties"),
        String.join(
            "\n",
            "# Daemons log to their standard error, which the launcher sends to logs/NAME.log.",
            "log4j.rootLogger=" + (daemon.equals("client") ? "WARN" : "INFO") + ",console",
            "log4j.appender.console=org.apache.log4j.ConsoleAppender",
            "log4j.appender.console.target=System.err",
            "log4j.appender.console.layout=org.apache.log4j.PatternLayout",
            "log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n",
            ""));
  }

  private Map<String, String> core(String daemon) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("fs.defaultFS", nameNodeUri());
    c.put("hadoop.tmp.dir", work.resolve("tmp").resolve(daemon).toString());
    c.put("hadoop.proxyuser." + user + ".hosts", "*");
    c.put("hadoop.proxyuser." + user + ".groups", "*");
    c.put("hadoop.http.authentication.signature.secret.file", work.resolve("conf/http-signature-secret").toString());
    if (opts.auth.equals("simple")) {
      // Every web request (reads too) needs ?user.name=; without it the answer is 401.
      c.put("hadoop.http.filter.initializers", "org.apache.hadoop.security.AuthenticationFilterInitializer");
      c.put("hadoop.http.authentication.type", "simple");
      c.put("hadoop.http.authentication.simple.anonymous.allowed", "false");
    }
    return c;
  }

  private Map<String, String> hdfs() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("dfs.replication", "1");
    c.put("dfs.permissions.enabled", "false");
    c.put("dfs.webhdfs.enabled", "true");
    c.put("dfs.namenode.rpc-address", "127.0.0.1:" + nnRpc);
    c.put("dfs.namenode.http-address", "127.0.0.1:" + nnHttp);
    return c;
  }

  private Map<String, String> yarn(String daemon) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("yarn.resourcemanager.hostname", "127.0.0.1");
    if (opts.ha) {
      c.put("yarn.resourcemanager.ha.enabled", "true");
      c.put("yarn.resourcemanager.ha.rm-ids", String.join(",", rms.stream().map(Rm::id).toList()));
      c.put("yarn.resourcemanager.cluster-id", "yss-test");
      c.put("yarn.resourcemanager.ha.automatic-failover.enabled", "true");
      c.put("yarn.resourcemanager.ha.automatic-failover.embedded", "true");
      // 3.4 reads hadoop.zk.*; 3.5.0's embedded elector insists on the older yarn.resourcemanager.zk-*.
      c.put("hadoop.zk.address", "127.0.0.1:" + zk);
      c.put("yarn.resourcemanager.zk-address", "127.0.0.1:" + zk);
      // A crashed (SIGKILLed) active RM loses the election after this long: Hadoop's default,
      // as a shorter session expired under load on a busy 2-core machine.
      c.put("hadoop.zk.timeout-ms", "10000");
      c.put("yarn.resourcemanager.zk-timeout-ms", "10000");
      for (Rm rm : rms) {
        c.put("yarn.resourcemanager.hostname." + rm.id(), "127.0.0.1");
        rmAddresses(c, "." + rm.id(), rm);
      }
      if (daemon.startsWith("rm")) c.put("yarn.resourcemanager.ha.id", daemon);
    } else {
      rmAddresses(c, "", rms.get(0));
    }
    c.put("yarn.resourcemanager.scheduler.class", "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler");
    if (opts.recovery) {
      c.put("yarn.resourcemanager.recovery.enabled", "true");
      if (opts.ha) {
        c.put("yarn.resourcemanager.store.class", "org.apache.hadoop.yarn.server.resourcemanager.recovery.ZKRMStateStore");
      } else {
        c.put("yarn.resourcemanager.store.class", "org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore");
        c.put("yarn.resourcemanager.fs.state-store.uri", data("rm-state").toUri().toString());
      }
    } else {
      // A restarted RM forgets every app, as a cluster without a state store does.
      c.put("yarn.resourcemanager.recovery.enabled", "false");
    }
    if (opts.priorityCap != null) {
      c.put("yarn.cluster.max-application-priority", Integer.toString(opts.priorityCap));
    }
    if (opts.preemption != null) {
      String p = "yarn.resourcemanager.monitor.capacity.preemption.";
      c.put("yarn.resourcemanager.scheduler.monitor.enable", Boolean.toString(opts.preemption.equals("on")));
      c.put(
          "yarn.resourcemanager.scheduler.monitor.policies",
          "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy");
      // Short waits, so a test sees a lent guarantee come back within seconds.
      c.put(p + "monitoring_interval", "1000");
      c.put(p + "max_wait_before_kill", "5000");
      c.put(p + "natural_termination_factor", "1.0");
      c.put(p + "total_preemption_per_round", "1.0");
    }
    if (opts.maxCompletedApps != null) {
      String n = Integer.toString(opts.maxCompletedApps);
      c.put("yarn.resourcemanager.max-completed-applications", n);
      c.put("yarn.resourcemanager.state-store.max-completed-applications", n);
    }
    if (opts.amExpirySeconds != null) {
      c.put("yarn.am.liveness-monitor.expiry-interval-ms", Long.toString(opts.amExpirySeconds * 1000L));
    }
    c.put("yarn.node-labels.enabled", "true");
    c.put("yarn.node-labels.configuration-type", "centralized");
    c.put("yarn.node-labels.fs-store.root-dir", data("node-labels").toUri().toString());
    c.put("yarn.resourcemanager.reservation-system.enable", "true");
    c.put("yarn.acl.enable", "false");
    // NodeManagers (and clients) find a restarted or failed-over RM within a second.
    c.put("yarn.resourcemanager.connect.retry-interval.ms", "1000");
    c.put("yarn.client.failover-sleep-base-ms", "500");
    c.put("yarn.client.failover-sleep-max-ms", "1000");

    c.put("yarn.nodemanager.resource.memory-mb", Integer.toString(opts.nmMemoryMb));
    c.put("yarn.nodemanager.resource.cpu-vcores", Integer.toString(opts.nmVcores));
    c.put("yarn.scheduler.minimum-allocation-mb", "512");
    c.put("yarn.scheduler.maximum-allocation-mb", Integer.toString(Math.min(MAX_ALLOCATION_MB, opts.nmMemoryMb)));
    c.put("yarn.scheduler.maximum-allocation-vcores", Integer.toString(Math.min(MAX_ALLOCATION_VCORES, opts.nmVcores)));
    // Containers here only sleep on a small shared machine: do not kill them for their memory.
    c.put("yarn.nodemanager.vmem-check-enabled", "false");
    c.put("yarn.nodemanager.pmem-check-enabled", "false");
    // Nor mark a node unhealthy because the machine's disk is fuller than 90 %.
    c.put("yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", "100.0");
    c.put("yarn.nodemanager.disk-health-checker.min-free-space-per-disk-mb", "0");
    c.put("yarn.nodemanager.aux-services", "mapreduce_shuffle");
    c.put("yarn.nodemanager.aux-services.mapreduce_shuffle.class", "org.apache.hadoop.mapred.ShuffleHandler");
    c.put(
        "yarn.nodemanager.env-whitelist",
        "JAVA_HOME,HADOOP_COMMON_HOME,HADOOP_HDFS_HOME,HADOOP_CONF_DIR,CLASSPATH_PREPEND_DISTCACHE,HADOOP_YARN_HOME,HADOOP_HOME,PATH,LANG,TZ,HADOOP_MAPRED_HOME");
    c.put("yarn.application.classpath", appClasspath());
    c.put("yarn.log-aggregation-enable", "true");
    c.put("yarn.log.server.url", jhsUrl() + "/jobhistory/logs");
    c.put("yarn.nodemanager.remote-app-log-dir", "/tmp/logs");
    for (Nm nm : nms) {
      if (!nm.name().equals(daemon)) continue;
      c.put("yarn.nodemanager.address", "127.0.0.1:" + nm.rpc());
      c.put("yarn.nodemanager.localizer.address", "127.0.0.1:" + nm.localizer());
      c.put("yarn.nodemanager.webapp.address", "127.0.0.1:" + nm.web());
      c.put("yarn.nodemanager.local-dirs", data(nm.name()).resolve("local").toString());
      c.put("yarn.nodemanager.log-dirs", data(nm.name()).resolve("logs").toString());
    }
    return c;
  }

  private static void rmAddresses(Map<String, String> c, String suffix, Rm rm) {
    c.put("yarn.resourcemanager.address" + suffix, "127.0.0.1:" + rm.rpc());
    c.put("yarn.resourcemanager.scheduler.address" + suffix, "127.0.0.1:" + rm.scheduler());
    c.put("yarn.resourcemanager.resource-tracker.address" + suffix, "127.0.0.1:" + rm.tracker());
    c.put("yarn.resourcemanager.admin.address" + suffix, "127.0.0.1:" + rm.admin());
    c.put("yarn.resourcemanager.webapp.address" + suffix, "127.0.0.1:" + rm.web());
  }

  /** The client conf folder first, so MapReduce containers read the cluster's addresses. */
  private String appClasspath() {
    return confDir("client") + "," + jar + "," + libDir + "/*";
  }

  private Map<String, String> mapred(String daemon) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("mapreduce.framework.name", "yarn");
    c.put("mapreduce.jobhistory.address", "127.0.0.1:" + jhsRpc);
    c.put("mapreduce.jobhistory.webapp.address", "127.0.0.1:" + jhsWeb);
    c.put("mapreduce.jobhistory.admin.address", "127.0.0.1:" + jhsAdmin);
    c.put("mapreduce.jobhistory.intermediate-done-dir", "/mr-history/tmp");
    c.put("mapreduce.jobhistory.done-dir", "/mr-history/done");
    c.put("mapreduce.application.classpath", appClasspath());
    c.put("mapreduce.jvm.add-opens-as-default", "true");
    String jvm = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.net.preferIPv4Stack=true";
    // A shared cluster's containers have the nodes' shape (1 GB a vcore): with the
    // DominantResourceCalculator the preemption policy compares dominant shares, and it left a
    // queue holding 12 of 16 vcores in 512 MB containers unpreempted (measured on 3.4.3).
    String taskMb = opts.preemption != null ? "1024" : "256";
    c.put("yarn.app.mapreduce.am.resource.mb", opts.preemption != null ? "1024" : "512");
    c.put("yarn.app.mapreduce.am.command-opts", "-Xmx384m " + jvm);
    c.put("mapreduce.map.memory.mb", taskMb);
    c.put("mapreduce.reduce.memory.mb", taskMb);
    c.put("mapreduce.map.java.opts", "-Xmx200m " + jvm);
    c.put("mapreduce.reduce.java.opts", "-Xmx200m " + jvm);
    c.put("mapreduce.task.io.sort.mb", "16");
    for (Nm nm : nms) {
      // Read here, not in yarn-site: the ShuffleHandler takes its port from the MapReduce conf.
      if (nm.name().equals(daemon)) c.put("mapreduce.shuffle.port", Integer.toString(nm.shuffle()));
    }
    return c;
  }

  private static Map<String, String> capacityScheduler(boolean sharedDefault, int realtimeCapacity) {
    Map<String, String> c = new LinkedHashMap<>();
    String q = "yarn.scheduler.capacity.root";
    c.put("yarn.scheduler.capacity.maximum-applications", "10000");
    c.put("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5");
    c.put("yarn.scheduler.capacity.resource-calculator", "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator");
    c.put("yarn.scheduler.capacity.queue-mappings-override.enable", "false");
    c.put(q + ".queues", "realtime,besteffort,default,reserved");
    c.put(q + ".accessible-node-labels", "*");
    c.put(q + ".accessible-node-labels.gpu.capacity", "100");
    // queue, capacity in the default partition, capacity in gpu (null: no access to gpu); the
    // others share what realtime leaves 3:1:1 (30, 10, 10 beside its default 50).
    double rest = 100 - realtimeCapacity;
    Object[][] queues = {
      {"realtime", Integer.toString(realtimeCapacity), "70"},
      {"besteffort", percent(rest * 0.6), "30"},
      {"default", percent(rest * 0.2), null},
      {"reserved", percent(rest * 0.2), null},
    };
    for (Object[] row : queues) {
      String p = q + "." + row[0];
      c.put(p + ".capacity", (String) row[1]);
      c.put(p + ".maximum-capacity", "100");
      c.put(p + ".state", "RUNNING");
      c.put(p + ".user-limit-factor", "2");
      if (row[2] != null) {
        c.put(p + ".accessible-node-labels", "gpu");
        c.put(p + ".accessible-node-labels.gpu.capacity", (String) row[2]);
        c.put(p + ".accessible-node-labels.gpu.maximum-capacity", "100");
      } else {
        // A single space: no labelled partition (an empty value would inherit root's *).
        c.put(p + ".accessible-node-labels", " ");
      }
    }
    if (sharedDefault) {
      // One user of `default` may grow to the queue's maximum (100 %), not only 2 x its 10 %:
      // another tenant that can borrow every idle guarantee of the partition.
      c.put(q + ".default.user-limit-factor", "10");
    }
    c.put(q + ".realtime.ordering-policy", "fifo");
    c.put(q + ".realtime.default-application-priority", "0");
    c.put(q + ".realtime.reservable", "false");
    // Plan queue of the reservation system (Rayon); apps without a reservation id run in its
    // child reserved-default.
    c.put(q + ".reserved.reservable", "true");
    return c;
  }

  /** A queue capacity as the scheduler reads it: whole where it is, else to a hundredth. */
  private static String percent(double p) {
    double r = Math.round(p * 100) / 100.0;
    return r == Math.rint(r) ? Long.toString((long) r) : Double.toString(r);
  }

  static void writeXml(Path file, Map<String, String> props) throws IOException {
    StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<configuration>\n");
    for (Map.Entry<String, String> e : props.entrySet()) {
      x.append("  <property><name>")
          .append(escape(e.getKey()))
          .append("</name><value>")
          .append(escape(e.getValue()))
          .append("</value></property>\n");
    }
    x.append("</configuration>\n");
    Files.writeString(file, x.toString(), StandardCharsets.UTF_8);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
