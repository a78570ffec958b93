// Command parcelgate runs the parcelgate server and its command-line tools.
//
//	parcelgate [serve] [flags]   run the server (the default)
//	parcelgate migrate [flags]   apply database migrations and exit
//	parcelgate admin ...         call the operator API
//	parcelgate client ...        call the provider's interface through the Go SDK
//
// Every serve flag can also be set as PARCELGATE_<NAME>, e.g.
// PARCELGATE_DB=postgres://... ; a flag on the command line wins.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "parcelgate:", err)
		}
		os.Exit(2)
	}
}

const usage = `usage: parcelgate <command> [flags]

commands:
  serve     run the server (default)
  migrate   apply database migrations and exit
  admin     call the operator API (parcelgate admin -h)
  client    call the provider's interface through the Go SDK (parcelgate client -h)

Run "parcelgate <command> -h" for the flags of a command.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, stdout, stderr)
	case "migrate":
		return migrate(ctx, args, stdout, stderr)
	case "admin":
		return admin(ctx, args, stdout, stderr)
	case "client":
		return clientMain(ctx, args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

// envDefaults sets every flag not given on the command line from its
// PARCELGATE_<NAME> variable (dashes become underscores).
func envDefaults(fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		name := "PARCELGATE_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(name); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %w", name, v, e)
			}
		}
	})
	return err
}
