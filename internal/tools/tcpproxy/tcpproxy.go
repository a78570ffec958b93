// Package tcpproxy is a TCP proxy for tests that take a server (the
// database) away from parcelgate and give it back: Cut refuses new
// connections and resets the open ones, as a crashed or restarted server
// does; Stall keeps every connection open but forwards nothing, as a
// network partition or a hung server does; Restore brings the path back at
// the same address.
package tcpproxy

import (
	"net"
	"sync"
	"testing"
)

// Proxy forwards connections made to Addr to the target address.
type Proxy struct {
	t      testing.TB
	target string
	addr   string

	mu      sync.Mutex
	ln      net.Listener
	conns   map[net.Conn]struct{}
	stalled bool
	resume  *sync.Cond
	closed  bool
	wg      sync.WaitGroup
}

// Start listens on a free port of 127.0.0.1 and forwards to target until t
// ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	return StartAt(t, "127.0.0.1:0", target)
}

// StartAt listens at addr (port 0: a free one) and forwards to target
// until t ends. A proxy on another loopback address (127.0.0.2:5433 in
// front of 127.0.0.1:5433) stands for a machine of its own: a server
// registered under the proxy's address is reached by everyone through it,
// so Stall partitions that machine from all of them.
func StartAt(t testing.TB, addr, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("tcpproxy: listen: %v", err)
	}
	p := &Proxy{t: t, target: target, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	p.resume = sync.NewCond(&p.mu)
	p.serve(ln)
	t.Cleanup(p.close)
	return p
}

// Addr is the address clients connect to, "127.0.0.1:port".
func (p *Proxy) Addr() string { return p.addr }

// Cut stops listening (new connections are refused) and closes every open
// connection on both sides.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.dropLocked()
}

// Stall keeps accepting connections and keeps the open ones open, but
// forwards no byte in either direction until Restore.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stalled = true
}

// Restore forwards again: after Stall the held bytes flow on; after Cut it
// listens again at the same address.
func (p *Proxy) Restore() {
	p.t.Helper()
	p.mu.Lock()
	p.stalled = false
	p.resume.Broadcast()
	listening := p.ln != nil
	p.mu.Unlock()
	if listening {
		return
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("tcpproxy: listen again at %s: %v", p.addr, err)
	}
	p.serve(ln)
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Go(func() { p.forward(c) })
		}
	})
}

func (p *Proxy) forward(client net.Conn) {
	if !p.track(client) {
		client.Close()
		return
	}
	// A connection made while stalled hangs, as one to a partitioned
	// machine does: the target is not even dialed, so nothing answers it,
	// not a refusal either.
	if !p.waitForward() {
		p.untrack(client)
		client.Close()
		return
	}
	upstream, err := net.Dial("tcp", p.target)
	if err != nil {
		p.untrack(client)
		client.Close()
		return
	}
	if !p.track(upstream) {
		p.untrack(client)
		client.Close()
		upstream.Close()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { p.pipe(upstream, client) })
	wg.Go(func() { p.pipe(client, upstream) })
	wg.Wait()
	p.untrack(client, upstream)
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
	}
}

func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.ln == nil {
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

// pipe copies from src to dst, holding what it read while stalled; it
// closes both when either side ends (held too while stalled).
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.waitForward() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			// The end of the stream, too, is held while stalled: a
			// partitioned peer's close never arrives.
			p.waitForward()
			return
		}
	}
}

// waitForward blocks while stalled; it reports false when the proxy closed.
func (p *Proxy) waitForward() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.stalled && !p.closed {
		p.resume.Wait()
	}
	return !p.closed
}

func (p *Proxy) dropLocked() {
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *Proxy) close() {
	p.mu.Lock()
	p.closed = true
	p.resume.Broadcast()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.dropLocked()
	p.mu.Unlock()
	p.wg.Wait()
}
