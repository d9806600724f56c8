#!/bin/sh
# Writes /conf/zoo.cfg for one standalone server and runs it in the foreground as `zookeeper`.
set -eu
chown zookeeper:zookeeper /data /datalog
cat >/conf/zoo.cfg <<CFG
tickTime=2000
initLimit=5
syncLimit=2
dataDir=/data
dataLogDir=/datalog
clientPort=2181
admin.enableServer=false
4lw.commands.whitelist=${ZOO_4LW_COMMANDS_WHITELIST:-srvr}
CFG
CP=/conf:/etc/zookeeper/conf:/usr/share/java/zookeeper.jar
exec setpriv --reuid=zookeeper --regid=zookeeper --init-groups \
  java -Xmx256m -XX:+UseSerialGC -Dzookeeper.root.logger=INFO,CONSOLE -Dlog4j.configuration=file:/etc/zookeeper/conf/log4j.properties -cp "$CP" \
  org.apache.zookeeper.server.quorum.QuorumPeerMain /conf/zoo.cfg
