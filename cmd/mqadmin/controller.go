package main

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/admin"
	"github.com/rmqgo/nameserver/controller/wire"
)

// controllers splits -a; none is a usage error.
func controllers(list string) ([]string, error) {
	addrs := admin.SplitAddrs(list)
	if len(addrs) == 0 {
		return nil, usageErrorf("missing required option: -a (controller addresses, \"host:port;host:port\")")
	}
	return addrs, nil
}

// orNull prints an absent header field as Java prints a null String.
func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

func setupGetControllerMetaData(fs *flag.FlagSet) runFunc {
	var list string
	strFlag(fs, &list, "a", "controllerAddress", "the address of controller")
	return func(e *env) error {
		addrs, err := controllers(list)
		if err != nil {
			return err
		}
		var md *admin.ControllerMetadata
		for _, a := range addrs { // the first controller that answers
			if md, err = e.client.ControllerMetadata(e.ctx, a); err == nil {
				break
			}
		}
		if err != nil {
			return err
		}
		if e.json {
			return e.printJSON(md)
		}
		e.printf("\n#ControllerGroup\t%s", orNull(md.Group))
		e.printf("\n#ControllerLeaderId\t%s", orNull(md.LeaderID))
		e.printf("\n#ControllerLeaderAddress\t%s", orNull(md.LeaderAddr))
		for _, p := range md.PeerList() {
			e.printf("\n#Peer:\t%s", p)
		}
		printVersions(e, md)
		e.printf("\n")
		return nil
	}
}

func setupGetControllerConfig(fs *flag.FlagSet) runFunc {
	var list string
	strFlag(fs, &list, "a", "controllerAddress", "Controller address list, eg: 192.168.0.1:9878;192.168.0.2:9878")
	return func(e *env) error {
		addrs, err := controllers(list)
		if err != nil {
			return err
		}
		return printConfigs(e, addrs, e.client.ControllerConfig)
	}
}

func setupUpdateControllerConfig(fs *flag.FlagSet) runFunc {
	var list, key, value string
	strFlag(fs, &list, "a", "controllerAddress", "Controller address list, eg: 192.168.0.1:9878;192.168.0.2:9878")
	strFlag(fs, &key, "k", "key", "config key")
	strFlag(fs, &value, "v", "value", "config value")
	return func(e *env) error {
		addrs, err := controllers(list)
		if err == nil {
			err = required(opt("k", &key), opt("v", &value))
		}
		if err != nil {
			return err
		}
		return updateConfigs(e, addrs, key, value, "controller", e.client.UpdateControllerConfig)
	}
}

func setupGetSyncStateSet(fs *flag.FlagSet) runFunc {
	var list, cluster, broker, interval string
	strFlag(fs, &list, "a", "controllerAddress", "the address of controller")
	strFlag(fs, &cluster, "c", "clusterName", "which cluster")
	strFlag(fs, &broker, "b", "brokerName", "which broker to fetch")
	strFlag(fs, &interval, "i", "interval", "the interval(second) of get info")
	return func(e *env) error {
		addrs, err := controllers(list)
		if err != nil {
			return err
		}
		every, err := parseSeconds(interval)
		if err != nil {
			return err
		}
		return repeat(e, every, func() error { return syncStateSetOnce(e, addrs, broker, cluster) })
	}
}

func syncStateSetOnce(e *env, addrs []string, broker, cluster string) error {
	names, err := syncStateTargets(e, broker, cluster)
	if err != nil {
		return err
	}
	leader, err := e.client.FindLeader(e.ctx, addrs)
	if err != nil {
		return err
	}
	info, err := e.client.SyncStateData(e.ctx, leader.LeaderAddr, names)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(info)
	}
	printSyncStateSet(e, info)
	return nil
}

// syncStateTargets is -b, or the broker names of cluster -c (asked from -n).
func syncStateTargets(e *env, broker, cluster string) ([]string, error) {
	if broker != "" {
		return []string{broker}, nil
	}
	if cluster == "" {
		return nil, usageErrorf("give -b brokerName or -c clusterName")
	}
	ns, err := e.nameServers()
	if err != nil {
		return nil, err
	}
	ci, err := e.client.ClusterInfoAny(e.ctx, ns)
	if err != nil {
		return nil, err
	}
	names := slices.Sorted(slices.Values(ci.ClusterAddrTable[cluster]))
	if len(names) == 0 {
		return nil, fmt.Errorf("cluster %q has no broker on the NameServers", cluster)
	}
	return names, nil
}

