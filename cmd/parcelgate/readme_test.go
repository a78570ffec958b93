package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate/demo"
)

// readmeURL is the address the README's examples call: the one serve
// --demo prints, so they paste as they are. The test's server listens on a
// free port instead (other servers may hold 8080), and this is the only
// text of a block it replaces; the CLI's lines reach it through
// PARCELGATE_URL, the variable the CLI reads.
const readmeURL = "http://127.0.0.1:8080"

// shellBlock is one ```sh block of the README.
type shellBlock struct {
	line   int    // of the opening fence, 1-based
	text   string // the lines between the fences
	notRun string // the reason of a <!-- not run: reason --> above it
}

var notRunMarker = regexp.MustCompile(`^<!-- not run: (.*?) -->$`)

// readmeShellBlocks returns the ```sh blocks of a Markdown text in order.
// A block is left out when the line above it (blank lines aside) is a
// <!-- not run: reason --> comment; the reason must be given.
func readmeShellBlocks(md string) ([]shellBlock, error) {
	lines := strings.Split(md, "\n")
	var blocks []shellBlock
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```sh" {
			if strings.HasPrefix(strings.TrimSpace(lines[i]), "```") && strings.TrimSpace(lines[i]) != "```" {
				i = fenceEnd(lines, i) // another language's block: skip it whole
			}
			continue
		}
		b := shellBlock{line: i + 1}
		for j := i - 1; j >= 0; j-- {
			prev := strings.TrimSpace(lines[j])
			if prev == "" {
				continue
			}
			if m := notRunMarker.FindStringSubmatch(prev); m != nil {
				if strings.TrimSpace(m[1]) == "" {
					return nil, fmt.Errorf("line %d: a not-run marker without its reason", j+1)
				}
				b.notRun = m[1]
			} else if strings.Contains(prev, "not run") {
				return nil, fmt.Errorf("line %d: %q is not the marker <!-- not run: reason -->", j+1, prev)
			}
			break
		}
		end := fenceEnd(lines, i)
		if end == len(lines) {
			return nil, fmt.Errorf("line %d: the block is not closed", i+1)
		}
		b.text = strings.Join(lines[i+1:end], "\n")
		blocks = append(blocks, b)
		i = end
	}
	return blocks, nil
}

// fenceEnd is the index of the line closing the block opened at i.
func fenceEnd(lines []string, i int) int {
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) == "```" {
			return j
		}
	}
	return len(lines)
}

var assignment = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)=`)

// assigned are the variables a block sets: NAME=... and export NAME=...
// at the start of a line.
func assigned(block string) []string {
	var names []string
	for line := range strings.SplitSeq(block, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "export "); ok {
			for _, f := range strings.Fields(rest) {
				if m := assignment.FindStringSubmatch(f); m != nil {
					names = append(names, m[1])
				}
			}
		} else if m := assignment.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	return names
}

func TestReadmeShellBlocksParse(t *testing.T) {
	blocks, err := readmeShellBlocks("a\n<!-- not run: starts a server -->\n```sh\nserve\n```\n\n```go\n```sh\n```\n```sh\nX=$(a)\nexport A=1 B=2\n# C=3\n  D=4\n```\n")
	if err != nil || len(blocks) != 2 || blocks[0].notRun != "starts a server" || blocks[1].notRun != "" || blocks[1].line != 10 {
		t.Fatalf("%v %+v", err, blocks)
	}
	if got := strings.Join(assigned(blocks[1].text), " "); got != "X A B D" {
		t.Errorf("assigned %q", got)
	}
	for _, bad := range []string{"<!-- not run:  -->\n```sh\nx\n```\n", "<!-- not run -->\n```sh\nx\n```\n", "```sh\nx\n"} {
		if _, err := readmeShellBlocks(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// decisions §42: the README's shell examples run as written, in order, as
// one shell session against a fresh "serve --demo" (a real server
// process): a command that fails (curl with an HTTP error included), or a
// variable a block sets left empty or null, fails the test with the block
// and its output. Blocks marked <!-- not run: reason --> are left out.
func TestReadmeShellBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README against a server (about 30 s)")
	}
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the README's examples need %s (apt-get install %s)", tool, tool)
			}
			t.Skipf("the README's examples need %s (apt-get install %s)", tool, tool)
		}
	}
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := readmeShellBlocks(string(md))
	if err != nil {
		t.Fatal(err)
	}
	var run, skipped int
	for _, b := range blocks {
		if b.notRun != "" {
			skipped++
		} else {
			run++
		}
	}
	// Keep what the README shows runnable: a marker is for what cannot run
	// here (a server start, the suite, fuzzing, root), not for what fails.
	if run < 10 || skipped > 8 {
		t.Fatalf("%d blocks run and %d are marked not run: mark only what cannot run", run, skipped)
	}

	// The --demo banner's first commands set the README's token variables.
	var banner bytes.Buffer
	demo.PrintWelcome(&banner, readmeURL, true)
	for _, m := range regexp.MustCompile(`(?m)^\s+([A-Z_]+)=\$\(`).FindAllStringSubmatch(banner.String(), -1) {
		if !regexp.MustCompile(`(?m)^` + m[1] + `=`).Match(md) {
			t.Errorf("the banner sets $%s, which no README example sets", m[1])
		}
	}

	base, adminToken := startReadmeServer(t)
	work := t.TempDir()
	state := filepath.Join(work, ".readme-state")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "LANG=C.UTF-8",
		"PARCELGATE_URL=" + base, "PARCELGATE_ADMIN_TOKEN=" + adminToken,
		"README_CLI=" + os.Args[0], "README_STATE=" + state}
	var vars []string
	for _, b := range blocks {
		if b.notRun != "" {
			continue
		}
		names := assigned(b.text)
		for _, n := range names {
			if !strings.Contains(" "+strings.Join(vars, " ")+" ", " "+n+" ") {
				vars = append(vars, n)
			}
		}
		script := readmePrelude + readmeChecks(names) + strings.ReplaceAll(b.text, readmeURL, base) + "\n" + readmeEpilogue(vars)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-c", script)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("README.md's block at line %d fails (%v):\n%s\n--- its output ---\n%s", b.line, err, b.text, out)
		}
		t.Logf("README.md's block at line %d:\n%s", b.line, out)
	}
}

