// Command parcelgate runs the parcelgate server and its command-line tools.
//
//	parcelgate serve [flags]     run the server (also when no command is given)
//	parcelgate migrate [flags]   apply database migrations and exit
//	parcelgate admin ...         call the operator API
//	parcelgate client ...        call the provider's interface through the Go SDK
//	parcelgate version           show the version this binary was built from
//	parcelgate completion SHELL  print a shell completion script
//
// Help goes to standard output ("parcelgate -h", "parcelgate client -h");
// the exit status is 0 on success, 1 when the command ran and failed (an
// error answer from the API, an unreachable server, a server that cannot
// start) and 2 when the command line is wrong. Every failure is one line on
// standard error.
//
// The commands are spf13/cobra commands built from tables (admin.go,
// client.go): cobra gives help on stdout, shell completion for bash, zsh,
// fish and PowerShell, and suggestions for mistyped commands, which a
// hand-written dispatcher would have to grow one by one.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit statuses, documented in the root help and the README.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // the command line is wrong
)

func main() {
	os.Exit(mainCode(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// mainCode runs the command line and turns its outcome into one error line
// and an exit status.
func mainCode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := run(ctx, args, stdout, stderr)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "parcelgate: "+errorLine(err))
	if isUsage(err) {
		return exitUsage
	}
	return exitFailure
}

// errorLine is err as one line without a repeated "parcelgate: " (the SDK's
// errors begin with it).
func errorLine(err error) string {
	s := strings.TrimSpace(err.Error())
	s = strings.TrimPrefix(s, "parcelgate: ")
	s = strings.ReplaceAll(s, "\nparcelgate: ", "; ")
	return strings.ReplaceAll(s, "\n", "; ")
}

// usageError is a wrong command line: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

const rootLong = `parcelgate serves a parcel-logistics provider's interface (sending codes,
errand codes, warehouse orders, products and stock) and calls it.

With no command, or with flags only, parcelgate runs "serve".

Exit status: 0 success; 1 the command failed (an error answer from the API,
an unreachable server, a server that cannot start); 2 a wrong command line.

Every flag of serve and migrate, and the connection flags of admin and client,
can also be set as PARCELGATE_<NAME> (dashes become underscores), e.g.
PARCELGATE_DB=postgres://... ; a flag on the command line wins.`

// run builds the command tree and runs args through it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := newRoot(stdout, stderr)
	root.SetArgs(normalizeArgs(root, defaultServe(args)))
	var started bool
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		started = true
		if err := envDefaults(c.Flags()); err != nil {
			return usageError{err}
		}
		return nil
	}
	err := root.ExecuteContext(ctx)
	if err != nil && !started && !isUsage(err) {
		// Anything cobra refuses before a command runs is the command line:
		// an unknown command, a wrong count of arguments.
		err = usageError{err}
	}
	return err
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "parcelgate",
		Short:         "Serve and call a parcel-logistics provider's interface",
		Long:          rootLong,
		Version:       buildVersion(),
		SilenceErrors: true,
		SilenceUsage:  true,
		// An unknown command gets the same answer as under admin and
		// client, with a suggestion, rather than cobra's several lines.
		Args: cobra.ArbitraryArgs,
		RunE: helpOrUnknown,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%v (see \"%s --help\")", err, c.CommandPath())
	})
	root.AddCommand(serveCommand(), migrateCommand(), adminCommand(), clientCommand(), versionCommand())
	return root
}

// defaultServe keeps "parcelgate" and "parcelgate --demo" running the
// server, as they did before there were other commands.
func defaultServe(args []string) []string {
	if len(args) == 0 {
		return []string{"serve"}
	}
	switch a := args[0]; {
	case a == "-h", a == "--help", a == "-help", a == "--version":
		return args
	case strings.HasPrefix(a, "-"):
		return append([]string{"serve"}, args...)
	}
	return args
}

// longFlag is a Go-style flag with one dash ("-url x", "-page=0").
var longFlag = regexp.MustCompile(`^-([a-z][a-z0-9-]+)(=.*)?$`)

// normalizeArgs accepts the single-dash long flags the command line has
// always taken (Go's flag package style, as in "-business-id 1234567-1"):
// a single-dash word that names a flag of some command becomes "--word".
// Arguments after "--" are left alone.
func normalizeArgs(root *cobra.Command, args []string) []string {
	names := map[string]bool{"help": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if m := longFlag.FindStringSubmatch(a); m != nil && names[m[1]] {
			a = "-" + a
		}
		out = append(out, a)
	}
	return out
}

// envAnnotation marks a flag that PARCELGATE_<NAME> can set.
const envAnnotation = "parcelgate-env"

// envFlag marks the named flags of fs as settable from the environment.
func envFlag(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, envAnnotation, []string{envName(n)}); err != nil {
			panic(err)
		}
	}
}

func envName(flag string) string {
	return "PARCELGATE_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// envDefaults sets every environment-settable flag not given on the command
// line from its PARCELGATE_<NAME> variable.
func envDefaults(fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed || err != nil || f.Annotations[envAnnotation] == nil {
			return
		}
		name := envName(f.Name)
		if v, ok := os.LookupEnv(name); ok {
			if e := f.Value.Set(v); e != nil {
				err = fmt.Errorf("%s=%q: %w", name, v, e)
			}
		}
	})
	return err
}

// group is a command that only holds others: alone it prints its help; with
// an unknown command it is a usage error.
func group(use, short, long string, subs ...*cobra.Command) *cobra.Command {
	g := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  cobra.ArbitraryArgs,
		RunE:  helpOrUnknown,
	}
	g.AddCommand(subs...)
	return g
}

// helpOrUnknown is the run of a command that only holds others: alone it
// prints its help; with an unknown command it is a usage error suggesting
// the nearest command's name.
func helpOrUnknown(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return c.Help()
	}
	if s := suggest(c, args[0]); len(s) > 0 {
		return usagef("unknown command %q; did you mean %s?", args[0], orList(s))
	}
	return usagef("unknown command %q for %q (see \"%s --help\")", args[0], c.CommandPath(), c.CommandPath())
}

// exactArgs, rangeArgs: cobra's checks with the synopsis in the message.
func rangeArgs(min, max int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < min || (max >= 0 && len(args) > max) {
			return usagef("%s: want %s (see \"%s --help\")", c.CommandPath(), what, c.CommandPath())
		}
		return nil
	}
}
