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
	"strconv"
	"strings"
	"time"
)

// adminCommand is one operator API call from the command line.
type adminCommand struct {
	help   string
	method string
	path   string // {arg} is replaced by the first positional argument
	// flags are flag=jsonField; a field ending in [] is a comma list, one
	// ending in :int or :num a number. A field starting with ? goes into
	// the query string, one starting with # replaces {field} in the path.
	flags []string
	query bool // flags go into the query string instead of a body
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
	"clock":                  {"show an environment's clock", "GET", "/admin/v1/clock", []string{"env=environment"}, true},
	"advance-clock":          {"move the sandbox clock forward by DURATION (e.g. 336h); -env moves one environment's", "POST", "/admin/v1/clock", []string{"env=environment"}, false},

	// The sandbox controls (docs/sandbox.md).
	"reset":             {"empty the data of organization BUSINESS_ID (-catalogs true: its catalogs too)", "POST", "/admin/v1/organizations/{arg}/reset", []string{"env=environment", "catalogs=catalogs"}, true},
	"reset-environment": {"empty the data of every organization of -env", "POST", "/admin/v1/reset", []string{"env=environment", "catalogs=catalogs"}, true},
	"snapshot":          {"save the data of organization BUSINESS_ID as -name", "POST", "/admin/v1/organizations/{arg}/snapshots", []string{"env=?environment", "name=name"}, false},
	"snapshots":         {"list the snapshots of organization BUSINESS_ID", "GET", "/admin/v1/organizations/{arg}/snapshots", []string{"env=environment"}, true},
	"restore":           {"put the data of organization BUSINESS_ID back as snapshot -name saved it", "POST", "/admin/v1/organizations/{arg}/snapshots/{name}/restore", []string{"env=?environment", "name=#name"}, false},
	"drop-snapshot":     {"delete snapshot -name of organization BUSINESS_ID", "DELETE", "/admin/v1/organizations/{arg}/snapshots/{name}", []string{"env=?environment", "name=#name"}, false},
	"demo-reset":        {"put the --demo data back in its seeded state", "POST", "/admin/v1/demo/reset", nil, false},
	"faults":            {"list the injected faults", "GET", "/admin/v1/faults", []string{"env=environment"}, true},
	"inject-fault": {"make matching API calls fail: -status 429|500|502|503|504, -latency, -count or -probability", "POST", "/admin/v1/faults", []string{"env=environment", "business-id=businessId", "method=method", "route=route",
		"status=status:int", "latency=latency", "retry-after=retryAfter:int", "probability=probability:num", "count=count:int", "expires-after=expiresAfter"}, false},
	"remove-fault": {"remove injected fault ID", "DELETE", "/admin/v1/faults/{arg}", nil, false},
	"requests":     {"list journaled API calls, newest first", "GET", "/admin/v1/requests", []string{"env=environment", "business-id=businessId", "route=route", "status=status", "from=from", "to=to", "limit=limit", "before=before"}, true},
	"request":      {"show journaled call REQUEST_ID with its bodies", "GET", "/admin/v1/requests/{arg}", nil, false},
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
		values[field] = fs.String(flagName, "", strings.Trim(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(field, "[]"), ":int"), ":num"), "?#"))
	}
	if err := fs.Parse(rest); err != nil {
		return err
	}
	path := cmd.path
	var body any
	q := url.Values{}
	m := map[string]any{}
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
		m["advance"] = fs.Arg(0)
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	for field, v := range values {
		switch {
		case strings.HasPrefix(field, "#"):
			field = field[1:]
			if *v == "" {
				return fmt.Errorf("admin %s needs -%s", name, field)
			}
			path = strings.ReplaceAll(path, "{"+field+"}", url.PathEscape(*v))
		case *v == "":
		case strings.HasPrefix(field, "?") || cmd.query:
			q.Set(strings.TrimPrefix(field, "?"), *v)
		default:
			key, val, err := jsonValue(field, *v)
			if err != nil {
				return err
			}
			m[key] = val
		}
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	if !cmd.query && len(m) > 0 {
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

// jsonValue is the body member of a flag: field names it, its suffix its
// type ([] a comma list, :int and :num numbers, otherwise a string).
func jsonValue(field, v string) (string, any, error) {
	switch {
	case strings.HasSuffix(field, "[]"):
		return strings.TrimSuffix(field, "[]"), strings.Split(v, ","), nil
	case strings.HasSuffix(field, ":int"):
		key := strings.TrimSuffix(field, ":int")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", nil, fmt.Errorf("-%s: %q is not a whole number", key, v)
		}
		return key, n, nil
	case strings.HasSuffix(field, ":num"):
		key := strings.TrimSuffix(field, ":num")
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "", nil, fmt.Errorf("-%s: %q is not a number", key, v)
		}
		return key, f, nil
	}
	return field, v, nil
}
