package yss.hadoop;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Free TCP ports on 127.0.0.1, all held open together so no two are the same. */
final class Ports {
  private Ports() {}

  static int[] free(int count) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
        held.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : held) s.close();
    }
  }
}
