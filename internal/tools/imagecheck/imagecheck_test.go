package imagecheck

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeLayout writes an OCI layout of one image whose layers are the given
// tar entries (each a name and content; a name ending in / is a directory).
func writeLayout(t *testing.T, cfg Config, layers ...[]tar.Header) string {
	t.Helper()
	dir := t.TempDir()
	put := func(b []byte) string {
		sum := sha256.Sum256(b)
		d := "sha256:" + hex.EncodeToString(sum[:])
		p := blob(dir, d)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	var ls []descriptor
	for _, hs := range layers {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, h := range hs {
			body := []byte(h.Linkname)
			if h.Typeflag == tar.TypeReg {
				h.Size, h.Linkname = int64(len(body)), ""
			} else {
				body = nil
			}
			if err := tw.WriteHeader(&h); err != nil {
				t.Fatal(err)
			}
			tw.Write(body)
		}
		tw.Close()
		gz.Close()
		ls = append(ls, descriptor{MediaType: "application/vnd.oci.image.layer.v1.tar+gzip", Digest: put(buf.Bytes())})
	}
	c, _ := json.Marshal(map[string]any{"config": cfg})
	m, _ := json.Marshal(map[string]any{"config": descriptor{Digest: put(c)}, "layers": ls})
	idx, _ := json.Marshal(map[string]any{"manifests": []descriptor{{Digest: put(m)}}})
	os.WriteFile(filepath.Join(dir, "index.json"), idx, 0o644)
	return dir
}

// A layer that writes through a symbolic link to a directory is refused:
// the file would land outside the root.
func TestUnpackRefusesWritingThroughALink(t *testing.T) {
	outside := t.TempDir()
	dir := writeLayout(t, Config{},
		[]tar.Header{{Name: "a", Typeflag: tar.TypeSymlink, Linkname: outside}},
		[]tar.Header{{Name: "a/escaped", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "x"}})
	im, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Unpack(t.TempDir()); err == nil {
		t.Error("a file written through a link was unpacked")
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Error("a file landed outside the root")
	}
}

// Unpacking keeps modes (the sticky /tmp) and, as root, owners (the
// volume the image's user writes to); a later layer's whiteout deletes a
// file; a name climbing out of the root stays inside it.
func TestUnpack(t *testing.T) {
	dir := writeLayout(t, Config{User: "65532:65532", Entrypoint: []string{"/bin/x"}, Env: []string{"A=1", "B=2"}},
		[]tar.Header{
			{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777},
			{Name: "data/", Typeflag: tar.TypeDir, Mode: 0o755, Uid: 65532, Gid: 65532},
			{Name: "etc/gone", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "x"},
			{Name: "../../escape", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "y"},
		},
		[]tar.Header{{Name: "etc/.wh.gone", Typeflag: tar.TypeReg, Mode: 0o644}})
	im, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := im.Unpack(root); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "tmp")); err != nil || fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("/tmp: %v %v, want drwxrwxrwt", fi.Mode(), err)
	}
	if os.Geteuid() == 0 {
		fi, _ := os.Stat(filepath.Join(root, "data"))
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != 65532 || st.Gid != 65532 {
			t.Errorf("/data owned by %d:%d, want 65532:65532", st.Uid, st.Gid)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "etc/gone")); !os.IsNotExist(err) {
		t.Errorf("a whited-out file is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "escape")); err != nil {
		t.Errorf("../../escape was not kept inside the root: %v", err)
	}
	cmd, err := im.Command(root, "B=3", "C=4")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"A=1", "B=3", "C=4"}; !slices.Equal(cmd.Env, want) {
		t.Errorf("env %q, want %q (-e replaces the image's)", cmd.Env, want)
	}
	if c := cmd.SysProcAttr.Credential; c.Uid != 65532 || c.Gid != 65532 || cmd.SysProcAttr.Chroot != root {
		t.Errorf("runs as %d:%d in %q", c.Uid, c.Gid, cmd.SysProcAttr.Chroot)
	}
}

// TestBuiltImage checks the parcelgate image that .ci/image built and wrote
// as an OCI layout to PARCELGATE_IMAGE_OCI (skipped without it): what the
// Containerfile promises is in the image, and its entrypoint, run from the
// unpacked root as a runtime would run it, serves /readyz and stops
// cleanly on SIGTERM, leaving its SQLite database on the volume.
func TestBuiltImage(t *testing.T) {
	dir := os.Getenv("PARCELGATE_IMAGE_OCI")
	if dir == "" {
		t.Skip("PARCELGATE_IMAGE_OCI is not set: .ci/image builds the image and sets it")
	}
	if os.Geteuid() != 0 {
		t.Skip("running the image's entrypoint chrooted needs root")
	}
	im, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := im.Config
	if c.User == "" || c.User == "0" || strings.HasPrefix(c.User, "0:") || c.User == "root" {
		t.Errorf("image user %q: want a user that is not root", c.User)
	}
	if _, ok := c.Volumes["/data"]; !ok {
		t.Errorf("volumes %v: want /data", c.Volumes)
	}
	if _, ok := c.ExposedPorts["8080/tcp"]; !ok {
		t.Errorf("exposed ports %v: want 8080/tcp", c.ExposedPorts)
	}
	if !slices.Contains(c.Env, "PARCELGATE_DB=sqlite:/data/parcelgate.db") {
		t.Errorf("env %q: want the SQLite database on the volume", c.Env)
	}
	root := t.TempDir()
	if err := im.Unpack(root); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(root)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// An empty base: nothing but what the Containerfile puts there.
	if want := []string{"data", "etc", "tmp", "usr"}; !slices.Equal(names, want) {
		t.Errorf("the image's root holds %q, want %q", names, want)
	}
	if fi, err := os.Stat(filepath.Join(root, "etc/ssl/certs/ca-certificates.crt")); err != nil || fi.Size() < 1000 {
		t.Errorf("CA certificates: %v", err)
	}
	bin := filepath.Join(root, c.Entrypoint[0])
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader: want a static binary (CGO_ENABLED=0)", c.Entrypoint[0])
		}
	}
	f.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	// As "podman run -e PARCELGATE_ADDR=..." would: the host's port 8080
	// may be taken.
	cmd, err := im.Command(root, "PARCELGATE_ADDR="+addr)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ready := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && !ready; {
		select {
		case err := <-done:
			t.Fatalf("the entrypoint exited: %v\n%s", err, out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			ready = resp.StatusCode == 200
		}
	}
	if !ready {
		cmd.Process.Kill()
		<-done
		t.Fatalf("no 200 from /readyz within 30 s:\n%s", out.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := <-done; err != nil {
		t.Errorf("after SIGTERM: %v\n%s", err, out.String())
	}
	fi, err := os.Stat(filepath.Join(root, "data/parcelgate.db"))
	if err != nil {
		t.Fatalf("no database on the volume: %v\n%s", err, out.String())
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid == 0 {
		t.Errorf("the database is root's: the server ran as root")
	}
	t.Logf("entrypoint %q %q as %s served /readyz at %s", c.Entrypoint, c.Cmd, c.User, addr)
}
