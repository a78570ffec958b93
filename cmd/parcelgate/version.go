package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildVersion describes the build from the information the Go toolchain
// stamps into every binary: the module version ("v0.3.0" when installed with
// "go install ...@v0.3.0", "(devel)" or a pseudo-version from a checkout),
// the commit and its time, whether the tree had local changes, and the Go
// release. Nothing is set by hand at release time, so it cannot go stale.
func buildVersion() string {
	v := "parcelgate (unknown version)"
	bi, ok := debug.ReadBuildInfo()
	if ok {
		v = "parcelgate " + bi.Main.Version
		var rev, at, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", with local changes"
				}
			}
		}
		if rev != "" {
			if len(rev) > 12 {
				rev = rev[:12]
			}
			v += fmt.Sprintf(" (commit %s, %s%s)", rev, at, modified)
		}
	}
	return v + fmt.Sprintf("\n%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Show the version, commit and Go release this binary was built from",
		Args:  rangeArgs(0, 0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(c.OutOrStdout(), buildVersion())
			return err
		},
	}
}
