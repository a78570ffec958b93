package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// cliRun runs the command line as main does and returns its exit status,
// standard output and standard error.
func cliRun(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := mainCode(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// Help is on standard output with status 0 and names every command with its
// purpose, so "parcelgate client -h | less" shows it.
func TestCLIHelpOnStdout(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		names []string
	}{
		{[]string{"-h"}, []string{"serve", "migrate", "admin", "client", "version", "completion"}},
		{[]string{"--help"}, []string{"serve", "migrate", "admin", "client"}},
		{[]string{"help"}, []string{"serve", "migrate", "admin", "client"}},
		{[]string{"admin", "-h"}, adminNames()},
		{[]string{"client", "-h"}, clientNames()},
		{[]string{"admin"}, adminNames()},
	} {
		code, out, errOut := cliRun(tc.args...)
		if code != exitOK || errOut != "" {
			t.Errorf("%v: status %d, stderr %q", tc.args, code, errOut)
		}
		for _, n := range tc.names {
			if !strings.Contains(out, "\n  "+n+" ") {
				t.Errorf("%v: help does not list %q:\n%s", tc.args, n, out)
			}
		}
	}
	for _, spec := range adminCommands {
		if !strings.Contains(must(cliRun("admin", "-h")), spec.short) {
			t.Errorf("admin help lacks the purpose of %s", spec.name)
		}
	}
	for _, spec := range clientCommands {
		if !strings.Contains(must(cliRun("client", "-h")), spec.short) {
			t.Errorf("client help lacks the purpose of %s", spec.name)
		}
	}
}

func must(code int, out, _ string) string {
	if code != 0 {
		return ""
	}
	return out
}

func adminNames() (out []string) {
	for _, c := range adminCommands {
		out = append(out, c.name)
	}
	return out
}

func clientNames() (out []string) {
	for _, c := range clientCommands {
		out = append(out, c.name)
	}
	return out
}

// "migrate -h" lists only what migrate takes, not serve's flags.
func TestCLIMigrateHelp(t *testing.T) {
	code, out, _ := cliRun("migrate", "-h")
	if code != exitOK || !strings.Contains(out, "--db") {
		t.Fatalf("status %d:\n%s", code, out)
	}
	for _, serveOnly := range []string{"--addr", "--demo", "--admin-token", "--submit-after"} {
		if strings.Contains(out, serveOnly) {
			t.Errorf("migrate help lists %s:\n%s", serveOnly, out)
		}
	}
}

// Every admin flag's help explains its field, not just its JSON name.
func TestCLIAdminFlagHelp(t *testing.T) {
	for _, spec := range adminCommands {
		for _, f := range spec.fields {
			if len(f.help) < 20 || strings.EqualFold(f.help, f.json) {
				t.Errorf("admin %s --%s: help %q does not explain the field", spec.name, f.flag, f.help)
			}
		}
		code, out, _ := cliRun("admin", spec.name, "-h")
		if code != exitOK {
			t.Errorf("admin %s -h: status %d", spec.name, code)
		}
		for _, f := range spec.fields {
			if !strings.Contains(out, f.help) {
				t.Errorf("admin %s -h does not show --%s's help", spec.name, f.flag)
			}
		}
		// One spelling of the environment flag in every help text: the
		// JSON field's (--env still works, hidden).
		if strings.Contains(out, "--env ") || strings.Contains(out, "--env,") {
			t.Errorf("admin %s -h spells the environment flag --env:\n%s", spec.name, out)
		}
	}
}

// A wrong command line is status 2, with one line on standard error and
// nothing on standard output.
func TestCLIUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"admin", "frobnicate"},
		{"client", "frobnicate"},
		{"client", "order"},                     // a missing argument
		{"client", "order", "a", "b"},           // one too many
		{"client", "orders", "--page", "first"}, // a bad flag value
		{"client", "orders", "--no-such-flag"},  // an unknown flag
		{"serve", "--fulfillment", "sometimes"}, // refused before anything starts
		{"serve", "extra"},                      // serve takes no arguments
		{"admin", "revoke-gateway-client"},      // CLIENT_ID missing
		{"client", "create-order"},              // -f missing
		{"migrate", "--addr", "127.0.0.1:1"},    // a serve flag
		{"client", "orders", "--updated-from", "yesterday"},
	} {
		code, out, errOut := cliRun(args...)
		if code != exitUsage {
			t.Errorf("%v: status %d, want %d (stderr %q)", args, code, exitUsage, errOut)
		}
		if out != "" {
			t.Errorf("%v: printed %q on standard output", args, out)
		}
		if n := strings.Count(errOut, "\n"); n != 1 || !strings.HasPrefix(errOut, "parcelgate: ") {
			t.Errorf("%v: want one error line, got %q", args, errOut)
		}
	}
}

