package logratetest

import (
	"crypto/tls"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// workers is how many connections Conns keeps in flight.
const workers = 8

// Conns opens n connections to addr, workers at a time; each sends first
// (which may be empty) and reads until the server closes it or 10 s pass.
func Conns(t *testing.T, addr string, n int, first []byte) {
	t.Helper()
	Each(t, n, func(int) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Error(err)
			return
		}
		defer nc.Close()
		_, _ = nc.Write(first)
		_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, _ = io.Copy(io.Discard, nc)
	})
}

// Idle opens n connections to addr at once, sends nothing and waits
// until the server closes every one (its idle timeout) or 30 s pass.
func Idle(t *testing.T, addr string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Error(err)
			break
		}
		wg.Go(func() {
			defer nc.Close()
			_ = nc.SetReadDeadline(time.Now().Add(30 * time.Second))
			_, _ = io.Copy(io.Discard, nc)
		})
	}
	wg.Wait()
}

// Resets opens n connections to addr that send first and are reset
// (SO_LINGER 0) without waiting for an answer.
func Resets(t *testing.T, addr string, n int, first []byte) {
	t.Helper()
	Each(t, n, func(int) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Error(err)
			return
		}
		_, _ = nc.Write(first)
		time.Sleep(time.Millisecond) // let the server read it
		_ = nc.(*net.TCPConn).SetLinger(0)
		_ = nc.Close()
	})
}

// BadHandshakes opens n TLS connections to addr that fail their handshake:
// the client trusts no certificate.
func BadHandshakes(t *testing.T, addr string, n int) {
	t.Helper()
	Each(t, n, func(int) {
		c, err := tls.Dial("tcp", addr, &tls.Config{MinVersion: tls.VersionTLS12, ServerName: "stranger"})
		if err == nil {
			_ = c.Close()
		}
	})
}

// Each runs fn(0..n-1), workers at a time.
func Each(t *testing.T, n int, fn func(i int)) {
	t.Helper()
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	for range workers {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	wg.Wait()
}
