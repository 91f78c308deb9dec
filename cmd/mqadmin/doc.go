// Command mqadmin operates NameServers and Controllers with the command
// names, flags and output layouts of Java's mqadmin, so runbooks keep
// working, plus three checks of its own.
//
//	mqadmin <command> [-n "host:port;host:port"] [options] [--json]
//
// NameServer commands (-n, or $NAMESRV_ADDR): clusterList, topicRoute,
// topicList, topicClusterList, deleteTopic (DELETE_TOPIC_IN_BROKER on
// every master of the -c cluster, then DELETE_TOPIC_IN_NAMESRV on every -n
// address), updateOrderConf,
// updateKvConfig, deleteKvConfig, getNamesrvConfig, updateNamesrvConfig,
// wipeWritePerm, addWritePerm. Reads go to the first reachable NameServer;
// writes go to every listed one and report each.
//
// Controller commands (-a "host:port;host:port"): getControllerMetaData,
// getControllerConfig, updateControllerConfig, getSyncStateSet,
// electMaster, cleanBrokerMetadata. Leader-gated requests first ask
// CONTROLLER_GET_METADATA_INFO for the leader and go to it.
//
// Checks:
//   - routeDiff -n "ns1;ns2;ns3" [-t topic]: compares cluster info, topic
//     lists and routes broker by broker and topic by topic; exit 0 when
//     identical, 1 when they differ, 2 when a NameServer could not be read.
//   - diagnose -n ... -t topic [-a controllers]: prints each finding with
//     its evidence; exit 0 when the topic is sendable (a writable queue on
//     a master whose endpoint accepts TCP and answers), 1 otherwise.
//   - waitRoute -n ... -t topic [--writable] [--timeout 60s]: exit 0 once
//     every NameServer returns the route, 1 on timeout.
//
// Every command accepts --json for scripts. Exit status: 0 success, 1 an
// error (unreachable address, error reply) or a negative check, 2 a bad
// command line. The admin package does the fetching; this command only
// parses flags and formats.
package main
