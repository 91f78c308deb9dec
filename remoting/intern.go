package remoting

// commonExtKeys are extFields keys RocketMQ peers send often. Decoding
// returns these constants instead of allocating a new string per request.
var commonExtKeys = map[string]string{}

func init() {
	for _, k := range []string{
		"topic", "brokerName", "brokerAddr", "clusterName", "cluster",
		"brokerId", "haServerAddr", "masterAddr", "namespace", "key", "value",
		"compressed", "bodyCrc32", "enableActingMaster",
		"heartbeatTimeoutMillis", "heartbeatTimeoutMills",
		"acceptStandardJsonOnly", "__ZONE_MODE", "__ZONE_NAME",
		"lo", "ns", "nsd", "bname", "oway", "epoch", "maxOffset",
		"confirmOffset", "electionPriority", "changed", "wipeTopicCount",
		"addTopicCount", "masterEpoch", "syncStateSetEpoch", "masterBrokerId",
		"masterAddress", "brokerClusterName", "brokerAddress", "minBrokerId",
		"minBrokerAddr", "offlineBrokerAddr", "haBrokerAddr", "isLeader",
		"controllerLeaderId", "controllerLeaderAddress", "peers", "group",
		"nextBrokerId", "appliedBrokerId", "registerCheckCode",
		"designateElect", "invokeTime", "newSyncStateSetEpoch",
		"isCleanLivingBroker", "brokerControllerIdsToClean",
	} {
		commonExtKeys[k] = k
	}
}

// internExtKey returns a string equal to b, shared for common keys.
func internExtKey(b []byte) string {
	if k, ok := commonExtKeys[string(b)]; ok {
		return k
	}
	return string(b)
}

// internExtValue returns a string equal to b, shared for common values.
func internExtValue(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case "true":
		return "true"
	case "false":
		return "false"
	case "0":
		return "0"
	case "1":
		return "1"
	}
	return string(b)
}
