package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"
)

// adminCommand is one operator API call from the command line.
type adminCommand struct {
	help   string
	method string
	path   string   // {arg} is replaced by the first positional argument
	flags  []string // flag=jsonField; a field ending in [] is a comma list
	query  bool     // flags go into the query string instead of a body
}

var adminCommands = map[string]adminCommand{
	"organizations":          {"list organizations", "GET", "/admin/v1/organizations", []string{"env=environment"}, true},
	"create-organization":    {"create an organization", "POST", "/admin/v1/organizations", []string{"env=environment", "business-id=businessId", "name=name", "contract-number=contractNumber"}, false},
	"gateway-clients":        {"list gateway clients", "GET", "/admin/v1/gateway-clients", []string{"env=environment"}, true},
	"create-gateway-client":  {"create a gateway client (prints its secret once)", "POST", "/admin/v1/gateway-clients", []string{"env=environment", "business-id=businessId", "versions=versions[]"}, false},
	"revoke-gateway-client":  {"revoke gateway client CLIENT_ID", "DELETE", "/admin/v1/gateway-clients/{arg}", nil, false},
	"service-accounts":       {"list service accounts", "GET", "/admin/v1/service-accounts", []string{"env=environment"}, true},
	"create-service-account": {"create a service account (prints its password once)", "POST", "/admin/v1/service-accounts", []string{"env=environment", "business-id=businessId", "username=username", "password=password", "roles=roles[]"}, false},
	"revoke-service-account": {"revoke service account USERNAME", "DELETE", "/admin/v1/service-accounts/{arg}", nil, false},
	"unlock-service-account": {"clear the login lockout of USERNAME", "POST", "/admin/v1/service-accounts/{arg}/unlock", nil, false},
	"catalogs":               {"list catalogs", "GET", "/admin/v1/catalogs", []string{"env=environment", "retailer-id=retailerId"}, true},
	"create-catalog":         {"create a catalog", "POST", "/admin/v1/catalogs", []string{"env=environment", "retailer-id=retailerId", "catalog-id=catalogExternalId", "name=catalogName", "type=catalogType", "suppliers=supplierIds[]"}, false},
	"order-status":           {"move an order as the warehouse: -value Submitted|Delivered|Cancelled|Error", "POST", "/admin/v1/orders/status", []string{"env=environment", "business-id=businessId", "external-id=externalId", "value=value", "reason=reason"}, false},
	"rotate-token-key":       {"create a new token key and retire the old ones", "POST", "/admin/v1/token-keys/rotate", nil, false},
	"clock":                  {"show the server's clock", "GET", "/admin/v1/clock", nil, true},
	"advance-clock":          {"move the sandbox clock forward by DURATION (e.g. 336h)", "POST", "/admin/v1/clock", nil, false},
}

func adminUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: parcelgate admin [-url URL] [-admin-token TOKEN] <command> [flags] [ARG]\n\ncommands:")
	names := make([]string, 0, len(adminCommands))
	for n := range adminCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-24s %s\n", n, adminCommands[n].help)
	}
	fmt.Fprintln(w, "\nURL and token default to PARCELGATE_URL (else http://127.0.0.1:8080) and PARCELGATE_ADMIN_TOKEN.")
}

func admin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	global := flag.NewFlagSet("admin", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.Usage = func() { adminUsage(stderr) }
	base := global.String("url", envOr("PARCELGATE_URL", "http://127.0.0.1:8080"), "server base URL")
	token := global.String("admin-token", os.Getenv("PARCELGATE_ADMIN_TOKEN"), "operator API token")
	if err := global.Parse(args); err != nil {
		return err
	}
	if global.NArg() == 0 {
		adminUsage(stderr)
		return flag.ErrHelp
	}
	name, rest := global.Arg(0), global.Args()[1:]
	cmd, ok := adminCommands[name]
	if !ok {
		adminUsage(stderr)
		return fmt.Errorf("unknown admin command %q", name)
	}
	fs := flag.NewFlagSet("admin "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	values := map[string]*string{}
	for _, f := range cmd.flags {
		flagName, field, _ := strings.Cut(f, "=")
		values[field] = fs.String(flagName, "", strings.TrimSuffix(field, "[]"))
	}
	if err := fs.Parse(rest); err != nil {
		return err
	}
	path := cmd.path
	var body any
	switch {
	case strings.Contains(path, "{arg}"):
		if fs.NArg() != 1 {
			return fmt.Errorf("admin %s takes one argument", name)
		}
		path = strings.ReplaceAll(path, "{arg}", url.PathEscape(fs.Arg(0)))
	case name == "advance-clock":
		if fs.NArg() != 1 {
			return fmt.Errorf("admin advance-clock takes a duration, e.g. 336h")
		}
		body = map[string]string{"advance": fs.Arg(0)}
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if cmd.query {
		q := url.Values{}
		for field, v := range values {
			if *v != "" {
				q.Set(field, *v)
			}
		}
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
	} else if len(values) > 0 {
		m := map[string]any{}
		for field, v := range values {
			if *v == "" {
				continue
			}
			if list, ok := strings.CutSuffix(field, "[]"); ok {
				m[list] = strings.Split(*v, ",")
			} else {
				m[field] = *v
			}
		}
		body = m
	}
	return adminCall(ctx, cmd.method, strings.TrimRight(*base, "/")+path, *token, body, stdout)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// adminCall makes one call and prints the answer as indented JSON; a non-2xx
// answer is an error carrying the server's message.
func adminCall(ctx context.Context, method, u, token string, body any, stdout io.Writer) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e struct{ Message string }
		if json.Unmarshal(b, &e) == nil && e.Message != "" {
			return fmt.Errorf("%s: %s", resp.Status, e.Message)
		}
		return fmt.Errorf("%s", resp.Status)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		fmt.Fprintln(stdout, "ok")
		return nil
	}
	var out bytes.Buffer
	if json.Indent(&out, b, "", "  ") != nil {
		_, err = stdout.Write(b)
		return err
	}
	out.WriteByte('\n')
	_, err = stdout.Write(out.Bytes())
	return err
}
