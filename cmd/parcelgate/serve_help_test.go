package main

import (
	"strings"
	"testing"
)

// Serve -h lists the console and says it moves orders too.
func TestServeHelpNamesTheConsole(t *testing.T) {
	code, out, _ := cliRun("serve", "-h")
	if code != exitOK {
		t.Fatalf("serve -h: status %d", code)
	}
	for _, want := range []string{"/console", "move orders", "GET / points", "/docs", "/healthz"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve -h lacks %q:\n%s", want, out)
		}
	}
}
