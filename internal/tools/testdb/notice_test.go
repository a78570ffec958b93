package testdb

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// noticeRole makes this test binary a helper process: "child" calls
// Notice; "go" stands in for the go command running a child.
const noticeRole = "PARCELGATE_NOTICE_TEST_ROLE"

func TestNoticeHelper(t *testing.T) {
	switch os.Getenv(noticeRole) {
	case "child":
		Notice("notice-test", "hello from a skipped environment")
	case "go":
		// As the go command does: the child's standard error is a buffer
		// of its own, shown only when the package fails or with -v.
		cmd := exec.Command(os.Args[0], "-test.run=^TestNoticeHelper$")
		var captured bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &captured
		cmd.Env = append(os.Environ(), noticeRole+"=child")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(os.TempDir(), "parcelgate-notice-test-"+strconv.Itoa(os.Getpid())))
	}
}

// A skip NOTE reaches standard error, not only /dev/tty: the go command's
// own (a pipe here, as in "go test ./... 2>&1 | tee log"), which go test
// does not swallow for a passing package; and the binary's own when
// another process runs it.
func TestNoticeGoesToStandardError(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the go command's standard error is found through /proc")
	}
	// A copy of this binary named "go", as the parent.
	dir := t.TempDir()
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	goCmd := filepath.Join(dir, "go")
	if err := os.WriteFile(goCmd, self, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ role, prog string }{{"go", goCmd}, {"child", os.Args[0]}} {
		cmd := exec.Command(tc.prog, "-test.run=^TestNoticeHelper$")
		cmd.Env = append(os.Environ(), noticeRole+"="+tc.role)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", tc.role, err, stderr.String())
		}
		if tc.role == "child" {
			os.Remove(filepath.Join(os.TempDir(), "parcelgate-notice-test-"+strconv.Itoa(os.Getpid())))
		}
		if n := strings.Count(stderr.String(), "NOTE: hello from a skipped environment\n"); n != 1 {
			t.Errorf("run by %s: the NOTE is on standard error %d times: %q", tc.role, n, stderr.String())
		}
	}
}
