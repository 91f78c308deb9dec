package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/rmqgo/nameserver/internal/watchedfile"
)

// AddrService holds the keys of the address service (ours): the
// NameServer list that the HTTP listener of metricsExporterType=PROM
// serves on GET /rocketmq/nsaddr (and /rocketmq/nsaddr-<unit>) to clients
// that find NameServers by domain (Java's TopAddressing behind
// rocketmq.namesrv.domain, rocketmq-client-go's WithNameServerDomain).
// Both are off by default; at most one may be set.
type AddrService struct {
	// NsAddrList is a literal "host:port;host:port" list.
	NsAddrList string `prop:"nsAddrList,omitempty"`
	// NsAddrFile names a file holding such a list, re-read when it changes.
	NsAddrFile string `prop:"nsAddrFile,omitempty"`
}

// NsAddrMaxFileBytes bounds what is read of nsAddrFile.
const NsAddrMaxFileBytes = 64 << 10

// The list redirects every client that resolves NameServers through it, so
// no remote update may change where it comes from: change the file.
func init() { fixedBlackList = append(fixedBlackList, "nsAddrList", "nsAddrFile") }

// AddrServiceEnabled reports whether nsAddrList or nsAddrFile is set.
func (a AddrService) AddrServiceEnabled() bool { return a.NsAddrList != "" || a.NsAddrFile != "" }

// ParseNsAddrList parses "host:port;host:port" (white space around entries
// and empty entries ignored) into its entries; key and the source name the
// list in errors, which wrap ErrInvalid. An empty list is an error: a
// Java client would take it as "no NameServer".
func ParseNsAddrList(key, s string) ([]string, error) {
	var addrs []string
	for entry := range strings.SplitSeq(s, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		host, port, err := net.SplitHostPort(entry)
		n, perr := strconv.Atoi(port)
		if err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%w: %s: %q is not host:port", ErrInvalid, key, entry)
		}
		addrs = append(addrs, entry)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%w: %s holds no host:port entry", ErrInvalid, key)
	}
	return addrs, nil
}

// ReadNsAddrFile reads and parses the list held by path, a regular file
// of at most NsAddrMaxFileBytes.
func ReadNsAddrFile(path string) ([]string, error) {
	data, _, err := watchedfile.Read(path, NsAddrMaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: nsAddrFile: %w", ErrInvalid, err)
	}
	return ParseNsAddrList("nsAddrFile "+path, string(data))
}

// addrServiceRules: at most one source, a valid list, and the HTTP
// listener (metricsExporterType=PROM) to serve it.
func (c *NamesrvConfig) addrServiceRules(r *rules) {
	a := c.AddrService
	if a.NsAddrList != "" && a.NsAddrFile != "" {
		r.addf("nsAddrList and nsAddrFile are both set: set one")
	}
	var errs []error
	if a.NsAddrList != "" {
		_, err := ParseNsAddrList("nsAddrList", a.NsAddrList)
		errs = append(errs, err)
	}
	if a.NsAddrFile != "" {
		_, err := ReadNsAddrFile(a.NsAddrFile)
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		r.errs = append(r.errs, err)
	}
	if a.AddrServiceEnabled() && !c.PromMetricsEnabled() {
		r.addf("nsAddrList/nsAddrFile need metricsExporterType=PROM: its HTTP listener serves the list")
	}
}
