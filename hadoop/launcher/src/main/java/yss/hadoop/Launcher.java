package yss.hadoop;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Starts a small real Hadoop cluster for the sidecar's tests, one JVM per daemon (YARN's web
 * apps share one static Guice pipeline per JVM, so the RM, NMs and JHS cannot share a JVM):
 * HDFS (MiniDFSCluster), one ResourceManager (two with --ha, plus ZooKeeper), two NodeManagers
 * (the second labelled gpu) and the JobHistory server. Prints one line
 * {@code HADOOP_READY {json}} on standard output when every NodeManager is RUNNING with its
 * label, then answers commands read from standard input, one line each (see {@link Options}).
 * Stops every daemon on SIGTERM/SIGINT, on the command "stop" or when standard input closes.
 *
 * <p>Standard output carries only the launcher's own event lines ({@code WORD {json}}); the
 * daemons log to files under the work dir, the launcher's progress goes to standard error.
 */
public final class Launcher {
  private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(8);

  private final Options opts;
  private final PrintStream out;
  private final long startedNanos = System.nanoTime();
  private final Map<String, Daemon> daemons = new LinkedHashMap<>();
  private volatile boolean stopping;
  private ClusterConf cc;
  private Rest rest;
  private Path work;
  private long startupMs;

  private Launcher(Options opts, PrintStream out) {
    this.opts = opts;
    this.out = out;
  }

