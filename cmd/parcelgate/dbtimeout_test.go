package main

import (
	"bytes"
	"testing"
	"time"
)

// Faults of the database: --db-timeout (PARCELGATE_DB_TIMEOUT)
// bounds each request's wait for the database; it defaults to 5s and must
// be positive, since a server that may wait forever is the fault it guards
// against.
func TestDBTimeoutFlag(t *testing.T) {
	c, err := parseServe("serve", nil, &bytes.Buffer{})
	if err != nil || c.dbTimeout != 5*time.Second {
		t.Fatalf("default: %v %v", c, err)
	}
	t.Setenv("PARCELGATE_DB_TIMEOUT", "1500ms")
	if c, err = parseServe("serve", nil, &bytes.Buffer{}); err != nil || c.dbTimeout != 1500*time.Millisecond {
		t.Fatalf("from the environment: %v %v", c, err)
	}
	if c, err = parseServe("serve", []string{"--db-timeout", "2s"}, &bytes.Buffer{}); err != nil || c.dbTimeout != 2*time.Second {
		t.Fatalf("the flag wins: %v %v", c, err)
	}
	for _, v := range []string{"0s", "-1s", "soon"} {
		if _, err := parseServe("serve", []string{"--db-timeout", v}, &bytes.Buffer{}); err == nil {
			t.Errorf("--db-timeout %s accepted", v)
		}
	}
}

// --db-max-conns (PARCELGATE_DB_MAX_CONNS) bounds the instance's
// PostgreSQL connections; 0 is the store's default, and a negative or
// absurd bound is refused before anything starts.
func TestDBMaxConnsFlag(t *testing.T) {
	c, err := parseServe("serve", nil, &bytes.Buffer{})
	if err != nil || c.dbMaxConns != 0 {
		t.Fatalf("default: %v %v", c, err)
	}
	t.Setenv("PARCELGATE_DB_MAX_CONNS", "6")
	if c, err = parseServe("serve", nil, &bytes.Buffer{}); err != nil || c.dbMaxConns != 6 {
		t.Fatalf("from the environment: %v %v", c, err)
	}
	if c, err = parseServe("serve", []string{"--db-max-conns", "12"}, &bytes.Buffer{}); err != nil || c.dbMaxConns != 12 {
		t.Fatalf("the flag wins: %v %v", c, err)
	}
	for _, v := range []string{"-1", "10001", "many"} {
		if _, err := parseServe("serve", []string{"--db-max-conns", v}, &bytes.Buffer{}); err == nil {
			t.Errorf("--db-max-conns %s accepted", v)
		}
	}
}
