// Package imagecheck checks a container image without a container runtime:
// it reads the image from an OCI image layout (what "buildah push IMAGE
// oci:DIR" writes), unpacks its layers into a directory as a runtime would
// (owners and modes kept), and runs the image's entrypoint from there:
// chrooted into the unpacked root, as the image's user, in its working
// directory, with its environment. It is what checks the parcelgate image
// on machines that build images but refuse to run containers (rlimits and
// cgroups a container needs are not granted); the process shares the
// host's network and PID namespaces, the only difference from a container
// that matters to a server answering /readyz.
package imagecheck

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Config is the part of an image's configuration a runtime acts on.
type Config struct {
	User         string              `json:"User"`
	ExposedPorts map[string]struct{} `json:"ExposedPorts"`
	Env          []string            `json:"Env"`
	Entrypoint   []string            `json:"Entrypoint"`
	Cmd          []string            `json:"Cmd"`
	Volumes      map[string]struct{} `json:"Volumes"`
	WorkingDir   string              `json:"WorkingDir"`
}

type descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
}

// Image is an image read from an OCI layout.
type Image struct {
	dir    string
	Config Config
	layers []descriptor
}

// Open reads the image of the OCI layout at dir (its only manifest).
func Open(dir string) (*Image, error) {
	var index struct{ Manifests []descriptor }
	if err := readJSON(filepath.Join(dir, "index.json"), &index); err != nil {
		return nil, err
	}
	if len(index.Manifests) != 1 {
		return nil, fmt.Errorf("%s: %d manifests, want 1", dir, len(index.Manifests))
	}
	var manifest struct {
		Config descriptor
		Layers []descriptor
	}
	if err := readJSON(blob(dir, index.Manifests[0].Digest), &manifest); err != nil {
		return nil, err
	}
	var config struct{ Config Config }
	if err := readJSON(blob(dir, manifest.Config.Digest), &config); err != nil {
		return nil, err
	}
	return &Image{dir: dir, Config: config.Config, layers: manifest.Layers}, nil
}

func blob(dir, digest string) string {
	algo, hex, _ := strings.Cut(digest, ":")
	return filepath.Join(dir, "blobs", algo, hex)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Unpack writes the image's layers, in order, into root (an empty
// directory). Owners are kept when the caller may set them (root).
func (im *Image) Unpack(root string) error {
	for _, l := range im.layers {
		if err := unpackLayer(blob(im.dir, l.Digest), l.MediaType, root); err != nil {
			return fmt.Errorf("layer %s: %w", l.Digest, err)
		}
	}
	return nil
}

func unpackLayer(path, mediaType, root string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(mediaType, "+gzip") || strings.HasSuffix(mediaType, ".gzip") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		defer gz.Close()
		r = gz
	}
	chown := os.Geteuid() == 0
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean("/" + h.Name)
		dir, base := filepath.Split(name)
		if strings.HasPrefix(base, ".wh.") {
			// A whiteout: the lower layers' file is deleted.
			if base == ".wh..wh..opq" {
				entries, _ := os.ReadDir(filepath.Join(root, dir))
				for _, e := range entries {
					os.RemoveAll(filepath.Join(root, dir, e.Name()))
				}
			} else {
				os.RemoveAll(filepath.Join(root, dir, strings.TrimPrefix(base, ".wh.")))
			}
			continue
		}
		target := filepath.Join(root, name)
		if err := noLinkAbove(root, name); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(h.Mode) & os.ModePerm
		if h.Mode&04000 != 0 {
			mode |= os.ModeSetuid
		}
		if h.Mode&02000 != 0 {
			mode |= os.ModeSetgid
		}
		if h.Mode&01000 != 0 {
			mode |= os.ModeSticky
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			os.RemoveAll(target)
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			os.RemoveAll(target)
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
			if chown {
				os.Lchown(target, h.Uid, h.Gid)
			}
			continue
		case tar.TypeLink:
			os.RemoveAll(target)
			if err := os.Link(filepath.Join(root, filepath.Clean("/"+h.Linkname)), target); err != nil {
				return err
			}
			continue
		default:
			return fmt.Errorf("%s: unsupported entry type %q", h.Name, h.Typeflag)
		}
		if chown {
			if err := os.Lchown(target, h.Uid, h.Gid); err != nil {
				return err
			}
		}
		// After chown, which clears set-ID bits.
		if err := os.Chmod(target, mode); err != nil {
			return err
		}
	}
}

// noLinkAbove refuses an entry whose parent directories (name is clean and
// absolute, inside root) include a symbolic link: writing through one
// could land outside root.
func noLinkAbove(root, name string) error {
	dir := root
	parts := strings.Split(strings.Trim(filepath.Dir(name), "/"), "/")
	for _, p := range parts {
		if p == "" {
			continue
		}
		dir = filepath.Join(dir, p)
		fi, err := os.Lstat(dir)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s: a parent directory is a symbolic link", name)
		}
	}
	return nil
}

// Command is the image's entrypoint and command, to be run from root (the
// directory Unpack wrote) as a runtime would: chrooted there, as the
// image's user, in its working directory, with its environment; env
// entries (NAME=value) replace the image's, as "podman run -e" does.
// Chroot needs root.
func (im *Image) Command(root string, env ...string) (*exec.Cmd, error) {
	args := append(append([]string(nil), im.Config.Entrypoint...), im.Config.Cmd...)
	if len(args) == 0 || !strings.HasPrefix(args[0], "/") {
		return nil, fmt.Errorf("entrypoint %q: want an absolute path (an empty base has no shell or PATH search)", args)
	}
	uid, gid, err := im.user(root)
	if err != nil {
		return nil, err
	}
	vars := map[string]string{}
	var order []string
	for _, kv := range append(append([]string(nil), im.Config.Env...), env...) {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	cmd := &exec.Cmd{Path: args[0], Args: args, Dir: im.Config.WorkingDir}
	if cmd.Dir == "" {
		cmd.Dir = "/"
	}
	for _, k := range order {
		cmd.Env = append(cmd.Env, k+"="+vars[k])
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: uid, Gid: gid}, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}

// user resolves the image's User (uid[:gid] or a name in its /etc/passwd).
func (im *Image) user(root string) (uid, gid uint32, err error) {
	u, g, _ := strings.Cut(im.Config.User, ":")
	if u == "" {
		return 0, 0, nil
	}
	n, err := strconv.ParseUint(u, 10, 32)
	if err != nil {
		b, rerr := os.ReadFile(filepath.Join(root, "etc/passwd"))
		if rerr != nil {
			return 0, 0, fmt.Errorf("user %q: %w", u, rerr)
		}
		found := false
		for line := range strings.Lines(string(b)) {
			f := strings.Split(strings.TrimSpace(line), ":")
			if len(f) > 3 && f[0] == u {
				n, _ = strconv.ParseUint(f[2], 10, 32)
				m, _ := strconv.ParseUint(f[3], 10, 32)
				gid, found = uint32(m), true
			}
		}
		if !found {
			return 0, 0, fmt.Errorf("user %q is not in the image's /etc/passwd", u)
		}
	}
	uid = uint32(n)
	if g != "" {
		m, err := strconv.ParseUint(g, 10, 32)
		if err != nil {
			return 0, 0, fmt.Errorf("group %q: want a number", g)
		}
		gid = uint32(m)
	}
	return uid, gid, nil
}