  public static void main(String[] args) {
    // Standard output is for event lines only: anything else printing there goes to stderr.
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    System.setProperty("log4j.configuration", "yss-launcher-log4j.properties");
    if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
      System.err.println(Options.USAGE);
      System.exit(0);
    }
    Options opts;
    try {
      opts = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("hadoop launcher: " + e.getMessage());
      System.err.println(Options.USAGE);
      System.exit(2);
      return;
    }
    Launcher launcher = new Launcher(opts, out);
    Runtime.getRuntime().addShutdownHook(new Thread(launcher::shutdown, "launcher-shutdown"));
    for (int attempt = 1; ; attempt++) {
      try {
        launcher.start();
        break;
      } catch (PortTaken e) {
        // The ports are picked free, then bound by the daemons a moment later: another process
        // (another cluster starting) may take one in between. Start again on new ports.
        if (attempt == 3) {
          System.err.println("hadoop launcher: " + e.getMessage());
          System.exit(1);
        }
        progress(e.daemon + " could not bind its port; starting again on new ports");
        launcher.reset();
      } catch (Exception e) {
        System.err.println("hadoop launcher: " + e.getMessage());
        System.exit(1);
      }
    }
    launcher.emit("HADOOP_READY", launcher.info());
    Thread monitor = new Thread(launcher::monitor, "launcher-monitor");
    monitor.setDaemon(true);
    monitor.start();
    launcher.commands();
    System.exit(0);
  }

  // ---------------------------------------------------------------- start

  private void start() throws Exception {
    work = workDir();
    Path jar = Path.of(Launcher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    cc = new ClusterConf(opts, work, jar);
    cc.writeAll();
    rest = new Rest(cc.user);
    progress("work dir " + work + " (daemon logs in logs/)");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(opts.startTimeoutSeconds);

    if (opts.ha) {
      Files.createDirectories(cc.data("zk"));
      // ZooKeeper's own standalone server, for the RMs' leader election (and --recovery's store).
      Daemon zk =
          daemon(
              "zk",
              "org.apache.zookeeper.server.ZooKeeperServerMain",
              List.of(Integer.toString(cc.zk), cc.data("zk").toString()),
              List.of("-Dzookeeper.admin.enableServer=false"));
      zk.start();
      waitFor("ZooKeeper", deadline, () -> portOpen(cc.zk));
    }
    Path dfsReady = work.resolve("dfs.ready");
    Files.createDirectories(cc.data("dfs"));
    daemon(
            "dfs",
            DfsMain.class.getName(),
            List.of(cc.data("dfs").toString(), Integer.toString(cc.nnRpc), Integer.toString(cc.nnHttp), dfsReady.toString()),
            List.of())
        .start();
    for (ClusterConf.Rm rm : cc.rms) rmDaemon(rm.id()).start();
    for (ClusterConf.Nm nm : cc.nms) {
      daemon(nm.name(), "org.apache.hadoop.yarn.server.nodemanager.NodeManager", List.of(), List.of()).start();
    }
    // The JobHistory server makes its folders on HDFS as it starts.
    waitFor("HDFS", deadline, () -> Files.exists(dfsReady));
    daemon("jhs", "org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer", List.of(), List.of()).start();

    waitFor("an active ResourceManager", deadline, () -> activeRm() != null);
    waitFor("every NodeManager RUNNING", deadline, this::nodesRunning);
    labelNodes(deadline);
    waitFor("the JobHistory server", deadline, () -> rest.get(cc.jhsUrl() + "/ws/v1/history/info") != null);
    startupMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    progress("ready in " + startupMs + " ms");
  }

  private Path workDir() throws IOException {
    if (opts.workDir == null) return Files.createTempDirectory("yss-hadoop-");
    Path dir = opts.workDir;
    if (Files.exists(dir)) {
      try (Stream<Path> entries = Files.list(dir)) {
        if (entries.findAny().isPresent()) {
          // It is deleted on exit: refuse anything that may hold someone's files.
          throw new IOException("--work-dir " + dir + " is not empty");
        }
      }
    }
    return Files.createDirectories(dir);
  }

  private Daemon daemon(String name, String mainClass, List<String> args, List<String> props) {
    Daemon d = new Daemon(name, mainClass, args, props, cc);
    synchronized (daemons) {
      daemons.put(name, d);
    }
    return d;
  }

  private Daemon rmDaemon(String id) {
    synchronized (daemons) {
      Daemon d = daemons.get(id);
      if (d != null) return d;
    }
    return daemon(id, "org.apache.hadoop.yarn.server.resourcemanager.ResourceManager", List.of(), List.of());
  }

  // ---------------------------------------------------------------- cluster state

  /** The RM that says it is active, or null. */
  private ClusterConf.Rm activeRm() {
    for (ClusterConf.Rm rm : cc.rms) {
      Daemon d = daemons.get(rm.id());
      if (d == null || !d.alive()) continue;
      if ("ACTIVE".equals(haState(rm))) return rm;
    }
    return null;
  }

  private String haState(ClusterConf.Rm rm) {
    JsonNode info = rest.get(rm.webUrl() + "/ws/v1/cluster/info");
    return info == null ? null : info.path("clusterInfo").path("haState").asText(null);
  }

  private List<JsonNode> nodes() {
    ClusterConf.Rm rm = activeRm();
    if (rm == null) return List.of();
    JsonNode answer = rest.get(rm.webUrl() + "/ws/v1/cluster/nodes");
    return answer == null ? List.of() : Rest.list(answer.path("nodes").path("node"));
  }

  private JsonNode node(List<JsonNode> nodes, ClusterConf.Nm nm) {
    for (JsonNode n : nodes) {
      if (n.path("id").asText("").endsWith(":" + nm.rpc())) return n;
    }
    return null;
  }

  private boolean nodesRunning() {
    List<JsonNode> nodes = nodes();
    for (ClusterConf.Nm nm : cc.nms) {
      JsonNode n = node(nodes, nm);
      if (n == null || !"RUNNING".equals(n.path("state").asText())) return false;
    }
    return true;
  }

  private static List<String> labels(JsonNode node) {
    List<String> out = new ArrayList<>();
    for (JsonNode l : Rest.list(node.path("nodeLabels"))) out.add(l.asText());
    return out;
  }

  private boolean labelsApplied() {
    List<JsonNode> nodes = nodes();
    for (ClusterConf.Nm nm : cc.nms) {
      JsonNode n = node(nodes, nm);
      if (n == null) return false;
      List<String> want = nm.label() == null ? List.of() : List.of(nm.label());
      if (!labels(n).equals(want)) return false;
    }
    return true;
  }

  /**
   * Adds the exclusive label gpu to the cluster and puts it on its NodeManager, as
   * `yarn rmadmin` does (docker/labels/label-nodes.sh). Labels live in the RM's file store in
   * the work dir, so a restarted RM finds them again; returns whether anything had to be done.
   */
  private boolean labelNodes(long deadline) throws Exception {
    if (labelsApplied()) return false;
    List<JsonNode> nodes = nodes();
    for (ClusterConf.Nm nm : cc.nms) {
      if (nm.label() == null) continue;
      JsonNode n = node(nodes, nm);
      if (n == null) throw new IOException(nm.name() + " is not registered with the RM");
      // Fails harmlessly when the RM knows the label already.
      rmAdmin("-addToClusterNodeLabels", nm.label() + "(exclusive=true)");
      int rc = rmAdmin("-replaceLabelsOnNode", n.path("id").asText() + "=" + nm.label());
      if (rc != 0) throw new IOException("rmadmin -replaceLabelsOnNode failed (exit " + rc + ")");
    }
    waitFor("the gpu label on its node", deadline, this::labelsApplied);
    return true;
  }

  private int rmAdmin(String... args) throws Exception {
    org.apache.hadoop.yarn.conf.YarnConfiguration conf = new org.apache.hadoop.yarn.conf.YarnConfiguration();
    for (String f : List.of("core-site.xml", "yarn-site.xml")) {
      conf.addResource(new org.apache.hadoop.fs.Path(cc.confDir("client").resolve(f).toUri()));
    }
    return new org.apache.hadoop.yarn.client.cli.RMAdminCLI(conf).run(args);
  }

  // ---------------------------------------------------------------- waiting

  private void waitFor(String what, long deadlineNanos, Supplier<Boolean> ready) throws Exception {
    while (true) {
      if (stopping) throw new IOException("stopping");
      checkDaemons();
      if (Boolean.TRUE.equals(ready.get())) return;
      if (System.nanoTime() > deadlineNanos) {
        throw new IOException("timed out waiting for " + what + " (logs in " + work.resolve("logs") + ")");
      }
      Thread.sleep(250);
    }
  }

  /** Fails with the log's tail when a daemon the launcher did not stop has exited. */
  private void checkDaemons() throws IOException {
    for (Daemon d : snapshot()) {
      if (!d.expectedExit && d.exitCode() != null) {
        d.exitReported = true;
        String message = d.name + " exited with code " + d.exitCode() + "; the end of its log:\n" + d.tail(30);
        String log = d.tail(400);
        if (log.contains("java.net.BindException") || log.contains("Address already in use")) {
          throw new PortTaken(d.name, message);
        }
        throw new IOException(message);
      }
    }
  }

  /** A daemon exited because a port picked for it was no longer free. */
  private static final class PortTaken extends IOException {
    final String daemon;

    PortTaken(String daemon, String message) {
      super(message);
      this.daemon = daemon;
    }
  }

  private List<Daemon> snapshot() {
    synchronized (daemons) {
      return new ArrayList<>(daemons.values());
    }
  }

  private static boolean portOpen(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Reports, once each, daemons that exited without being asked to. */
  private void monitor() {
    while (!stopping) {
      for (Daemon d : snapshot()) {
        Integer code = d.exitCode();
        if (code != null && !d.expectedExit && !d.exitReported && !stopping) {
          d.exitReported = true;
          Map<String, Object> e = new LinkedHashMap<>();
          e.put("name", d.name);
          e.put("exitCode", code);
          e.put("log", cc.logFile(d.name).toString());
          emit("DAEMON_EXITED", e);
        }
      }
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  // ---------------------------------------------------------------- commands

  private void commands() {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    try {
      while ((line = in.readLine()) != null) {
        String[] words = line.trim().split("\\s+");
        if (words[0].isEmpty()) continue;
        if (words[0].equals("stop")) return;
        try {
          command(words);
        } catch (Exception e) {
          Map<String, Object> err = new LinkedHashMap<>();
          err.put("command", line.trim());
          err.put("message", String.valueOf(e.getMessage()));
          emit("ERROR", err);
        }
      }
    } catch (IOException e) {
      // standard input is gone: stop
    }
  }

  private void command(String[] words) throws Exception {
    String id = words.length > 1 && !words[1].startsWith("--") ? words[1] : null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    switch (words[0]) {
      case "status" -> emit("STATUS", info());
      case "kill-rm" -> {
        boolean hard = List.of(words).contains("--hard");
        ClusterConf.Rm rm = rmFor(id, true);
        Daemon d = daemons.get(rm.id());
        stopAndWait(d, hard);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", rm.id());
        r.put("exitCode", d.exitCode());
        if (opts.ha && anotherRmAlive(rm)) {
          // Answer once the cluster is whole again under the new active RM.
          waitFor("another RM to become active", deadline, () -> activeRm() != null);
          waitFor("every NodeManager RUNNING", deadline, this::nodesRunning);
          r.put("labelsReapplied", labelNodes(deadline));
          r.put("active", activeRm().id());
          r.put("rm", activeRm().webUrl());
        }
        emit("RM_KILLED", r);
      }
      case "start-rm" -> {
        ClusterConf.Rm rm = rmFor(id, false);
        Daemon d = rmDaemon(rm.id());
        if (d.alive()) throw new IllegalStateException(rm.id() + " is running");
        d.start();
        emit("RM_STARTED", afterRmStart(rm, d, deadline));
      }
      case "restart-rm" -> {
        ClusterConf.Rm rm = rmFor(id, true);
        Daemon d = daemons.get(rm.id());
        stopAndWait(d, false);
        d.start();
        emit("RM_RESTARTED", afterRmStart(rm, d, deadline));
      }
      default -> throw new IllegalArgumentException(
          "unknown command " + words[0] + "; known: status, kill-rm [ID] [--hard], start-rm [ID], restart-rm [ID], stop");
    }
  }

  /**
   * The RM a command names. Without an id: the active one for kill-rm and restart-rm, the first
   * stopped one for start-rm.
   */
  private ClusterConf.Rm rmFor(String id, boolean mustRun) {
    if (id == null) {
      if (mustRun) {
        ClusterConf.Rm active = activeRm();
        if (active == null) throw new IllegalStateException("no active RM");
        return active;
      }
      for (ClusterConf.Rm rm : cc.rms) {
        Daemon d = daemons.get(rm.id());
        if (d == null || !d.alive()) return rm;
      }
      throw new IllegalStateException("every RM is running");
    }
    for (ClusterConf.Rm rm : cc.rms) {
      if (rm.id().equals(id)) {
        Daemon d = daemons.get(id);
        if (mustRun && (d == null || !d.alive())) throw new IllegalStateException(id + " is not running");
        return rm;
      }
    }
    throw new IllegalArgumentException("no RM " + id + "; RMs: " + cc.rms.stream().map(ClusterConf.Rm::id).toList());
  }

  private boolean anotherRmAlive(ClusterConf.Rm rm) {
    for (ClusterConf.Rm other : cc.rms) {
      Daemon d = daemons.get(other.id());
      if (!other.equals(rm) && d != null && d.alive()) return true;
    }
    return false;
  }

  private void stopAndWait(Daemon d, boolean hard) throws InterruptedException {
    Daemon.Stopping s = d.beginStop(hard);
    if (!s.await(System.nanoTime() + GRACE_NANOS)) s.kill();
  }

  /** Waits until the started RM answers and the cluster is whole again (NMs RUNNING, labels). */
  private Map<String, Object> afterRmStart(ClusterConf.Rm rm, Daemon d, long deadline) throws Exception {
    waitFor(rm.id() + " to answer", deadline, () -> haState(rm) != null);
    waitFor("an active ResourceManager", deadline, () -> activeRm() != null);
    waitFor("every NodeManager RUNNING", deadline, this::nodesRunning);
    boolean relabelled = labelNodes(deadline);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", rm.id());
    r.put("pid", d.pid());
    r.put("haState", haState(rm));
    r.put("rm", activeRm().webUrl());
    r.put("labelsReapplied", relabelled);
    return r;
  }

  // ---------------------------------------------------------------- output

  /** Hadoop's example jobs (hadoop-mapreduce-examples-VERSION.jar in lib/), or null. */
  private Path examplesJar() {
    try (Stream<Path> files = Files.list(cc.libDir)) {
      return files
          .filter(f -> f.getFileName().toString().matches("hadoop-mapreduce-examples-.*\\.jar"))
          .findFirst()
          .orElse(null);
    } catch (IOException e) {
      return null;
    }
  }

  private Map<String, Object> info() {
    Map<String, Object> i = new LinkedHashMap<>();
    ClusterConf.Rm active = activeRm();
    i.put("rm", active == null ? null : active.webUrl());
    i.put("rms", cc.rms.stream().map(ClusterConf.Rm::webUrl).toList());
    i.put("rmIds", cc.rms.stream().map(ClusterConf.Rm::id).toList());
    i.put("activeRm", active == null ? null : active.id());
    i.put("jhs", cc.jhsUrl());
    i.put("webhdfs", cc.webHdfsUrl());
    i.put("defaultFS", cc.nameNodeUri());
    List<Object> nodes = new ArrayList<>();
    List<JsonNode> reported = nodes();
    for (ClusterConf.Nm nm : cc.nms) {
      JsonNode n = node(reported, nm);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", nm.name());
      m.put("id", n == null ? null : n.path("id").asText());
      m.put("http", n == null ? null : n.path("nodeHTTPAddress").asText());
      m.put("label", nm.label());
      m.put("memoryMb", opts.nmMemoryMb);
      m.put("vcores", opts.nmVcores);
      nodes.add(m);
    }
    i.put("nodes", nodes);
    i.put("version", org.apache.hadoop.util.VersionInfo.getVersion());
    i.put("conf", cc.confDir("client").toString());
    i.put("classpath", cc.jarsClasspath());
    // What a MapReduce client (SleepJob, a job's own driver) runs with: `java -cp CLIENT_CP MAIN`.
    i.put("clientClasspath", cc.confDir("client") + ":" + cc.jarsClasspath());
    Path examples = examplesJar();
    i.put("examplesJar", examples == null ? null : examples.toString());
    i.put(
        "examplesVersion",
        examples == null
            ? null
            : examples.getFileName().toString().replaceAll("^hadoop-mapreduce-examples-(.*)\\.jar$", "$1"));
    i.put("javaOpts", Daemon.jvmOptions());
    i.put("user", cc.user);
    i.put("auth", opts.auth);
    i.put("priorityCap", opts.priorityCap == null ? 0 : opts.priorityCap);
    i.put("ha", opts.ha);
    i.put("recovery", opts.recovery);
    i.put("preemption", opts.preemption);
    i.put("nmVcores", opts.nmVcores);
    i.put("nmMemoryMb", opts.nmMemoryMb);
    i.put("realtimeCapacity", opts.realtimeCapacity);
    i.put("maxCompletedApps", opts.maxCompletedApps == null ? 1000 : opts.maxCompletedApps);
    i.put("amExpirySeconds", opts.amExpirySeconds == null ? 600 : opts.amExpirySeconds);
    i.put("zk", opts.ha ? "127.0.0.1:" + cc.zk : null);
    i.put("queues", List.of("root.realtime", "root.besteffort", "root.default", "root.reserved"));
    i.put("workDir", work.toString());
    i.put("logs", work.resolve("logs").toString());
    Map<String, Object> pids = new LinkedHashMap<>();
    for (Daemon d : snapshot()) pids.put(d.name, d.alive() ? d.pid() : null);
    i.put("pids", pids);
    i.put("launcherPid", ProcessHandle.current().pid());
    i.put("startupMs", startupMs);
    return i;
  }

  private void emit(String event, Map<String, Object> data) {
    synchronized (out) {
      out.println(event + " " + Json.write(data));
      out.flush();
    }
  }

  private static void progress(String message) {
    System.err.println("hadoop launcher: " + message);
  }

  // ---------------------------------------------------------------- stop

  /** SIGTERM every daemon at once, SIGKILL what is left after the grace time, delete the work dir. */
  private void shutdown() {
    stopping = true;
    stopDaemons();
    if (work != null && !opts.keep) {
      deleteTree(work);
    } else if (work != null) {
      progress("kept " + work);
    }
  }

  /** Before starting again: no daemon, no work dir. */
  private void reset() {
    stopDaemons();
    synchronized (daemons) {
      daemons.clear();
    }
    if (work != null) deleteTree(work);
    work = null;
  }

  private void stopDaemons() {
    List<Daemon.Stopping> stops = new ArrayList<>();
    for (Daemon d : snapshot()) stops.add(d.beginStop(false));
    long deadline = System.nanoTime() + GRACE_NANOS;
    try {
      for (Daemon.Stopping s : stops) {
        s.await(deadline);
        s.kill(); // what is still alive, and containers a NodeManager left behind
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      progress("could not delete " + root + ": " + e.getMessage());
    }
  }
}
