// Checks the image's bill of materials against the jars that go into the image, for deploy/image.sh (which runs it with
// the JDK it builds with, as a source file: java deploy/SbomCheck.java SBOM JAR ENGINES):
//   SBOM     target/kvcache-injector.cdx.json, the CycloneDX aggregate the build makes (the root pom's cyclonedx plugin)
//   JAR      app/target/kvcache-injector.jar, the shaded application jar: every library shade merged into it left its
//            META-INF/maven/<group>/<artifact>/pom.properties there, with its version
//   ENGINES  app/target/engines/, the engine jars (each with its own pom.properties)
// Every one of those must be a component of the SBOM with the same version; one that is not fails with a line
// "the SBOM ... lacks ..." and exit status 1. Components the image holds without Maven metadata (a library whose jar
// has no pom.properties, whose classes shade merged all the same) are listed, not failed: nothing in the jar names them.
// Needs nothing but the JDK: the SBOM is read by the small JSON reader at the end.
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;

public class SbomCheck {
  public static void main(String[] args) throws IOException {
    if (args.length != 3) {
      fail("usage: java deploy/SbomCheck.java SBOM JAR ENGINES");
    }
    Path sbom = Path.of(args[0]), jar = Path.of(args[1]), engines = Path.of(args[2]);
    if (!Files.isRegularFile(sbom)) {
      fail("no SBOM " + sbom + "; build it with bin/mvn -B -DskipTests package (online: under -o the cyclonedx plugin skips)");
    }
    // group:artifact -> version, from the SBOM
    Map<String, String> listed = new TreeMap<>();
    Object bom;
    try {
      bom = new Json(Files.readString(sbom)).value();
    } catch (RuntimeException e) {
      fail(sbom + " is not JSON (" + e.getMessage() + "); rebuild it: bin/mvn -B -DskipTests package");
      return;
    }
    if (!(bom instanceof Map<?, ?> root) || !"CycloneDX".equals(root.get("bomFormat"))
        || !(root.get("components") instanceof List<?> components)) {
      fail(sbom + " is not a CycloneDX BOM with components; rebuild it: bin/mvn -B -DskipTests package");
      return;
    }
    for (Object o : components) {
      if (o instanceof Map<?, ?> c && c.get("name") instanceof String name) {
        listed.put(c.get("group") + ":" + name, String.valueOf(c.get("version")));
      }
    }

    // group:artifact -> version, from the image's jars, and where each was found
    Map<String, String> inImage = new TreeMap<>();
    Map<String, String> where = new LinkedHashMap<>();
    int shaded = mavenMetadata(jar, inImage, where, "in " + jar.getFileName());
    List<Path> engineJars;
    try (Stream<Path> s = Files.walk(engines)) {
      engineJars = s.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
    }
    if (engineJars.isEmpty()) {
      fail("no engine jars under " + engines + "; build them: bin/mvn -B -DskipTests package");
    }
    for (Path e : engineJars) {
      if (mavenMetadata(e, inImage, where, engines.relativize(e).toString()) == 0) {
        fail(e + " holds no META-INF/maven/*/*/pom.properties, so nothing says which module it is; rebuild it");
      }
    }

    List<String> problems = new ArrayList<>();
    inImage.forEach((ga, version) -> {
      String v = listed.get(ga);
      if (v == null) {
        problems.add(ga + ":" + version + " (" + where.get(ga) + ") is missing");
      } else if (!v.equals(version)) {
        problems.add(ga + " is " + version + " in the image (" + where.get(ga) + ") but " + v + " in the SBOM");
      }
    });
    if (!problems.isEmpty()) {
      fail("the SBOM " + sbom + " lacks what the image holds: " + String.join("; ", problems)
          + "; rebuild both from the root: bin/mvn -B -DskipTests package (online)");
    }
    TreeSet<String> unnamed = new TreeSet<>(listed.keySet());
    unnamed.removeAll(inImage.keySet());
    System.out.println("sbom-check: " + listed.size() + " components list the image's " + shaded
        + " libraries of the shaded jar (its pom.properties) and " + engineJars.size() + " engine jars ("
        + (inImage.size() - shaded) + " modules), each with its version"
        + (unnamed.isEmpty() ? "" : "; " + unnamed.size() + " more are bundled without Maven metadata: "
            + String.join(", ", unnamed)));
  }

