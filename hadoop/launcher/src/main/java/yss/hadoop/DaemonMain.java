package yss.hadoop;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;

/**
 * Runs one Hadoop daemon's own main (ResourceManager, NodeManager, JobHistoryServer, ...) in a
 * child JVM, and ends that JVM when the launcher goes away: the launcher holds the child's
 * standard input open, so end-of-file means the launcher died (even by SIGKILL) and nobody
 * will stop this daemon otherwise.
 *
 * <p>Usage: DaemonMain MAIN_CLASS [ARGS...]
 */
public final class DaemonMain {
  private DaemonMain() {}

  public static void main(String[] args) throws Throwable {
    if (args.length == 0) {
      System.err.println("usage: DaemonMain MAIN_CLASS [ARGS...]");
      System.exit(2);
    }
    Thread watch = new Thread(DaemonMain::exitWhenParentGone, "launcher-watch");
    watch.setDaemon(true);
    watch.start();
    try {
      Class.forName(args[0])
          .getMethod("main", String[].class)
          .invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static void exitWhenParentGone() {
    try {
      while (System.in.read() >= 0) {
        // The launcher writes nothing; only the end of the stream matters.
      }
    } catch (IOException ignored) {
      // A broken pipe says the same as end-of-file.
    }
    System.err.println("launcher gone: stopping");
    // Hadoop's shutdown hooks stop the daemon; do not let a stuck hook keep the JVM alive.
    Thread halt =
        new Thread(
            () -> {
              try {
                Thread.sleep(15_000);
              } catch (InterruptedException ignored) {
                // exiting anyway
              }
              Runtime.getRuntime().halt(1);
            },
            "halt");
    halt.setDaemon(true);
    halt.start();
    System.exit(0);
  }
}
