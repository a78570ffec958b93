package parcelgate

import (
	"context"
	"testing"
)

type subject struct{ got *Caller }

func (s *subject) JournalAs(c *Caller) { s.got = c }

// decisions §26: a request's values stand for the contexts NewContext and
// the journal's subject would add: the caller named in them is the
// context's caller from then on, a caller NewContext adds later is nearer,
// and JournalUnder reaches the request's subject through it.
func TestRequestValuesActAsContexts(t *testing.T) {
	var v RequestValues
	var j subject
	v.SetJournalSubject(&j)
	ctx := WithRequestValues(context.Background(), &v)
	if CallerFrom(ctx) != nil {
		t.Fatal("a caller before one is named")
	}
	a, b := &Caller{Subject: "a"}, &Caller{Subject: "b"}
	v.SetCaller(a)
	if CallerFrom(ctx) != a {
		t.Fatal("the named caller is not the context's")
	}
	nearer := NewContext(ctx, b)
	if CallerFrom(nearer) != b || CallerFrom(ctx) != a {
		t.Fatal("NewContext's caller is not the nearer one")
	}
	JournalUnder(nearer, b)
	if j.got != b {
		t.Fatal("JournalUnder did not reach the request's subject")
	}
	if RequestValuesFrom(context.Background()) != nil {
		t.Fatal("values in a context without them")
	}
	JournalUnder(context.Background(), a) // no values: nothing, no panic
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if ctx.Err() == nil || CallerFrom(ctx) != a {
		t.Fatal("a context derived from the values' lost them or its cancellation")
	}
}
