package yss.hadoop;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One Hadoop daemon in a child JVM of its own, its output in the work dir's logs/NAME.log. */
final class Daemon {
  /** Hadoop's own scripts open these on Java 17; the daemons reflect into all of them. */
  static final List<String> ADD_OPENS =
      List.of(
          "java.base/java.io",
          "java.base/java.lang",
          "java.base/java.lang.reflect",
          "java.base/java.math",
          "java.base/java.net",
          "java.base/java.nio",
          "java.base/java.text",
          "java.base/java.time",
          "java.base/java.util",
          "java.base/java.util.concurrent",
          "java.base/java.util.concurrent.atomic",
          "java.base/java.util.regex",
          "java.base/java.util.zip",
          "java.base/sun.nio.ch",
          "java.base/sun.security.util",
          "java.base/sun.net.dns",
          "java.base/sun.net.util");

  static List<String> jvmOptions() {
    List<String> o = new ArrayList<>(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true"));
    for (String p : ADD_OPENS) o.add("--add-opens=" + p + "=ALL-UNNAMED");
    return o;
  }

  final String name;
  private final String mainClass;
  private final List<String> args;
  private final List<String> systemProperties;
  private final ClusterConf cc;
  private Process process;
  /** Set when the launcher itself stops this daemon, so its exit is not reported as a crash. */
  volatile boolean expectedExit;
  volatile boolean exitReported;

  Daemon(String name, String mainClass, List<String> args, List<String> systemProperties, ClusterConf cc) {
    this.name = name;
    this.mainClass = mainClass;
    this.args = args;
    this.systemProperties = systemProperties;
    this.cc = cc;
  }

  synchronized void start() throws IOException {
    Path conf = cc.confDir(name.startsWith("zk") ? "client" : name);
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.addAll(jvmOptions());
    cmd.add("-Dlog4j.configuration=" + conf.resolve("log4j.properties").toUri());
    cmd.add("-Dhadoop.log.dir=" + cc.work.resolve("logs"));
    cmd.add("-Dyarn.log.dir=" + cc.work.resolve("logs"));
    cmd.add("-Dhadoop.log.file=" + name + ".log");
    cmd.add("-Dyss.daemon=" + name);
    cmd.addAll(systemProperties);
    cmd.add("-cp");
    cmd.add(conf + ":" + cc.jarsClasspath());
    cmd.add(DaemonMain.class.getName());
    cmd.add(mainClass);
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(cc.logFile(name).toFile()));
    pb.directory(cc.work.toFile());
    Map<String, String> env = pb.environment();
    // NodeManagers hand JAVA_HOME to containers (yarn.nodemanager.env-whitelist).
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("HADOOP_CONF_DIR", conf.toString());
    expectedExit = false;
    exitReported = false;
    process = pb.start();
  }

  synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  synchronized Integer exitCode() {
    return process == null || process.isAlive() ? null : process.exitValue();
  }

  /** Asks the JVM to stop (SIGTERM), without waiting. Returns what to wait for and kill later. */
  synchronized Stopping beginStop(boolean hard) {
    expectedExit = true;
    if (process == null) return new Stopping(this, null, List.of());
    List<ProcessHandle> family = new ArrayList<>();
    // Containers (a MapReduce AM, its tasks) are the NodeManager's descendants.
    process.toHandle().descendants().forEach(family::add);
    if (hard) {
      process.destroyForcibly();
    } else {
      process.destroy();
    }
    try {
      process.getOutputStream().close();
    } catch (IOException ignored) {
      // it is going anyway
    }
    return new Stopping(this, process, family);
  }

  /** A stop in progress: waits for the JVM, then kills it and its descendants if still there. */
  record Stopping(Daemon daemon, Process process, List<ProcessHandle> family) {
    boolean await(long deadlineNanos) throws InterruptedException {
      if (process == null) return true;
      long left = deadlineNanos - System.nanoTime();
      return process.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS);
    }

    void kill() throws InterruptedException {
      if (process == null) return;
      if (process.isAlive()) {
        System.err.println("hadoop launcher: " + daemon.name + " outlived SIGTERM; killing it");
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
      for (ProcessHandle p : family) {
        if (p.isAlive()) p.destroyForcibly();
      }
    }
  }

  /** The last lines of this daemon's log, for error messages. */
  String tail(int maxLines) {
    Path log = cc.logFile(name);
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long len = f.length();
      int size = (int) Math.min(len, 16_384);
      byte[] buf = new byte[size];
      f.seek(len - size);
      f.readFully(buf);
      String[] lines = new String(buf, StandardCharsets.UTF_8).split("\n");
      int from = Math.max(0, lines.length - maxLines);
      return String.join("\n", java.util.Arrays.copyOfRange(lines, from, lines.length));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }
}
