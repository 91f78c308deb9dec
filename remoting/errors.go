package remoting

import "errors"

// Sentinel errors. Functions of this package wrap them with %w, so callers
// test them with errors.Is.
var (
	// ErrFrameTooLarge: the announced frame is longer than the configured
	// maximum frame length.
	ErrFrameTooLarge = errors.New("remoting: frame too large")
	// ErrBadFrameLength: the announced frame length is negative or too
	// short to hold the 4-byte header word.
	ErrBadFrameLength = errors.New("remoting: bad frame length")
	// ErrFrameTruncated: the stream or buffer ended inside a frame.
	ErrFrameTruncated = errors.New("remoting: frame truncated")
	// ErrBadSerializeType: the header word names neither JSON (0) nor
	// ROCKETMQ (1).
	ErrBadSerializeType = errors.New("remoting: bad serialize type")
	// ErrBadHeader: the header length exceeds the frame, or the header
	// cannot be decoded.
	ErrBadHeader = errors.New("remoting: bad header")
	// ErrHeaderTooLarge: an encoded header does not fit the 24-bit header
	// length (or a binary-header field does not fit its length field).
	ErrHeaderTooLarge = errors.New("remoting: header too large")
	// ErrClosed: the connection, client or server is closed.
	ErrClosed = errors.New("remoting: closed")
	// ErrTimeout: a request got no response before its context ended. The
	// context's own error is wrapped too.
	ErrTimeout = errors.New("remoting: timeout")
	// ErrIdle: a connection saw neither a read nor a write for the idle
	// timeout and was closed.
	ErrIdle = errors.New("remoting: connection idle")
	// ErrOverloaded: a large frame could not reserve its length from the
	// server's partial-frame budget within the idle timeout.
	ErrOverloaded = errors.New("remoting: overloaded")
	// ErrBadExtField: an extFields value could not be parsed as the
	// requested type.
	ErrBadExtField = errors.New("remoting: bad ext field")
	// ErrBadHook: a ConnHook panicked or returned no connection; the
	// connection was refused.
	ErrBadHook = errors.New("remoting: connection hook failed")
)
