#!/bin/sh
# Creates the JDK's ahead-of-time cache (JEP 483/514/515, JDK 25+) for the webhook jar by one training run, so that
# a JVM started with -XX:AOTCache=<cache> finds the classes the webhook loads already read, parsed and linked, and
# the method profiles of the review path already collected (docs/explanation/performance-log.md, "AOT cache").
#
#   deploy/aot-cache.sh JAR CACHE [JVM options the cache is used with...]
#
# The training run is `aot-training` (io.kvcacheinjector.training.AotTrainingMain of the aot-training module, on the
# class path after JAR and the bench module's jar, which the shipped jar does not hold; KVI_TRAINING_JARS names those
# two jars, by default bench/target/kvcache-injector-bench.jar and aot-training/target/kvcache-injector-aot-training.jar
# of this checkout): `serve` as the chart runs it (Guice, fabric8's informers
# over TLS, certificate files, the CacheBlendEngine controller with its leader election) against a stand-in API
# server it starts on the loopback address with the example cluster (an image build reaches no API server), every
# review kind through it, then `bench` for a few seconds (the file-backed view, what `inject` loads, the review path
# under load). So the cache holds what `serve` in a cluster and `inject` load. The JVM options should be those the
# cache is used with, the heap's size in particular (a heap over 32 GB, without compressed oops, cannot use a cache
# made with them; -XX:MaxRAM keeps the machine's memory out of it): the chart's are the default. deploy/Dockerfile's
# training run (in the image build, which has no shell for this script) has the same options written out
# (ImageBuildOptionsTest); bin/aot-cache runs this locally. Java is $JAVA, else java on the PATH. Exit status: the
# training run's, with its one-line reason on stderr; the cache is written only when it succeeded.
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
# the jar by its absolute path: the cache records the class path it was trained with, and classes loaded from it
# report that path as their location, so a relative one would make `serve` look for engines/ beside the working
# directory instead of beside the jar
jar=$(cd "$(dirname "$jar")" && pwd)/$(basename "$jar")
# the training's own jars, after the shipped one: a JVM started with -jar JAR (a prefix of this class path) uses the
# cache, and never loads the classes of these two
repo=$(cd "$(dirname "$0")/.." && pwd)
training=${KVI_TRAINING_JARS:-$repo/bench/target/kvcache-injector-bench.jar:$repo/aot-training/target/kvcache-injector-aot-training.jar}
for t in $(echo "$training" | tr ':' ' '); do
  if [ ! -f "$t" ]; then
    echo "aot-cache: no training jar at $t; build it first (bin/mvn -B -DskipTests package)" >&2
    exit 2
  fi
done
if [ $# -eq 0 ]; then
  # the chart's heap and collector (deploy/helm/kvcache-injector/templates/deployment.yaml) under its memory limit
  set -- --sun-misc-unsafe-memory-access=allow -XX:MaxRAM=320m -XX:MaxRAMPercentage=41 -XX:MinRAMPercentage=41 \
    -XX:+UseSerialGC -Xmn16m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 -XX:-ShrinkHeapInSteps -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData
fi
rm -f "$cache"
status=0
"$java" "$@" -XX:AOTCacheOutput="$cache" -cp "$jar:$training" io.kvcacheinjector.training.AotTrainingMain >/dev/null \
  || status=$?
if [ "$status" -ne 0 ]; then
  echo "aot-cache: the training run failed (exit $status; its reason is above); no cache written" >&2
  rm -f "$cache"
  exit "$status"
fi
if [ ! -s "$cache" ]; then
  echo "aot-cache: the training run wrote no cache at $cache" >&2
  exit 1
fi
echo "aot-cache: wrote $cache ($(wc -c <"$cache") bytes) for $jar" >&2
