package statuspage

import "html/template"

// pageTemplate is the page. html/template escapes every value for its
// context; the style is inline and nothing else is loaded.
var pageTemplate = template.Must(template.New("status").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>RocketMQ {{.Role}} status</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f23;background:#fff}
h1{font-size:1.4em;margin:0 0 .6em}h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse;margin:.3em 0}th,td{border:1px solid #d0d7de;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
.more{color:#57606a;font-style:italic}.bad{color:#b42318;font-weight:600}.ok{color:#1a7f37;font-weight:600}
code{font:13px ui-monospace,monospace}
</style></head>
<body>
<h1>RocketMQ {{.Role}}</h1>
<h2>Node</h2>
<table id="node">
<tr><th>Role</th><td>{{.Role}}</td></tr>
<tr><th>Release</th><td><code>{{.Release}}</code></td></tr>
<tr><th>VCS revision</th><td><code>{{.Revision}}</code></td></tr>
<tr><th>Controller format read</th><td>{{.Format}}</td></tr>
{{- with .Controller}}
<tr><th>Cluster version</th><td>{{.ClusterVersion}}</td></tr>
{{- end}}
</table>
<h2>Listeners</h2>
<table id="listeners"><tr><th>Listener</th><th>Address</th></tr>
{{- range .Listeners}}
<tr><td>{{.Name}}</td><td><code>{{.Addr}}</code></td></tr>
{{- end}}
</table>
{{- with .Namesrv}}
<h2>NameServer</h2>
<table id="counts">
<tr><th>Topics</th><td class="n">{{.Topics}}</td></tr>
<tr><th>Clusters</th><td class="n">{{.Clusters}}</td></tr>
<tr><th>Broker groups</th><td class="n">{{.BrokerGroups}}</td></tr>
<tr><th>Live brokers</th><td class="n">{{.LiveBrokers}}</td></tr>
</table>
<h3>Live brokers</h3>
<table id="brokers"><tr><th>Cluster</th><th>Broker</th><th>Id</th><th>Address</th><th>Last heartbeat</th><th>Topics</th></tr>
{{- range .Brokers}}
<tr><td>{{.Cluster}}</td><td>{{.Name}}</td><td class="n">{{.ID}}</td><td><code>{{.Addr}}</code></td><td class="n">{{.Ago}}</td><td class="n">{{.Topics}}</td></tr>
{{- end}}
</table>
{{- if .More}}<p class="more">and {{.More}} more</p>{{end}}
{{- end}}
{{- with .Controller}}
<h2>Controller</h2>
<table id="raft">
<tr><th>This node</th><td>{{.SelfID}}</td></tr>
<tr><th>Raft state</th><td>{{.RaftState}}</td></tr>
<tr><th>Term</th><td>{{.Term}}</td></tr>
<tr><th>Leader</th><td>{{if .LeaderID}}<span class="ok">{{.LeaderID}}</span>{{else}}<span class="bad">none known</span>{{end}}</td></tr>
<tr><th>Cluster version</th><td>{{.ClusterVersion}} (this node reads format {{.Format}})</td></tr>
</table>
<h3>Members</h3>
{{- if .MembersError}}<p class="bad">{{.MembersError}}</p>{{end}}
<table id="members"><tr><th>Id</th><th>Raft address</th><th>Broker-facing address</th><th>Voter</th></tr>
{{- range .Members}}
<tr><td>{{.ID}}{{if eq .ID $.Controller.LeaderID}} (leader){{end}}</td><td><code>{{.RaftAddr}}</code></td><td><code>{{.Addr}}</code></td><td>{{if .Voter}}yes{{else}}no{{end}}</td></tr>
{{- end}}
</table>
{{- if .MoreMembers}}<p class="more">and {{.MoreMembers}} more</p>{{end}}
<h3>Broker sets ({{.TotalSets}})</h3>
<table id="sets"><tr><th>Broker set</th><th>Cluster</th><th>Master</th><th>Master epoch</th><th>Sync-state set</th><th>Sync-state epoch</th></tr>
{{- range .Sets}}
<tr><td>{{.Name}}</td><td>{{.Cluster}}</td><td>{{if .HasMaster}}{{.Master}}{{else}}<span class="bad">none</span>{{end}}</td><td class="n">{{.MasterEpoch}}</td><td>{{range $i, $m := .Sync}}{{if $i}}, {{end}}{{$m}}{{end}}{{if .MoreSync}} <span class="more">and {{.MoreSync}} more</span>{{end}}</td><td class="n">{{.SSEpoch}}</td></tr>
{{- end}}
</table>
{{- if .MoreSets}}<p class="more">and {{.MoreSets}} more</p>{{end}}
{{- end}}
</body></html>
`))