  /** Adds every META-INF/maven/G/A/pom.properties of the jar to found; returns how many there were. */
  static int mavenMetadata(Path jar, Map<String, String> found, Map<String, String> where, String label) {
    int n = 0;
    try (JarFile f = new JarFile(jar.toFile())) {
      for (var e : (Iterable<java.util.jar.JarEntry>) f.stream()::iterator) {
        String name = e.getName();
        if (name.startsWith("META-INF/maven/") && name.endsWith("/pom.properties")
            && name.chars().filter(c -> c == '/').count() == 4) {
          Properties p = new Properties();
          try (InputStream in = f.getInputStream(e)) {
            p.load(in);
          }
          String ga = p.getProperty("groupId") + ":" + p.getProperty("artifactId");
          String v = p.getProperty("version");
          String before = found.putIfAbsent(ga, v);
          if (before != null && !before.equals(v)) {
            fail(ga + " is in the image twice, " + before + " (" + where.get(ga) + ") and " + v + " (" + label + ")");
          }
          where.putIfAbsent(ga, label);
          n++;
        }
      }
    } catch (IOException e) {
      fail("cannot read " + jar + " (" + e.getMessage() + "); rebuild it: bin/mvn -B -DskipTests package");
    }
    return n;
  }

  static void fail(String why) {
    System.err.println("sbom-check: " + why);
    System.exit(1);
  }

  /** Just enough JSON: objects (as maps), arrays (as lists), strings, and the other literals as their text. */
  static final class Json {
    private final String s;
    private int i;

    Json(String s) {
      this.s = s;
    }

    Object value() {
      space();
      if (i >= s.length()) {
        throw new IllegalArgumentException("ends early");
      }
      char c = s.charAt(i);
      if (c == '{') {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        space();
        if (peek('}')) {
          return m;
        }
        do {
          space();
          String k = string();
          space();
          expect(':');
          m.put(k, value());
          space();
        } while (peek(','));
        expect('}');
        return m;
      }
      if (c == '[') {
        List<Object> l = new ArrayList<>();
        i++;
        space();
        if (peek(']')) {
          return l;
        }
        do {
          l.add(value());
          space();
        } while (peek(','));
        expect(']');
        return l;
      }
      if (c == '"') {
        return string();
      }
      int start = i;
      while (i < s.length() && ",}] \t\r\n".indexOf(s.charAt(i)) < 0) {
        i++;
      }
      if (start == i) {
        throw new IllegalArgumentException("unexpected '" + c + "' at " + i);
      }
      return s.substring(start, i);
    }

    private String string() {
      expect('"');
      StringBuilder b = new StringBuilder();
      while (true) {
        if (i >= s.length()) {
          throw new IllegalArgumentException("unterminated string");
        }
        char c = s.charAt(i++);
        if (c == '"') {
          return b.toString();
        }
        if (c == '\\') {
          char e = s.charAt(i++);
          switch (e) {
            case 'n' -> b.append('\n');
            case 't' -> b.append('\t');
            case 'r' -> b.append('\r');
            case 'b' -> b.append('\b');
            case 'f' -> b.append('\f');
            case 'u' -> {
              b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
              i += 4;
            }
            default -> b.append(e);
          }
        } else {
          b.append(c);
        }
      }
    }

    private void space() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
    }

    private boolean peek(char c) {
      if (i < s.length() && s.charAt(i) == c) {
        i++;
        return true;
      }
      return false;
    }

    private void expect(char c) {
      if (!peek(c)) {
        throw new IllegalArgumentException("expected '" + c + "' at " + i);
      }
    }
  }
}
