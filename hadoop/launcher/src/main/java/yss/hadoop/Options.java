package yss.hadoop;

import java.nio.file.Path;

/** The launcher's command-line flags. */
final class Options {
  /** "none": Hadoop's stock web auth (anonymous, as dr.who); "simple": user.name required. */
  String auth = "none";
  /** yarn.cluster.max-application-priority; null leaves Hadoop's default (0). */
  Integer priorityCap;
  boolean ha;
  boolean recovery;
  /**
   * null: Hadoop's default (no preemption monitor, queues as docker/'s). "on" or "off": a
   * shared cluster whose `default` queue one user can grow to its maximum (another tenant
   * borrowing the others' idle guarantees), with the preemption monitor on (short waits) or off.
   */
  String preemption;
  /**
   * What each NodeManager advertises: yarn.nodemanager.resource.cpu-vcores and memory-mb. The
   * default (16 vcores, 16 GB) overcommits a small machine's CPU, as clusters that schedule by
   * memory do; the DominantResourceCalculator counts vcores, so --nm-vcores no larger than the
   * machine's cores gives a cluster honest about CPU.
   */
  int nmVcores = ClusterConf.DEFAULT_NODE_VCORES;
  int nmMemoryMb = ClusterConf.DEFAULT_NODE_MEMORY_MB;
  /**
   * The realtime queue's guaranteed share of the default partition, in percent (default 50). The
   * other queues share the rest 3:1:1 as they do the default's 50 (besteffort, default,
   * reserved). On a node of few vcores, 100 gives the realtime queue a lane of them all.
   */
  int realtimeCapacity = 50;
  /**
   * yarn.resourcemanager.max-completed-applications: how many ended apps the RM keeps in memory
   * and answers about; null leaves Hadoop's default (1000).
   */
  Integer maxCompletedApps;
  /**
   * yarn.am.liveness-monitor.expiry-interval-ms, in seconds: how long an attempt whose AM does not
   * heartbeat (an unmanaged AM never started) lives; null leaves Hadoop's default (600 s).
   */
  Integer amExpirySeconds;
  boolean keep;
  Path workDir;
  int startTimeoutSeconds = 240;

  static final String USAGE =
      String.join(
          "\n",
          "usage: hadoop-launcher [--auth none|simple] [--priority-cap N] [--ha] [--recovery] [--preemption on|off]",
          "                       [--nm-vcores N] [--nm-memory-mb N] [--realtime-capacity PCT]",
          "                       [--max-completed-apps N] [--am-expiry-s S]",
          "                       [--work-dir DIR] [--keep] [--start-timeout SECONDS]",
          "  --auth none|simple   web authentication of every daemon (default none: anonymous",
          "                       requests run as dr.who; simple: requests need ?user.name=)",
          "  --priority-cap N     yarn.cluster.max-application-priority (default: unset, Hadoop's 0)",
          "  --ha                 two ResourceManagers rm1/rm2 with an embedded ZooKeeper",
          "  --recovery           RM recovery on (state store in the work dir, or ZooKeeper with",
          "                       --ha); without it a restarted RM forgets every app",
          "  --preemption on|off  a shared cluster: one user of `default` may fill it up to its maximum,",
          "                       and the preemption monitor takes lent guarantees back (on: every",
          "                       1 s, kill 5 s after the ask, all that is over target at once) or not (off)",
          "  --nm-vcores N        vcores each NodeManager advertises (default 16; the scheduler counts them)",
          "  --nm-memory-mb N     memory each NodeManager advertises, in MB (default 16384, at least 1024:",
          "                       an MR AM and one task of 512 MB)",
          "  --realtime-capacity PCT  the realtime queue's guarantee in the default partition, 1 to 100",
          "                       (default 50); the other queues share the rest 3:1:1",
          "  --max-completed-apps N  ended apps the RM keeps (yarn.resourcemanager.max-completed-applications;",
          "                       default Hadoop's 1000)",
          "  --am-expiry-s S      an AM silent this long fails its attempt (yarn.am.liveness-monitor.expiry-interval-ms;",
          "                       default Hadoop's 600)",
          "  --work-dir DIR       a new or empty folder for confs, logs and data (default: a temp dir)",
          "  --keep               keep the work dir on exit",
          "  --start-timeout S    give up if the cluster is not ready after S seconds (default 240)",
          "stdin commands: status | kill-rm [ID] [--hard] | start-rm [ID] | restart-rm [ID] | stop");

  static Options parse(String[] args) {
    Options o = new Options();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--auth" -> {
          o.auth = value(args, ++i, a);
          if (!o.auth.equals("none") && !o.auth.equals("simple")) {
            throw new IllegalArgumentException("--auth must be none or simple, not " + o.auth);
          }
        }
        case "--priority-cap" -> o.priorityCap = intValue(args, ++i, a, 0);
        case "--ha" -> o.ha = true;
        case "--recovery" -> o.recovery = true;
        case "--preemption" -> {
          o.preemption = value(args, ++i, a);
          if (!o.preemption.equals("on") && !o.preemption.equals("off")) {
            throw new IllegalArgumentException("--preemption must be on or off, not " + o.preemption);
          }
        }
        case "--nm-vcores" -> o.nmVcores = intValue(args, ++i, a, 1);
        case "--nm-memory-mb" -> o.nmMemoryMb = intValue(args, ++i, a, 1024);
        case "--realtime-capacity" -> {
          o.realtimeCapacity = intValue(args, ++i, a, 1);
          if (o.realtimeCapacity > 100) {
            throw new IllegalArgumentException("--realtime-capacity needs a percentage from 1 to 100, not " + o.realtimeCapacity);
          }
        }
        case "--max-completed-apps" -> o.maxCompletedApps = intValue(args, ++i, a, 0);
        case "--am-expiry-s" -> o.amExpirySeconds = intValue(args, ++i, a, 1);
        case "--keep" -> o.keep = true;
        case "--work-dir" -> o.workDir = Path.of(value(args, ++i, a)).toAbsolutePath();
        case "--start-timeout" -> o.startTimeoutSeconds = intValue(args, ++i, a, 1);
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
    }
    return o;
  }

  private static String value(String[] args, int i, String flag) {
    if (i >= args.length) throw new IllegalArgumentException(flag + " needs a value");
    return args[i];
  }

  private static int intValue(String[] args, int i, String flag, int min) {
    String v = value(args, i, flag);
    try {
      int n = Integer.parseInt(v);
      if (n < min) throw new NumberFormatException();
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + " needs an integer >= " + min + ", not " + v);
    }
  }
}
