// Package statuspage is the read-only status page served at / of the
// metrics listener: this node's role and versions, its listeners, the
// NameServer's live brokers with the time since their last heartbeat and
// its topic counts, and the Controller's Raft leader, members, cluster
// version and broker sets (master, master epoch, sync-state set).
//
// The page depends on two small interfaces it declares, NamesrvSource
// (namesrv.Server) and ControllerSource (controller.Controller), set on a
// Page once the servers run. Each returns a copy of at most the rows the
// page shows, taken from the servers' own tables; the page renders that
// copy with no lock of theirs held, and renders at most once per second
// (Refresh) whatever the request rate, so a flood of requests costs the
// route tables and the Raft state one short copy a second.
//
// It is plain HTML with inline CSS: no external asset, no script (its
// Content-Security-Policy forbids both). Every value a stranger chooses
// (broker, cluster and set names, addresses) is HTML-escaped by
// html/template and cut to MaxText bytes; each table shows at most
// MaxRows rows (a sync-state set MaxSync brokers) and says how many more
// there are, so the page's size is bounded whatever the tables hold. It answers GET and HEAD only (others
// 405, from the mux pattern) and changes nothing.
package statuspage
