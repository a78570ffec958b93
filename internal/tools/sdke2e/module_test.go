package sdke2e_test

import (
	"os"
	"strings"
	"testing"
)

// The SDK is its own module so that "go get" of it adds only the SDK and
// golang.org/x/oauth2 to a user's module, not the server's database drivers.
func TestSDKModuleRequiresOnlyOAuth2(t *testing.T) {
	b, err := os.ReadFile("../../../client/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var reqs []string
	inBlock := false
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "require (":
			inBlock = true
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "":
			reqs = append(reqs, strings.Fields(line)[0])
		case strings.HasPrefix(line, "require "):
			reqs = append(reqs, strings.Fields(line)[1])
		case strings.HasPrefix(line, "replace "):
			t.Errorf("client/go.mod replaces a module: %s", line)
		}
	}
	if len(reqs) != 1 || reqs[0] != "golang.org/x/oauth2" {
		t.Errorf("client/go.mod requires %v, want only golang.org/x/oauth2", reqs)
	}
	sum, err := os.ReadFile("../../../client/go.sum")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(sum)), "\n") {
		if !strings.HasPrefix(line, "golang.org/x/oauth2 ") {
			t.Errorf("client/go.sum holds %s", line)
		}
	}
}
