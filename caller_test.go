package parcelgate

import (
	"context"
	"testing"
)

type subject struct{ got *Caller }

func (s *subject) JournalAs(c *Caller) { s.got = c }

// decisions §26: the caller and the journal's subject are plain context
// values: CallerFrom reads the caller NewContext added (the nearest one),
// and JournalUnder reaches the subject WithJournalSubject added, through
// contexts derived from it.
func TestRequestContextValues(t *testing.T) {
	var j subject
	ctx := WithJournalSubject(context.Background(), &j)
	if CallerFrom(ctx) != nil {
		t.Fatal("a caller before one is added")
	}
	a, b := &Caller{Subject: "a"}, &Caller{Subject: "b"}
	ctx = NewContext(ctx, a)
	if CallerFrom(ctx) != a {
		t.Fatal("the added caller is not the context's")
	}
	nearer := NewContext(ctx, b)
	if CallerFrom(nearer) != b || CallerFrom(ctx) != a {
		t.Fatal("NewContext's later caller is not the nearer one")
	}
	JournalUnder(nearer, b)
	if j.got != b {
		t.Fatal("JournalUnder did not reach the request's subject")
	}
	JournalUnder(nearer, nil) // no one named: the subject keeps b
	if j.got != b {
		t.Fatal("JournalUnder(nil) replaced the subject's caller")
	}
	JournalUnder(context.Background(), a) // not journaled: nothing, no panic
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if ctx.Err() == nil || CallerFrom(ctx) != a {
		t.Fatal("a context derived from it lost the caller or its cancellation")
	}
}
