package deploy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/rmqgo/nameserver/config"
)

type k8sDoc struct {
	Kind     string
	Metadata struct{ Name string }
	Data     map[string]string
	Spec     struct {
		ClusterIP   string `yaml:"clusterIP"`
		Ports       []servicePort
		ServiceName string `yaml:"serviceName"`
		Replicas    int
		Template    struct{ Spec podSpec }
	}
}

type servicePort struct {
	Name       string
	Port       int
	TargetPort any `yaml:"targetPort"`
}

type podSpec struct {
	EnableServiceLinks *bool `yaml:"enableServiceLinks"`
	SecurityContext    struct {
		RunAsUser  int `yaml:"runAsUser"`
		RunAsGroup int `yaml:"runAsGroup"`
	} `yaml:"securityContext"`
	Containers []container
}

type container struct {
	Name, Image string
	Command     []string
	Env         []struct{ Name, Value string }
	Ports       []struct {
		Name          string
		ContainerPort int `yaml:"containerPort"`
	}
	LivenessProbe  *probe `yaml:"livenessProbe"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
	StartupProbe   *probe `yaml:"startupProbe"`
}

type probe struct {
	HTTPGet struct{ Path, Port string } `yaml:"httpGet"`
}

// readK8s returns the manifest's documents by kind and name.
func readK8s(t *testing.T) map[string]k8sDoc {
	b, err := os.ReadFile(filepath.Join(root, "deploy/k8s/namesrv-controller.yaml"))
	require.NoError(t, err)
	docs := map[string]k8sDoc{}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var d k8sDoc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs
		}
		require.NoError(t, err)
		docs[d.Kind+"/"+d.Metadata.Name] = d
	}
}

// renderTemplate writes the ConfigMap's template as the init container
// renders it for ordinal 0 and returns its path.
func renderTemplate(t *testing.T, docs map[string]k8sDoc) string {
	tmpl := docs["ConfigMap/rocketmq-namesrv"].Data["namesrv.properties.tmpl"]
	require.NotEmpty(t, tmpl)
	path := filepath.Join(t.TempDir(), "namesrv.properties")
	require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(tmpl, "@SELF@", "n0")), 0o644))
	return path
}

// The StatefulSet runs the image compose uses, as the image's user, with
// the image's entrypoint and -c path; its container ports are the ones
// the rendered configuration listens on; the probes ask /healthz and
// /readyz on the metrics port; the Services publish those ports; the peer
// and address lists name the pods.
func TestK8sManifestAgrees(t *testing.T) {
	docs := readK8s(t)
	sts := docs["StatefulSet/rocketmq-namesrv"]
	pod := sts.Spec.Template.Spec
	require.Len(t, pod.Containers, 1)
	ctr := pod.Containers[0]
	require.Equal(t, readCompose(t).Services["n0"].Image, ctr.Image)
	require.Equal(t, []string{imageBinary, "-c", imageConfig}, ctr.Command)
	require.Equal(t, imageUser, strconv.Itoa(pod.SecurityContext.RunAsUser)+":"+strconv.Itoa(pod.SecurityContext.RunAsGroup))
	require.NotNil(t, pod.EnableServiceLinks)
	require.False(t, *pod.EnableServiceLinks, "no Service may inject NAMESRV_ variables")

	env := map[string]string{}
	for _, e := range ctr.Env {
		env[e.Name] = e.Value
	}
	require.Equal(t, "/data", env["HOME"], "as the image's ENV")
	c, err := config.LoadWithEnv(renderTemplate(t, docs), environ(env))
	require.NoError(t, err)
	require.Equal(t, imageConfig, filepath.Clean(c.RawProperties()["configStorePath"]), "updates persist to the -c file")

	ports := map[string]int{}
	for _, p := range ctr.Ports {
		ports[p.Name] = p.ContainerPort
	}
	cc := &c.Controller
	require.Equal(t, c.ListenPort, ports["remoting"])
	require.Equal(t, c.MetricsPromExporterPort, ports["metrics"])
	require.Equal(t, portOf(t, cc.SelfRemotingAddr()), ports["controller"])
	require.Equal(t, portOf(t, cc.SelfRaftAddr()), ports["raft"])
	for p, path := range map[*probe]string{ctr.StartupProbe: "/healthz", ctr.LivenessProbe: "/healthz", ctr.ReadinessProbe: "/readyz"} {
		require.NotNil(t, p)
		require.Equal(t, path, p.HTTPGet.Path)
		require.Equal(t, "metrics", p.HTTPGet.Port)
	}

	peers := docs["Service/"+sts.Spec.ServiceName]
	require.Equal(t, "None", peers.Spec.ClusterIP)
	for _, sp := range peers.Spec.Ports {
		require.Equal(t, ports[sp.Name], sp.Port, sp.Name)
	}
	client := docs["Service/rocketmq-namesrv"]
	require.Contains(t, client.Spec.Ports, servicePort{Name: "remoting", Port: ports["remoting"]})
	require.Contains(t, client.Spec.Ports, servicePort{Name: "nsaddr", Port: 8080, TargetPort: "metrics"},
		"Java clients ask the address service on 8080 by default")

	pods := make([]string, sts.Spec.Replicas)
	for i := range pods {
		pods[i] = sts.Metadata.Name + "-" + strconv.Itoa(i) + "." + sts.Spec.ServiceName
	}
	requireListNames(t, c.NsAddrList, pods, c.ListenPort)
	requireListNames(t, strings.NewReplacer("n0-", "", "n1-", "", "n2-", "").Replace(cc.ControllerDLegerPeers), pods, ports["controller"])
	requireListNames(t, strings.NewReplacer("n0-", "", "n1-", "", "n2-", "").Replace(cc.ControllerRaftPeers), pods, ports["raft"])
}

func portOf(t *testing.T, addr string) int {
	_, p, err := net.SplitHostPort(addr)
	require.NoError(t, err, addr)
	return atoi(t, p)
}

// requireListNames checks that list is host:port;... over hosts, in order.
func requireListNames(t *testing.T, list string, hosts []string, port int) {
	addrs, err := config.ParseNsAddrList("list", list)
	require.NoError(t, err)
	require.Len(t, addrs, len(hosts))
	for i, a := range addrs {
		require.Equal(t, net.JoinHostPort(hosts[i], strconv.Itoa(port)), a)
	}
}
