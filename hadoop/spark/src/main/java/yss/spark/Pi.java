package yss.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Estimates pi by throwing points at the unit square, as Spark's own SparkPi example does
 * (Spark's examples jar is not on Maven Central).
 *
 * <p>Arguments: [slices [points per slice [millis each slice sleeps]]]. The sleep gives each task
 * a known length, so a run takes about as long as the tests ask.
 */
public final class Pi {
  private Pi() {}

  public static void main(String[] args) {
    int slices = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    int perSlice = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    long sleepMs = args.length > 2 ? Long.parseLong(args[2]) : 0;
    JavaSparkContext sc = new JavaSparkContext(new SparkConf().setAppName("pi"));
    try {
      List<Integer> seeds = new ArrayList<>();
      for (int i = 0; i < slices; i++) seeds.add(i);
      long inside =
          sc.parallelize(seeds, slices)
              .map(
                  seed -> {
                    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
                    long hits = 0;
                    for (int i = 0; i < perSlice; i++) {
                      double x = random.nextDouble() * 2 - 1;
                      double y = random.nextDouble() * 2 - 1;
                      if (x * x + y * y <= 1) hits++;
                    }
                    if (sleepMs > 0) Thread.sleep(sleepMs);
                    return hits;
                  })
              .reduce(Long::sum);
      double pi = 4.0 * inside / ((double) slices * perSlice);
      System.out.println("Pi is roughly " + pi);
    } finally {
      sc.stop();
    }
  }
}
