#!/bin/sh
# Creates the JDK's ahead-of-time cache (JEP 483/514/515, JDK 25+) for the webhook jar by one training run, so that
# a JVM started with -XX:AOTCache=<cache> finds the classes the webhook loads already read, parsed and linked, and
# the method profiles of the review path already collected (docs/explanation/performance.md, "AOT cache").
#
#   deploy/aot-cache.sh JAR CACHE [JVM options the cache is used with...]
#
# The training run is `bench` for a few seconds: it starts the real `serve` stack (Helidon, TLS, the use cases,
# the engines, the file-backed cluster view) and drives every review kind of the bench mix through it, so the cache
# holds what `serve` and `inject` load. The JVM options must be those the cache is used with (the GC in particular):
# the chart's are the default. Used by deploy/Dockerfile (in the image build) and by bin/aot-cache (locally).
# Java is $JAVA, else java on the PATH. Exit status: the training run's; the cache is written only when it succeeded.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 JAR CACHE [JVM options...]" >&2
  exit 2
fi
jar=$1
cache=$2
shift 2
java=${JAVA:-java}
if [ ! -f "$jar" ]; then
  echo "aot-cache: no jar at $jar; build it first (bin/mvn -B -DskipTests package)" >&2
  exit 2
fi
if [ $# -eq 0 ]; then
  # the chart's heap and collector (deploy/helm/kvcache-injector/templates/deployment.yaml) under its memory limit
  set -- --sun-misc-unsafe-memory-access=allow -XX:MaxRAM=384m -XX:MaxRAMPercentage=34 -XX:MinRAMPercentage=34 \
    -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData
fi
rm -f "$cache"
"$java" "$@" -XX:AOTCacheOutput="$cache" -jar "$jar" bench --duration 4s --warmup 2s --max-warmup 2s \
  --round 500ms --connections 2 >/dev/null
if [ ! -s "$cache" ]; then
  echo "aot-cache: the training run wrote no cache at $cache" >&2
  exit 1
fi
echo "aot-cache: wrote $cache ($(wc -c <"$cache") bytes) for $jar" >&2
