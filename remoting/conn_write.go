package remoting

import "net"

// writeBatch encodes first and the batches queued behind it (up to
// maxBatchBytes) and writes them with one call, then takes what it wrote
// off the queued byte count.
func (c *Conn) writeBatch(first *[]*Command) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	bp := batchPool.Get().(*[]byte)
	size, n := batchSize(*first), int64(1)
	w := batchWrite{buf: (*bp)[:0]}
	c.appendCommands(&w, first)
	for more := true; more && len(w.buf) < maxBatchBytes; {
		select {
		case b := <-c.out:
			size += batchSize(*b)
			n++
			c.appendCommands(&w, b)
		default:
			more = false
		}
	}
	err := c.write(&w)
	if cap(w.buf) <= maxKeptBuffer {
		*bp = w.buf[:0]
		batchPool.Put(bp)
	}
	c.inflight.Add(-n)
	c.queued.Add(-size)
	select {
	case c.progress <- struct{}{}:
	default:
	}
	return err
}

// batchWrite is one write of encoded frames. The body of a frame larger
// than maxCopiedFrame is not copied into buf: it is written from its own
// slice, after the part of buf before it (one writev on TCP).
type batchWrite struct {
	buf    []byte
	bodies []bodyAt
}

// bodyAt is a body written from its own slice after buf[:end].
type bodyAt struct {
	end  int
	body []byte
}

// buffers returns the batch in write order when it has bodies written
// from their own slices.
func (w *batchWrite) buffers() net.Buffers {
	out := make(net.Buffers, 0, 2*len(w.bodies)+1)
	prev := 0
	for _, b := range w.bodies {
		out = append(out, w.buf[prev:b.end], b.body)
		prev = b.end
	}
	return append(out, w.buf[prev:])
}

// appendCommands encodes a batch into w and releases it; a command that
// cannot be encoded is logged and skipped.
func (c *Conn) appendCommands(w *batchWrite, b *[]*Command) {
	c.encodeCommands(w, *b)
	releaseCmds(b)
}

// encodeCommands encodes cmds into w.
func (c *Conn) encodeCommands(w *batchWrite, cmds []*Command) {
	for _, cmd := range cmds {
		var err error
		if len(cmd.Body) > maxCopiedFrame {
			w.buf, err = appendFrameHead(w.buf, cmd)
			if err == nil {
				w.bodies = append(w.bodies, bodyAt{len(w.buf), cmd.Body})
			}
		} else {
			w.buf, err = AppendFrame(w.buf, cmd)
		}
		if err != nil {
			c.log.Error("cannot encode command", "code", cmd.Code, "opaque", cmd.Opaque, "error", err)
		}
	}
}

// write writes w under the idle write deadline: one Write of w.buf when no
// body is written from its own slice (the usual batch: nothing allocated),
// otherwise one writev of w.buffers().
func (c *Conn) write(w *batchWrite) error {
	if len(w.bodies) == 0 && len(w.buf) == 0 {
		return nil
	}
	var now int64
	if c.cfg.idle > 0 {
		now = int64(c.cfg.clock.Mono())
		if idle := int64(c.cfg.idle); c.writeDL-now < idle*7/8 {
			c.writeDL = now + idle
			_ = c.nc.SetWriteDeadline(c.deadline(c.writeDL))
		}
	}
	var err error
	if len(w.bodies) == 0 {
		_, err = c.nc.Write(w.buf)
	} else {
		bufs := w.buffers()
		_, err = bufs.WriteTo(c.nc)
	}
	if c.cfg.idle > 0 {
		c.lastWrite.Store(int64(c.cfg.clock.Mono()))
	}
	return err
}
