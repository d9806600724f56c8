package yss.spark;

import java.util.Arrays;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * Counts the words of text files, as Spark's own JavaWordCount example does.
 *
 * <p>Arguments: INPUT OUTPUT [partitions]. Writes "word\tcount" lines into the folder OUTPUT
 * (which must not exist), and prints the number of distinct words.
 */
public final class WordCount {
  private WordCount() {}

  public static void main(String[] args) {
    if (args.length < 2) {
      System.err.println("usage: WordCount INPUT OUTPUT [partitions]");
      System.exit(2);
    }
    JavaSparkContext sc = new JavaSparkContext(new SparkConf().setAppName("wordcount"));
    try {
      int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 2;
      JavaPairRDD<String, Integer> counts =
          sc.textFile(args[0], partitions)
              .flatMap(line -> Arrays.asList(line.split("\\s+")).iterator())
              .filter(word -> !word.isEmpty())
              .mapToPair(word -> new Tuple2<>(word, 1))
              .reduceByKey(Integer::sum, partitions);
      counts.map(t -> t._1() + "\t" + t._2()).saveAsTextFile(args[1]);
      System.out.println("distinct words: " + counts.count());
    } finally {
      sc.stop();
    }
  }
}