// An error answer from the API is status 1, one line without a repeated
// "parcelgate: ", and a list prints nothing at all.
func TestCLIAPIErrors(t *testing.T) {
	sb, _ := clientCLI(t)
	code, out, errOut := cliRun("client", "--password", "wrong", "orders")
	if code != exitFailure {
		t.Errorf("status %d, want %d", code, exitFailure)
	}
	if out != "" {
		t.Errorf("a refused list printed %q", out)
	}
	if strings.Count(errOut, "\n") != 1 || strings.Count(errOut, "parcelgate:") != 1 || !strings.Contains(errOut, "Bad credentials") {
		t.Errorf("stderr %q", errOut)
	}
	code, out, errOut = cliRun("client", "order", "1234567-1-NOPE")
	if code != exitFailure || out != "" || !strings.Contains(errOut, "404") || strings.Count(errOut, "parcelgate:") != 1 {
		t.Errorf("unknown order: status %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = cliRun("admin", "--url", sb.URL, "--admin-token", "wrong", "organizations")
	if code != exitFailure || out != "" || !strings.Contains(errOut, "401") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("admin with a wrong token: status %d, stdout %q, stderr %q", code, out, errOut)
	}
	// An unreachable server is a failure, not a usage error.
	if code, _, _ := cliRun("client", "--url", "http://127.0.0.1:1", "--timeout", "2s", "order", "X"); code != exitFailure {
		t.Errorf("unreachable server: status %d", code)
	}
}

// The single-dash long flags the CLI has always taken still work, as do
// flags after the arguments.
func TestCLISingleDashFlags(t *testing.T) {
	_, _ = clientCLI(t)
	code, out, errOut := cliRun("client", "-timeout", "10s", "orders", "-status=Created", "-page", "0")
	if code != exitOK || !strings.Contains(out, `"totalElements"`) {
		t.Fatalf("status %d: %s %s", code, out, errOut)
	}
	if code, _, errOut := cliRun("client", "create-sending-code", "JJFI12345678901234599", "-no-edi-check"); code != exitOK {
		t.Errorf("flag after the argument: status %d %s", code, errOut)
	}
	if got := normalizeArgs(newRoot(nil, nil), []string{"-url", "x", "-f", "-", "--", "-url"}); strings.Join(got, " ") != "--url x -f - -- -url" {
		t.Errorf("normalized %q", got)
	}
}

func TestCLIVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := cliRun(args...)
		if code != exitOK || !strings.HasPrefix(out, "parcelgate ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("%v: status %d: %q", args, code, out)
		}
	}
}

// Shell completion scripts for the usual shells, and completion of command
// names from the table.
func TestCLICompletion(t *testing.T) {
	for shell, marker := range map[string]string{"bash": "complete -o default -F", "zsh": "#compdef parcelgate", "fish": "complete -c parcelgate"} {
		code, out, _ := cliRun("completion", shell)
		if code != exitOK || !strings.Contains(out, marker) {
			t.Errorf("completion %s: status %d, no %q", shell, code, marker)
		}
	}
	code, out, _ := cliRun("__complete", "admin", "shipment-")
	if code != exitOK || !strings.Contains(out, "shipment-status") {
		t.Errorf("completing admin shipment-: %d %q", code, out)
	}
}

// With its address taken, serve fails before it creates or seeds a
// database or prints an admin token.
func TestServeBindsFirst(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	path := filepath.Join(t.TempDir(), "never.db")
	code, out, errOut := cliRun("serve", "--demo", "--addr", ln.Addr().String(), "--db", "sqlite:"+path)
	if code != exitFailure || !strings.Contains(errOut, "address already in use") {
		t.Errorf("status %d, stderr %q", code, errOut)
	}
	if out != "" {
		t.Errorf("printed %q before failing to bind", out)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("database file made before binding: %v", err)
	}
}

// The commands the --demo banner prints run as printed in a shell: the
// first ones set $GATEWAY_TOKEN and $ECOM_TOKEN (the README's names), which
// the others use.
func TestDemoBannerCommandsRun(t *testing.T) {
	bash, err1 := exec.LookPath("bash")
	_, err2 := exec.LookPath("curl")
	if err1 != nil || err2 != nil {
		t.Skip("needs bash and curl")
	}
	db := "sqlite:" + filepath.Join(t.TempDir(), "pg.db")
	_, out, stop := startServe(t, "--demo", "--addr", "127.0.0.1:0", "--db", db)
	defer stop()
	var script []string
	for line := range strings.SplitSeq(out.String(), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "GATEWAY_TOKEN=") || strings.HasPrefix(line, "ECOM_TOKEN=") || strings.HasPrefix(line, "curl ") {
			script = append(script, line)
		}
	}
	if len(script) < 5 {
		t.Fatalf("banner has %d commands:\n%s", len(script), out)
	}
	cmd := exec.Command(bash, "-euc", strings.Join(script, "\n"))
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	for _, want := range []string{`"sendingCode":"`, `"ResultText":"OK"`, `"externalId":"1234567-1-DEMO1"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("banner commands' output lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "UNAUTHORIZED") || strings.Contains(string(got), "Unauthorized") {
		t.Errorf("a banner command had no token:\n%s", got)
	}
}
