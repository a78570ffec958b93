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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
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
	upstream, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(client, upstream) {
		client.Close()
		upstream.Close()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { p.pipe(upstream, client) })
	wg.Go(func() { p.pipe(client, upstream) })
	wg.Wait()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, upstream)
	p.mu.Unlock()
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
// closes both when either side ends.
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