// readmePrelude runs before each block: strict bash, the variables the
// blocks before it set, curl failing on an HTTP error (its body and its
// error still printed), and "go run ./cmd/parcelgate" as this test binary
// acting as the CLI (TestMain), the same code without a build per line.
const readmePrelude = `set -euo pipefail
if [ -f "$README_STATE" ]; then source "$README_STATE"; fi
curl() { command curl -S --fail-with-body "$@"; }
go() {
	if [ "${1-}" = run ] && [ "${2-}" = ./cmd/parcelgate ]; then
		shift 2
		PARCELGATE_TEST_CLI=1 "$README_CLI" "$@"
		return
	fi
	echo "the README test runs go only as go run ./cmd/parcelgate" >&2
	return 127
}
`

// readmeChecks defines readme_check, which fails when a variable the block
// sets is empty or null, and runs it, with the failing command, when a
// command of the block fails; the block's end runs it too.
func readmeChecks(names []string) string {
	var b strings.Builder
	b.WriteString("readme_check() {\n\tlocal bad=0\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\tif [ -z \"${%[1]s-}\" ] || [ \"${%[1]s-}\" = null ]; then echo \"README test: \\$%[1]s is empty or null\" >&2; bad=1; fi\n", n)
	}
	b.WriteString("\treturn $bad\n}\n")
	b.WriteString("trap 'status=$?; echo \"README test: this command fails (status $status): $BASH_COMMAND\" >&2; readme_check || true' ERR\n")
	return b.String()
}

// readmeEpilogue checks the block's variables, then keeps every variable
// set so far for the next block.
func readmeEpilogue(all []string) string {
	s := "trap - ERR\nreadme_check || exit 97\n"
	if len(all) > 0 {
		s += fmt.Sprintf("declare -p %s > \"$README_STATE\"\n", strings.Join(all, " "))
	}
	return s
}

var readmeAdminToken = regexp.MustCompile(`operator API token \(generated[^)]*\): (\S+)`)

// startReadmeServer runs "parcelgate serve --demo" as a process of its own
// (this test binary acting as parcelgate) on a free port and a new
// database, and returns its address and the admin token it printed, as a
// reader of the README would see them. The server is stopped with SIGTERM
// when the test ends.
func startReadmeServer(t *testing.T) (base, adminToken string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve", "--demo", "--addr", "127.0.0.1:0", "--db", "sqlite:"+filepath.Join(t.TempDir(), "parcelgate.db"))
	cmd.Env = append(os.Environ(), "PARCELGATE_TEST_CLI=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("serve --demo did not stop cleanly: %v\n%s", err, stderr.String())
		}
	})
	found := make(chan [2]string, 1)
	go func() {
		var token string
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := readmeAdminToken.FindStringSubmatch(sc.Text()); m != nil {
				token = m[1]
			}
			if m := baseURL.FindStringSubmatch(sc.Text()); m != nil {
				found <- [2]string{m[1], token}
				break
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case f := <-found:
		if f[1] == "" {
			t.Fatal("serve --demo printed no admin token before its banner")
		}
		return f[0], f[1]
	case <-time.After(60 * time.Second):
		t.Fatalf("serve --demo did not start: %v\n%s", errors.New("no banner in 60 s"), stderr.String())
	}
	return "", ""
}
