// Package nsaddr owns the address service: the NameServer list that
// clients configured with a domain instead of addresses fetch over HTTP,
// so that adding or replacing a NameServer needs no change on any client.
//
// Java clients (and brokers with fetchNamesrvAddrByAddressServer=true)
// build the URL in MixAll.getWSAddr and fetch it in
// DefaultTopAddressing.fetchNSAddr:
// http://{rocketmq.namesrv.domain}[:8080]/rocketmq/{subgroup}, subgroup
// rocketmq.namesrv.domain.subgroup (default "nsaddr"), with
// "-{unitName}?nofix=1" appended for a unit; port 8080 unless the domain
// names one. They take the trimmed body up to its first line break as
// "host:port;host:port". rocketmq-client-go's HttpResolver
// (WithNameServerDomain) takes the whole URL, asks it at start, 10 s later
// and every 2 minutes, splits the trimmed body on ';', and on a failure
// or an empty body falls back to the last list it saved under
// ~/logs/rocketmq-go/snapshot.
//
// A Source serves the list from nsAddrList (fixed) or nsAddrFile (re-read
// when its internal/watchedfile.Stamp changes: inode, size, modification
// time, mode or change time, checked on each request; a file that becomes unreadable, invalid or other than a
// regular file leaves the last good list served, with a warning when the
// failure starts or changes, not at every request). Handler answers GET /rocketmq/nsaddr and
// /rocketmq/nsaddr-{unit} (queries ignored) with the list as text, and
// 404 for other subgroups. The NameServer mounts it on its metrics
// listener (package metrics); without either key the path is not mounted
// and answers 404.
package nsaddr
