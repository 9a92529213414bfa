#!/usr/bin/env bash
# Fetches Apache Kafka's jars (broker, tools, clients, Kafka Streams and a log4j2 binding for
# slf4j) from Maven Central into a cache outside the work tree, for the tests and benches that
# run real Apache Kafka. A second run downloads nothing. Prints the directory holding the jars.
#
#   KCLI_KAFKA_VERSION  default 4.4.0 (the newest release; the tests' compatibility subset
#                       also runs 4.3.1, 3.9.1 and 3.7.2). 4.x logs through log4j2 (a binding
#                       for slf4j is added); 3.x through reload4j (log4j 1), which its jars bring.
#   KCLI_CACHE_DIR      default ${XDG_CACHE_HOME:-~/.cache}/kcli
#
# No jar and no Apache code goes into the repository: only this recipe of coordinates.
set -euo pipefail

version="${KCLI_KAFKA_VERSION:-4.4.0}"
log4j="2.25.4"     # the log4j-core version kafka_2.13 4.3.1 and 4.4.0 resolve to; the binding matches it
binding=()
case "$version" in
  3.*) ;;                                           # slf4j-reload4j comes with kafka_2.13 3.x
  *) binding=("log4j-slf4j-impl-$log4j.jar") ;;
esac
cache="${KCLI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kcli}"
home="$cache/kafka-$version"
libs="$home/libs"

if [ -f "$home/complete" ]; then
  echo "$libs"
  exit 0
fi
if ! command -v mvn >/dev/null 2>&1; then
  echo "Cannot provision Apache Kafka $version: Maven (mvn) is not installed" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  echo '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
  echo '<groupId>kcli.provision</groupId><artifactId>apache-kafka</artifactId><version>1</version>'
  echo '<dependencies>'
  for artifact in kafka_2.13 kafka-tools kafka-clients kafka-streams; do
    echo "<dependency><groupId>org.apache.kafka</groupId><artifactId>$artifact</artifactId><version>$version</version></dependency>"
  done
  if [ ${#binding[@]} -gt 0 ]; then
    echo "<dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$log4j</version></dependency>"
  fi
  echo '</dependencies></project>'
} > "$work/pom.xml"

rm -rf "$libs.partial"
if ! mvn -B -q -Dstyle.color=never -f "$work/pom.xml" -Dmaven.repo.local="$cache/m2" \
     dependency:copy-dependencies -DoutputDirectory="$libs.partial" > "$work/mvn.log" 2>&1; then
  reason=$(sed -E 's/\x1b\[[0-9;]*m//g' "$work/mvn.log" | grep -m1 -E '\[ERROR\]' | sed -E 's/^\[ERROR\] *//' | cut -c1-300)
  echo "Cannot download Apache Kafka $version from Maven Central: ${reason:-mvn failed}" >&2
  exit 1
fi
for jar in "kafka_2.13-$version.jar" "kafka-tools-$version.jar" "kafka-clients-$version.jar" \
           "kafka-streams-$version.jar" "${binding[@]}"; do
  if [ ! -f "$libs.partial/$jar" ]; then
    echo "Cannot provision Apache Kafka $version: $jar missing after the download" >&2
    exit 1
  fi
done
rm -rf "$libs"
mv "$libs.partial" "$libs"
echo "$version" > "$home/complete"
echo "$libs"
