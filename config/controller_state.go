package config

// StateBounds holds our bounds on the Controller's replicated state (Java
// has none: ReplicasInfoManager takes any number of broker sets and
// brokers, with names of any length). Every entry is kept in memory, in the
// Raft log until compaction and in every snapshot, on every node, so a
// stranger who can reach the controller port could otherwise grow the
// whole group until it runs out of memory (docs/controller.md section 2.7).
//
// The leader checks them in its command builders: a request that would
// pass one is answered CONTROLLER_INVALID_REQUEST (2005) naming the key,
// and nothing is appended. Apply never reads them (it must give the same
// result on every node whatever its config); it checks only the hard
// ceilings below, which are the upper ends of the keys' numericBounds.
type StateBounds struct {
	// ControllerMaxBrokerSets caps the broker sets (either half table).
	ControllerMaxBrokerSets int `prop:"controllerMaxBrokerSets"`
	// ControllerMaxBrokersPerSet caps the registered broker ids of one set.
	ControllerMaxBrokersPerSet int `prop:"controllerMaxBrokersPerSet"`
	// ControllerMaxNameLength caps a cluster or broker name, in bytes.
	ControllerMaxNameLength int `prop:"controllerMaxNameLength"`
	// ControllerMaxStateBytes caps the accounted size of the whole state.
	ControllerMaxStateBytes int64 `prop:"controllerMaxStateBytes"`
}

// Hard ceilings of the replicated state: the upper ends of the StateBounds
// keys in numericBounds, which Apply enforces on every entry marked
// checked (what leaders write from v1.0.0 on; docs/controller.md §2.7).
const (
	MaxControllerBrokerSets    = 100_000
	MaxControllerBrokersPerSet = 1024
	MaxControllerNameLength    = 255
	MaxControllerStateBytes    = 64 * MiB
)

// Defaults of the StateBounds keys: every real deployment fits (names up to
// 253 bytes, the longest Kubernetes name: Java's controller checks no
// length, and a pod's DNS name often is the broker name), and a flood of
// the largest requests grows a node by less than 64 MB
// (controller.TestAttackReplicatedStateGrowthBounded).
const (
	DefaultControllerMaxBrokerSets    = 8192
	DefaultControllerMaxBrokersPerSet = 64
	DefaultControllerMaxNameLength    = 253
	DefaultControllerMaxStateBytes    = 8 * MiB
)

func defaultStateBounds() StateBounds {
	return StateBounds{ControllerMaxBrokerSets: DefaultControllerMaxBrokerSets,
		ControllerMaxBrokersPerSet: DefaultControllerMaxBrokersPerSet,
		ControllerMaxNameLength:    DefaultControllerMaxNameLength,
		ControllerMaxStateBytes:    DefaultControllerMaxStateBytes}
}

// Limits of memory are never changeable remotely (update.go).
func init() {
	fixedBlackList = append(fixedBlackList, "controllerMaxBrokerSets", "controllerMaxBrokersPerSet",
		"controllerMaxNameLength", "controllerMaxStateBytes")
}
