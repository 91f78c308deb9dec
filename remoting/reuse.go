package remoting

// maxRecycledExt is the most extFields entries a recycled map may hold: a
// map keeps its buckets when cleared, so a connection keeps no large one.
const maxRecycledExt = 8

// spareRequest is the Command (and its cleared ExtFields map) of the last
// request whose handler was registered with RegisterTransient, kept by the
// read loop to decode the next frame into: a route lookup then costs no
// Command and no map allocation. Only the read loop touches it.
type spareRequest struct {
	cmd *Command
	ext map[string]string
}

// decode decodes frame into the spare Command and map when there are
// some, otherwise into new ones (see decodeFrame).
func (sp *spareRequest) decode(frame []byte, copyBody bool) (*Command, error) {
	c := sp.cmd
	sp.cmd = nil
	if c == nil {
		c = &Command{}
	}
	used, err := decodeFrameInto(frame, copyBody, c, sp.ext)
	if used {
		sp.ext = nil
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// keep takes back cmd, which nothing else holds any more: its fields are
// zeroed and its map, if small, cleared for the next frame.
func (sp *spareRequest) keep(cmd *Command) {
	if m := cmd.ExtFields; m != nil && sp.ext == nil && len(m) <= maxRecycledExt {
		clear(m)
		sp.ext = m
	}
	*cmd = Command{}
	sp.cmd = cmd
}