func printSyncStateSet(e *env, info *wire.BrokerReplicasInfo) {
	for _, name := range slices.Sorted(maps.Keys(info.ReplicasInfoTable)) {
		ri := info.ReplicasInfoTable[name]
		masterID, masterAddr := "null", "null"
		if ri.MasterBrokerID != nil {
			masterID = strconv.FormatInt(*ri.MasterBrokerID, 10)
		}
		if ri.MasterAddress != nil {
			masterAddr = *ri.MasterAddress
		}
		e.printf("\n#brokerName\t%s\n#MasterBrokerId\t%s\n#MasterAddr\t%s\n#MasterEpoch\t%d\n#SyncStateSetEpoch\t%d\n#SyncStateSetNums\t%d\n",
			name, masterID, masterAddr, ri.MasterEpoch, ri.SyncStateSetEpoch, len(ri.InSyncReplicas))
		for _, r := range ri.InSyncReplicas {
			e.printf("\nInSyncReplica:\t%s\n", r)
		}
		for _, r := range ri.NotInSyncReplicas {
			e.printf("\nNotInSyncReplica:\t%s\n", r)
		}
	}
}

func setupElectMaster(fs *flag.FlagSet) runFunc {
	var list, id, broker, cluster string
	strFlag(fs, &list, "a", "controllerAddress", "The address of controller")
	strFlag(fs, &id, "b", "brokerId", "The id of the broker which requires to become master")
	strFlag(fs, &broker, "bn", "brokerName", "The broker name of the replicas that require to be manipulated")
	strFlag(fs, &cluster, "c", "clusterName", "the clusterName of broker")
	return func(e *env) error {
		addrs, err := controllers(list)
		if err == nil {
			err = required(opt("b", &id), opt("bn", &broker), opt("c", &cluster))
		}
		if err != nil {
			return err
		}
		brokerID, perr := strconv.ParseInt(id, 10, 64)
		if perr != nil {
			return usageErrorf("-b must be a broker id, not %q", id)
		}
		leader, err := e.client.FindLeader(e.ctx, addrs)
		if err != nil {
			return err
		}
		res, err := e.client.ElectMaster(e.ctx, leader.LeaderAddr, cluster, broker, brokerID)
		if err != nil {
			return err
		}
		if e.json {
			return e.printJSON(map[string]any{"clusterName": cluster, "brokerName": broker, "result": res})
		}
		printElect(e, cluster, broker, res)
		return nil
	}
}

func printElect(e *env, cluster, broker string, res *admin.ElectResult) {
	e.printf("\n#ClusterName\t%s", cluster)
	e.printf("\n#BrokerName\t%s", broker)
	e.printf("\n#BrokerMasterAddr\t%s", orNull(res.MasterAddress))
	e.printf("\n#MasterEpoch\t%d", res.MasterEpoch)
	e.printf("\n#SyncStateSetEpoch\t%d\n", res.SyncStateSetEpoch)
	for _, id := range slices.Sorted(maps.Keys(res.BrokerAddrs)) {
		e.printf("\t#Broker\t%d\t%s\n", id, res.BrokerAddrs[id])
	}
}

func setupCleanBrokerMetadata(fs *flag.FlagSet) runFunc {
	var list, ids, broker, cluster string
	var living bool
	strFlag(fs, &list, "a", "controllerAddress", "The address of controller")
	strFlag(fs, &ids, "b", "brokerControllerIdsToClean", "The brokerController id list which requires to clean metadata. eg: 1;2;3")
	strFlag(fs, &broker, "bn", "brokerName", "The broker name of the replicas that require to be manipulated")
	strFlag(fs, &cluster, "c", "clusterName", "The clusterName of broker")
	boolFlag(fs, &living, "l", "cleanLivingBroker", "Whether clean up living brokers,default value is false")
	return func(e *env) error {
		addrs, err := controllers(list)
		if err == nil {
			err = cleanArgs(&broker, &cluster, &ids, living)
		}
		if err != nil {
			return err
		}
		leader, err := e.client.FindLeader(e.ctx, addrs)
		if err != nil {
			return err
		}
		if err := e.client.CleanBrokerData(e.ctx, leader.LeaderAddr, cluster, broker, ids, living); err != nil {
			return err
		}
		if e.json {
			return e.printJSON(map[string]any{"brokerName": broker, "ok": true})
		}
		e.printf("clear broker %s metadata from controller success! \n", broker)
		return nil
	}
}

// cleanArgs checks cleanBrokerMetadata's options as Java does.
func cleanArgs(broker, cluster, ids *string, living bool) error {
	if err := required(opt("bn", broker)); err != nil {
		return err
	}
	*cluster, *ids = strings.TrimSpace(*cluster), strings.TrimSpace(*ids)
	if !living && *cluster == "" {
		return usageErrorf("cleanLivingBroker option is false, clusterName option can not be empty.")
	}
	if *ids != "" {
		if err := admin.ParseBrokerIDs(*ids); err != nil {
			return &usageError{msg: err.Error()}
		}
	}
	return nil
}
