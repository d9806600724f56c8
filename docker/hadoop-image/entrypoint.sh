#!/bin/sh
# Formats the NameNode's directory first when ENSURE_NAMENODE_DIR names one that does not exist
# yet (as the apache/hadoop image's entrypoint does), then runs the command.
set -eu
if [ -n "${ENSURE_NAMENODE_DIR:-}" ] && [ ! -d "$ENSURE_NAMENODE_DIR" ]; then
  hdfs namenode -format -force -nonInteractive
fi
exec "$@"
