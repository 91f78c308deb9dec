package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/rmqgo/nameserver/config"
)

type restrictedPod struct {
	Spec struct {
		Template struct {
			Spec struct {
				TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
				SecurityContext               struct {
					RunAsNonRoot   bool                  `yaml:"runAsNonRoot"`
					SeccompProfile struct{ Type string } `yaml:"seccompProfile"`
				} `yaml:"securityContext"`
				InitContainers []restrictedContainer `yaml:"initContainers"`
				Containers     []restrictedContainer
			}
		}
	}
}

type restrictedContainer struct {
	Name            string
	Image           string
	ImagePullPolicy string `yaml:"imagePullPolicy"`
	Env             []struct{ Name, Value string }
	Resources       struct {
		Limits struct{ Memory string }
	}
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		Capabilities             struct{ Drop []string }
	} `yaml:"securityContext"`
}

func readStatefulSet(t *testing.T) restrictedPod {
	b, err := os.ReadFile(filepath.Join(root, "deploy/k8s/namesrv-controller.yaml"))
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var head struct{ Kind string }
		var node yaml.Node
		err := dec.Decode(&node)
		require.False(t, errors.Is(err, io.EOF), "no StatefulSet")
		require.NoError(t, err)
		require.NoError(t, node.Decode(&head))
		if head.Kind == "StatefulSet" {
			var sts restrictedPod
			require.NoError(t, node.Decode(&sts))
			return sts
		}
	}
}

// The pod passes Pod Security "restricted" (non-root, RuntimeDefault
// seccomp, no privilege escalation, all capabilities dropped), names its
// pull policy, sets GOMEMLIMIT under the memory limit, and gives the
// graceful stop README recommends (enableShutdownGracefully=true, plus
// the Controller's 10 s) time before SIGKILL.
func TestK8sPodRestricted(t *testing.T) {
	pod := readStatefulSet(t).Spec.Template.Spec
	require.True(t, pod.SecurityContext.RunAsNonRoot)
	require.Equal(t, "RuntimeDefault", pod.SecurityContext.SeccompProfile.Type)
	for _, c := range append(pod.InitContainers, pod.Containers...) {
		require.NotNil(t, c.SecurityContext.AllowPrivilegeEscalation, c.Name)
		require.False(t, *c.SecurityContext.AllowPrivilegeEscalation, c.Name)
		require.Equal(t, []string{"ALL"}, c.SecurityContext.Capabilities.Drop, c.Name)
		require.NotEmpty(t, c.ImagePullPolicy, c.Name)
	}
	ctr := pod.Containers[0]
	limit := parseQuantity(t, ctr.Resources.Limits.Memory)
	var memLimit string
	for _, e := range ctr.Env {
		if e.Name == "GOMEMLIMIT" {
			memLimit = e.Value
		}
	}
	gomem := parseQuantity(t, memLimit)
	require.Less(t, gomem, limit)
	require.Greater(t, gomem, limit*8/10)

	c := config.Default()
	c.EnableShutdownGracefully = true
	require.Greater(t, time.Duration(pod.TerminationGracePeriodSeconds)*time.Second, c.ShutdownBudget()+10*time.Second)
}

// parseQuantity reads the Mi/Gi (Kubernetes) and MiB/GiB (GOMEMLIMIT)
// byte quantities the manifest uses.
func parseQuantity(t *testing.T, q string) int64 {
	for suffix, mult := range map[string]int64{"MiB": 1 << 20, "GiB": 1 << 30, "Mi": 1 << 20, "Gi": 1 << 30} {
		if n, ok := bytes.CutSuffix([]byte(q), []byte(suffix)); ok {
			return int64(atoi(t, string(n))) * mult
		}
	}
	t.Fatalf("quantity %q", q)
	return 0
}
