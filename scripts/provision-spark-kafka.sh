#!/usr/bin/env bash
# Fetches Spark's own Kafka connector, org.apache.spark:spark-sql-kafka-0-10_2.13, and the
# dependencies pyspark does not ship (spark-token-provider-kafka, kafka-clients, commons-pool2)
# from Maven Central into the cache that holds the Kafka jars, for `kcli audit --source jvm|auto`
# and its tests. The connector's version is pyspark's (they must match; pyproject.toml pins
# pyspark where Maven serves the connector). A second run downloads nothing. Prints the directory
# holding the jars, which kcli finds by itself (kcli.pipeline.spark.connector_jars).
#
#   PYTHON          the interpreter with pyspark (default: .venv/bin/python, else python3)
#   KCLI_CACHE_DIR  default ${XDG_CACHE_HOME:-~/.cache}/kcli
#
# No jar goes into the repository: only this recipe of coordinates.
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-}"
[ -n "$python" ] || { [ -x .venv/bin/python ] && python=.venv/bin/python || python=python3; }
read -r version jars < <("$python" -c 'import os, pyspark; print(pyspark.__version__, os.path.join(os.path.dirname(pyspark.__file__), "jars"))') || {
  echo "Cannot provision Spark's Kafka connector: pyspark is not installed for $python" >&2
  exit 1
}
cache="${KCLI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kcli}"
home="$cache/spark-kafka-$version"

if [ -f "$home/complete" ]; then
  echo "$home/jars"
  exit 0
fi
if ! command -v mvn >/dev/null 2>&1; then
  echo "Cannot provision Spark's Kafka connector $version: Maven (mvn) is not installed" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>kcli.provision</groupId><artifactId>spark-kafka</artifactId><version>1</version>
<dependencies><dependency><groupId>org.apache.spark</groupId>
<artifactId>spark-sql-kafka-0-10_2.13</artifactId><version>$version</version></dependency></dependencies>
</project>
POM

rm -rf "$home/jars.partial"
if ! mvn -B -q -Dstyle.color=never -f "$work/pom.xml" -Dmaven.repo.local="$cache/m2" \
     dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$home/jars.partial" \
     > "$work/mvn.log" 2>&1; then
  reason=$(sed -E 's/\x1b\[[0-9;]*m//g' "$work/mvn.log" | grep -m1 -E '\[ERROR\]' | sed -E 's/^\[ERROR\] *//' | cut -c1-300)
  echo "Cannot download Spark's Kafka connector $version from Maven Central: ${reason:-mvn failed}" >&2
  exit 1
fi
# pyspark ships Scala, Hadoop's client, slf4j, lz4, snappy...: a second copy of a jar on the
# classpath (of another version) is left out, by artifact name
for jar in "$home/jars.partial"/*.jar; do
  name=$(basename "$jar")
  artifact="${name%-[0-9]*}"
  if compgen -G "$jars/$artifact-[0-9]*.jar" >/dev/null; then
    rm "$jar"
  fi
done
if [ ! -f "$home/jars.partial/spark-sql-kafka-0-10_2.13-$version.jar" ]; then
  echo "Cannot provision Spark's Kafka connector $version: its jar is missing after the download" >&2
  exit 1
fi
rm -rf "$home/jars"
mv "$home/jars.partial" "$home/jars"
echo "$version" > "$home/complete"
echo "$home/jars"
