package main

import (
	"bytes"
	"testing"
	"time"
)

// decisions §43: --active-codes-max-age (PARCELGATE_ACTIVE_CODES_MAX_AGE)
// is how long /metrics keeps its count of active codes: a minute unless
// set, 0 counts on every scrape, a negative age is refused.
func TestActiveCodesMaxAgeFlag(t *testing.T) {
	c, err := parseServe("serve", nil, &bytes.Buffer{})
	if err != nil || c.activeCodesMaxAge != time.Minute {
		t.Fatalf("default: %v %v", c.activeCodesMaxAge, err)
	}
	t.Setenv("PARCELGATE_ACTIVE_CODES_MAX_AGE", "15s")
	if c, err = parseServe("serve", nil, &bytes.Buffer{}); err != nil || c.activeCodesMaxAge != 15*time.Second {
		t.Fatalf("from the environment: %v %v", c.activeCodesMaxAge, err)
	}
	if c, err = parseServe("serve", []string{"--active-codes-max-age", "0"}, &bytes.Buffer{}); err != nil || c.activeCodesMaxAge != 0 {
		t.Fatalf("0, counted on every scrape: %v %v", c.activeCodesMaxAge, err)
	}
	for _, v := range []string{"-1s", "soon"} {
		if _, err := parseServe("serve", []string{"--active-codes-max-age", v}, &bytes.Buffer{}); err == nil {
			t.Errorf("--active-codes-max-age %s accepted", v)
		}
	}
}
