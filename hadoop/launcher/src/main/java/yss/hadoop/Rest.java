package yss.hadoop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;

/** GETs JSON from the daemons' REST APIs, as the launcher's user (user.name=). */
final class Rest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final String user;

  Rest(String user) {
    this.user = user;
  }

  /** The parsed answer, or null when the daemon is not up or answers other than 200. */
  JsonNode get(String url) {
    try {
      HttpURLConnection c = (HttpURLConnection) new URL(url + (url.contains("?") ? "&" : "?") + "user.name=" + user).openConnection();
      c.setConnectTimeout(2000);
      c.setReadTimeout(5000);
      c.setInstanceFollowRedirects(false);
      c.setRequestProperty("Accept", "application/json");
      try {
        if (c.getResponseCode() != 200) return null;
        try (InputStream in = c.getInputStream()) {
          return MAPPER.readTree(in);
        }
      } finally {
        c.disconnect();
      }
    } catch (IOException e) {
      return null;
    }
  }

  /** A JSON value that may be one object or a list of them (Jersey 1 renders a one-item list as the item). */
  static List<JsonNode> list(JsonNode node) {
    List<JsonNode> out = new ArrayList<>();
    if (node == null || node.isNull() || node.isMissingNode()) return out;
    if (node.isArray()) node.forEach(out::add);
    else out.add(node);
    return out;
  }
}
