package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate/parcelgatetest"
)

// clientCLI runs "parcelgate client" against a sandbox with the demo
// tenant's credentials from the environment, as a user would set them.
func clientCLI(t *testing.T) (*parcelgatetest.Server, func(args ...string) (string, error)) {
	t.Helper()
	sb := parcelgatetest.NewServer(t)
	t.Setenv("PARCELGATE_URL", sb.URL)
	t.Setenv("PARCELGATE_CLIENT_ID", "demo-client")
	t.Setenv("PARCELGATE_CLIENT_SECRET", "demo-client-secret")
	t.Setenv("PARCELGATE_USERNAME", "demo")
	t.Setenv("PARCELGATE_PASSWORD", "demo-password")
	return sb, func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append([]string{"client"}, args...), &out, &errOut)
		return out.String(), err
	}
}

func TestClientCLIToken(t *testing.T) {
	_, cli := clientCLI(t)
	out, err := cli("token")
	if err != nil {
		t.Fatal(err)
	}
	var toks map[string]struct {
		AccessToken string `json:"access_token"`
		Scope       string
		Targets     map[string]any
	}
	if err := json.Unmarshal([]byte(out), &toks); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if toks["gateway"].AccessToken == "" || toks["gateway"].Targets["2025-04"] == nil || toks["ecom"].Scope != "internal" {
		t.Errorf("tokens %s", out)
	}
	// A flag wins over the environment.
	if _, err := cli("-password", "wrong", "token"); err == nil || !strings.Contains(err.Error(), "Bad credentials") {
		t.Errorf("wrong password: %v", err)
	}
	if _, err := cli("frobnicate"); err == nil {
		t.Error("unknown command accepted")
	}
}

// The README's list of client commands names every command there is, so
// a newcomer reading it finds each one (the list once lacked shipment).
func TestReadmeListsEveryClientCommand(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "`parcelgate client` calls the interface")
	if start < 0 {
		t.Fatal("README has no command-line client section")
	}
	list := readme[start:]
	if end := strings.Index(list, "```"); end > 0 {
		list = list[:end]
	}
	for _, c := range append(clientCommands, shipmentCommands...) {
		if !strings.Contains(list, "`"+c.name+"`") {
			t.Errorf("README's client command list lacks `%s`", c.name)
		}
		// decisions §42: an old name is not listed as a command.
		for _, old := range c.aliases {
			if strings.Contains(list, "`"+old+"`") {
				t.Errorf("README's client command list names the old name `%s` of `%s`", old, c.name)
			}
		}
	}
}
