package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parcelgate/parcelgate/internal/adminclient"
)

// adminCmd is one operator API call from the command line (interface §10,
// decisions §9). The flags of a command are the fields of its request: the
// query string of a GET (or of a call with query set), else a JSON body;
// a field may say otherwise (adminField.in).
type adminCmd struct {
	name   string
	args   string // synopsis of the one positional argument, if any
	short  string
	method string
	path   string // {arg} is replaced by the positional argument
	fields []adminField
	// query sends the fields of a call that is not a GET in the query
	// string too.
	query bool
	// body, when set, makes the request body from the positional argument;
	// the fields' body members are added to it.
	body func(arg string) map[string]any
}

// adminField is one request field set by a flag.
type adminField struct {
	flag, json string
	help       string
	list       bool   // a comma-separated list, sent as a JSON array
	def        string // the value sent when the flag is not given
	// in is where the field goes when not where its command sends fields:
	// "query", or "path" (it replaces {json} in the path and is required).
	in string
	// kind is the JSON type of a body member: "int" or "num" for a number;
	// a string otherwise.
	kind string
	// required fields must be given: the command refuses to run without.
	required bool
	// alias is a hidden second name of the flag.
	alias string
}

// envField is the environment field every tenant-scoped command takes.
// It is spelt --environment in every help text, as the JSON field is;
// --env, the older spelling, still works (hidden).
var envField = adminField{flag: "environment", alias: "env", json: "environment", help: "environment: production or test (default production)"}

// mustEnvField is the environment of an operator control (decisions §21): it
// has no default, so no reset, restore, fault or clock move acts on
// production unless asked.
var mustEnvField = adminField{flag: "environment", alias: "env", json: "environment", required: true,
	help: "environment it acts on: production or test (required; production only on a server started with --sandbox)"}

var adminCommands = []adminCmd{
	{name: "organizations", short: "List the organizations (tenants) of an environment",
		method: "GET", path: "/admin/v1/organizations", fields: []adminField{envField,
			{flag: "size", json: "size", help: "organizations a page, 1-1000 (default 100)"},
			{flag: "after", json: "after", help: "the next of the page before: the page starts after that business ID"}}},
	{name: "create-organization", short: "Create an organization (a tenant, named by its business ID)",
		method: "POST", path: "/admin/v1/organizations", fields: []adminField{envField,
			{flag: "business-id", json: "businessId", help: "the organization's Finnish business ID, e.g. 1234567-1 (required)"},
			{flag: "name", json: "name", help: "the organization's name, up to 200 characters (required)"},
			{flag: "contract-number", json: "contractNumber", help: "the organization's contract number with the provider, up to 64 characters"},
		}},
	{name: "gateway-clients", short: "List the gateway clients (sending-code API credentials) of an environment",
		method: "GET", path: "/admin/v1/gateway-clients", fields: []adminField{envField,
			{flag: "size", json: "size", help: "gateway clients a page, 1-1000 (default 100)"},
			{flag: "after", json: "after", help: "the next of the page before: the page starts after that client ID"}}},
	{name: "create-gateway-client", short: "Create a gateway client; prints its secret once",
		method: "POST", path: "/admin/v1/gateway-clients", fields: []adminField{envField,
			{flag: "business-id", json: "businessId", help: "business ID of the organization the client acts for (required)"},
			{flag: "versions", json: "versions", list: true, help: "gateway API versions the client may use, comma-separated yyyy-mm (default: every version served)"},
		}},
	{name: "revoke-gateway-client", args: "CLIENT_ID", short: "Revoke a gateway client: no new tokens (issued ones live out their hour)",
		method: "DELETE", path: "/admin/v1/gateway-clients/{arg}"},
	{name: "service-accounts", short: "List the service accounts (ecom API credentials) of an environment",
		method: "GET", path: "/admin/v1/service-accounts", fields: []adminField{envField,
			{flag: "size", json: "size", help: "service accounts a page, 1-1000 (default 100)"},
			{flag: "after", json: "after", help: "the next of the page before: the page starts after that username"}}},
	{name: "create-service-account", short: "Create a service account; prints its password once",
		method: "POST", path: "/admin/v1/service-accounts", fields: []adminField{envField,
			{flag: "business-id", json: "businessId", help: "business ID of the organization the account acts for (required)"},
			{flag: "username", json: "username", help: "login name, 3-64 of A-Z a-z 0-9 . _ @ -, unique across the deployment (required)"},
			{flag: "password", json: "password", help: "12-128 bytes; leave out to have one generated and printed"},
			{flag: "roles", json: "roles", list: true, help: "roles, comma-separated: merchant, supplier, retailer (required)"},
		}},
	{name: "revoke-service-account", args: "USERNAME", short: "Revoke a service account: no new tokens",
		method: "DELETE", path: "/admin/v1/service-accounts/{arg}"},
	{name: "unlock-service-account", args: "USERNAME", short: "Clear the login lockout of a service account (5 failed logins lock it for an hour)",
		method: "POST", path: "/admin/v1/service-accounts/{arg}/unlock"},
	{name: "catalogs", short: "List the catalogs of an environment",
		method: "GET", path: "/admin/v1/catalogs", fields: []adminField{envField,
			{flag: "retailer-id", json: "retailerId", help: "only the catalogs of this retailer's business ID"},
		}},
	{name: "create-catalog", short: "Create a retailer's catalog and name the suppliers that may publish to it",
		method: "POST", path: "/admin/v1/catalogs", fields: []adminField{envField,
			{flag: "retailer-id", json: "retailerId", help: "business ID of the retailer that owns the catalog (required)"},
			{flag: "catalog-id", json: "catalogExternalId", help: "the catalog's ID within the retailer, 1-20 of A-Z a-z 0-9 . -; a Warehouse catalog's is its warehouse ID (required)"},
			{flag: "name", json: "catalogName", help: "display name, up to 200 characters (default: the catalog ID)"},
			{flag: "type", json: "catalogType", help: "whose stock it shows: Warehouse (the provider's warehouse), Catalog (dropshipping) or Store (default Warehouse)"},
			{flag: "suppliers", json: "supplierIds", list: true, help: "business IDs of the suppliers that may publish to it, comma-separated"},
		}},
	{name: "order-status", short: "Move a warehouse order as the warehouse would (Submitted, Delivered, Cancelled, Error)",
		method: "POST", path: "/admin/v1/orders/status", fields: []adminField{envField,
			{flag: "business-id", json: "businessId", help: "business ID of the organization that placed the order (required)"},
			{flag: "external-id", json: "externalId", help: "the order's externalId or service ID (required)"},
			{flag: "value", json: "value", help: "the new status: Submitted, Viewed, Delivered, Cancelled or Error (required); only the interface's transitions are allowed"},
			{flag: "reason", json: "reason", help: "why, up to 500 characters; shown in the order's status.reason"},
		}},
	{name: "shipment-status", short: "Mark a shipment Delivered, which frees its sending and errand codes",
		method: "POST", path: "/admin/v1/shipments/status", fields: []adminField{envField,
			{flag: "business-id", json: "businessId", help: "business ID of the organization that owns the shipment (required)"},
			{flag: "tracking-number", json: "trackingNumber", help: "the shipment's tracking number (required)"},
			{flag: "value", json: "value", def: "Delivered", help: "the new status; Delivered is the only one"},
		}},
	{name: "rotate-token-key", short: "Create a new token signing key; tokens sealed with the old ones stay valid for their hour",
		method: "POST", path: "/admin/v1/token-keys/rotate"},
	{name: "clock", short: "Show an environment's clock (and whether it may be moved)",
		method: "GET", path: "/admin/v1/clock", fields: []adminField{envField}},
	{name: "advance-clock", args: "DURATION", short: "Move an environment's clock forward, e.g. 336h (production's only under serve --sandbox)",
		method: "POST", path: "/admin/v1/clock", fields: []adminField{mustEnvField},
		body: func(arg string) map[string]any { return map[string]any{"advance": arg} }},

	// The operator controls (docs/controls.md).
	{name: "reset", args: "BUSINESS_ID", short: "Empty the data of an organization (--catalogs true: its catalogs too)",
		method: "POST", path: "/admin/v1/organizations/{arg}/reset", query: true, fields: []adminField{mustEnvField, catalogsField, waitField}},
	{name: "reset-environment", short: "Empty the data of every organization of an environment",
		method: "POST", path: "/admin/v1/reset", query: true, fields: []adminField{mustEnvField, catalogsField, waitField}},
	{name: "snapshot", args: "BUSINESS_ID", short: "Save the data of an organization as a named snapshot",
		method: "POST", path: "/admin/v1/organizations/{arg}/snapshots", fields: []adminField{queryEnvField, queryWaitField,
			{flag: "name", json: "name", help: "the snapshot's name (required)"},
		}},
	{name: "snapshots", args: "BUSINESS_ID", short: "List the snapshots of an organization",
		method: "GET", path: "/admin/v1/organizations/{arg}/snapshots", fields: []adminField{envField}},
	{name: "show-snapshot", args: "BUSINESS_ID", short: "Show one snapshot of an organization: when it was taken, its environment and object counts",
		method: "GET", path: "/admin/v1/organizations/{arg}/snapshots/{name}", fields: []adminField{queryEnvField, snapshotField}},
	{name: "restore", args: "BUSINESS_ID", short: "Put the data of an organization back as a snapshot saved it",
		method: "POST", path: "/admin/v1/organizations/{arg}/snapshots/{name}/restore", fields: []adminField{mustQueryEnvField, snapshotField, queryWaitField}},
	{name: "drop-snapshot", args: "BUSINESS_ID", short: "Delete a snapshot of an organization",
		method: "DELETE", path: "/admin/v1/organizations/{arg}/snapshots/{name}", fields: []adminField{queryEnvField, snapshotField}},
	{name: "jobs", short: "List the operator jobs (resets, snapshots, restores) of an environment or organization, newest first, with their progress",
		method: "GET", path: "/admin/v1/jobs", fields: []adminField{envField,
			{flag: "business-id", json: "businessId", help: "only the jobs of this organization"},
		}},
	{name: "job", args: "JOB_ID", short: "Show an operator job: its state and rows done of the total by table",
		method: "GET", path: "/admin/v1/jobs/{arg}", fields: []adminField{envField,
			{flag: "business-id", json: "businessId", help: "the organization the job acts on (a job of another is not found)"},
		}},
	{name: "demo-reset", short: "Put the --demo data back in its seeded state",
		method: "POST", path: "/admin/v1/demo/reset"},
	{name: "faults", short: "List the injected faults of an environment",
		method: "GET", path: "/admin/v1/faults", fields: []adminField{envField}},
	{name: "inject-fault", short: "Make matching API calls fail or slow down (--status, --latency; --count or --probability)",
		method: "POST", path: "/admin/v1/faults", fields: []adminField{mustEnvField,
			{flag: "business-id", json: "businessId", help: "only the calls of this organization"},
			{flag: "method", json: "method", help: "only calls with this HTTP method"},
			{flag: "route", json: "route", help: "only calls to this route, e.g. /ecommerce/v3/orders"},
			{flag: "status", json: "status", kind: "int", help: "answer with this status: 429, 500, 502, 503 or 504"},
			{flag: "latency", json: "latency", help: "delay the answer by this long, e.g. 2s"},
			{flag: "retry-after", json: "retryAfter", kind: "int", help: "seconds sent in Retry-After with a 429 or 503"},
			{flag: "probability", json: "probability", kind: "num", help: "the share of matching calls that fail, 0-1"},
			{flag: "count", json: "count", kind: "int", help: "fail this many matching calls, then stop"},
			{flag: "expires-after", json: "expiresAfter", help: "remove the fault after this long, e.g. 10m"},
		}},
	{name: "remove-fault", args: "ID", short: "Remove an injected fault",
		method: "DELETE", path: "/admin/v1/faults/{arg}"},
	{name: "requests", short: "List journaled API calls, newest first",
		method: "GET", path: "/admin/v1/requests", fields: []adminField{envField,
			{flag: "business-id", json: "businessId", help: "only the calls of this organization"},
			{flag: "route", json: "route", help: "only calls to this route"},
			{flag: "status", json: "status", help: "only answers with this status or class, e.g. 503 or 5xx"},
			{flag: "from", json: "from", help: "only calls at or after this time (RFC 3339)"},
			{flag: "to", json: "to", help: "only calls before this time (RFC 3339)"},
			{flag: "limit", json: "limit", help: "at most this many calls"},
			{flag: "before", json: "before", help: "the next page: calls before this cursor"},
		}},
	{name: "request", args: "REQUEST_ID", short: "Show a journaled call with its bodies (--business-id and --environment choose when organizations share the ID)",
		method: "GET", path: "/admin/v1/requests/{arg}", fields: []adminField{
			{flag: "environment", alias: "env", json: "environment", help: "environment of the organization: production or test (required with --business-id)"},
			{flag: "business-id", json: "businessId", help: "the call of this organization"},
		}},
}

// Fields the operator controls share.
var (
	queryEnvField     = adminField{flag: envField.flag, alias: envField.alias, json: "environment", in: "query", help: envField.help}
	mustQueryEnvField = adminField{flag: mustEnvField.flag, alias: mustEnvField.alias, json: "environment", in: "query", required: true, help: mustEnvField.help}
	catalogsField     = adminField{flag: "catalogs", json: "catalogs", help: "true: remove the organization's catalogs too"}
	snapshotField     = adminField{flag: "name", json: "name", in: "path", help: "the snapshot's name (required)"}
	// waitField: how long a long control waits for its job before it
	// answers 202 with the job to follow ("parcelgate admin job ID").
	waitField      = adminField{flag: "wait", json: "wait", help: "how long to wait for the job, e.g. 0s (default: the server's --db-timeout less a tenth); a job still running is printed with its ID, to follow with 'admin job'"}
	queryWaitField = adminField{flag: waitField.flag, json: "wait", in: "query", help: waitField.help}
)

// jobCancelCommand is "admin job cancel JOB_ID": stop a job that has not
// ended; the batches it did stay done (decisions §60).
var jobCancelCommand = adminCmd{name: "cancel", args: "JOB_ID", short: "Cancel an operator job that has not ended: the batches it did stay done, the tenant is unfenced (run a reset or restore again to finish it)",
	method: "POST", path: "/admin/v1/jobs/{arg}/cancel", query: true, fields: []adminField{envField,
		{flag: "business-id", json: "businessId", help: "the organization the job acts on (a job of another is not found)"},
	}}

const adminLong = `Call the operator API (/admin/v1) of a running server and print the answer
as JSON. The token is the one serve printed or was given with --admin-token.

--url and --admin-token can also be set as PARCELGATE_URL and
PARCELGATE_ADMIN_TOKEN.`

func adminCommand() *cobra.Command {
	var base, token string
	subs := make([]*cobra.Command, 0, len(adminCommands))
	for _, spec := range adminCommands {
		cmd := spec.command(&base, &token)
		if spec.name == "job" {
			// admin job cancel JOB_ID (admin job JOB_ID shows one).
			cmd.AddCommand(jobCancelCommand.command(&base, &token))
		}
		subs = append(subs, cmd)
	}
	g := group("admin", "Call the operator API: tenants, credentials, catalogs, order and shipment moves", adminLong, subs...)
	g.PersistentFlags().StringVar(&base, "url", "http://127.0.0.1:8080", "server base URL")
	g.PersistentFlags().StringVar(&token, "admin-token", "", "operator API token")
	envFlag(g.PersistentFlags(), "url", "admin-token")
	return g
}

// command builds the cobra command of one table row.
func (spec adminCmd) command(base, token *string) *cobra.Command {
	values := make([]*string, len(spec.fields))
	nargs := 0
	if spec.args != "" {
		nargs = 1
	}
	cmd := &cobra.Command{
		Use:   strings.TrimSpace(spec.name + " " + spec.args),
		Short: spec.short,
		Args:  rangeArgs(nargs, nargs, map[bool]string{true: spec.args, false: "no arguments"}[nargs == 1]),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := spec.path
			var m map[string]any
			if nargs == 1 {
				if spec.body != nil {
					m = spec.body(args[0])
				} else {
					path = strings.ReplaceAll(path, "{arg}", url.PathEscape(args[0]))
				}
			}
			inQuery := spec.method == http.MethodGet || spec.query
			q := url.Values{}
			for i, f := range spec.fields {
				v := fieldValue(f, *values[i])
				if f.required && v == "" {
					return usagef("%s needs --%s: production or test", spec.name, f.flag)
				}
				switch {
				case f.in == "path":
					if v == "" {
						return usagef("%s needs --%s", spec.name, f.flag)
					}
					path = strings.ReplaceAll(path, "{"+f.json+"}", url.PathEscape(v))
				case v == "":
				case f.in == "query" || inQuery:
					q.Set(f.json, v)
				default:
					val, err := f.value(v)
					if err != nil {
						return err
					}
					if m == nil {
						m = map[string]any{}
					}
					m[f.json] = val
				}
			}
			if len(q) > 0 {
				path += "?" + q.Encode()
			}
			var body any
			if m != nil {
				body = m
			} else if !inQuery && hasBodyFields(spec.fields) {
				body = map[string]any{}
			}
			op := &adminclient.Client{BaseURL: strings.TrimRight(*base, "/"), Token: *token}
			return adminCall(cmd.Context(), op, spec.method, path, body, cmd.OutOrStdout())
		},
	}
	for i, f := range spec.fields {
		values[i] = cmd.Flags().String(f.flag, f.def, f.help)
		if f.alias != "" {
			cmd.Flags().StringVar(values[i], f.alias, f.def, f.help)
			cmd.Flags().MarkHidden(f.alias)
		}
	}
	return cmd
}

func fieldValue(f adminField, v string) string {
	if v == "" {
		return f.def
	}
	return v
}

// hasBodyFields reports whether any field goes into a request body.
func hasBodyFields(fields []adminField) bool {
	for _, f := range fields {
		if f.in == "" {
			return true
		}
	}
	return false
}

// value is the body member of a flag's value v: a list, a number, or the
// string.
func (f adminField) value(v string) (any, error) {
	switch {
	case f.list:
		return splitList(v), nil
	case f.kind == "int":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, usagef("--%s: %q is not a whole number", f.flag, v)
		}
		return n, nil
	case f.kind == "num":
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, usagef("--%s: %q is not a number", f.flag, v)
		}
		return n, nil
	}
	return v, nil
}

func splitList(s string) []string {
	var out []string
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// adminCall makes one call and prints the answer as indented JSON; a non-2xx
// answer is an error carrying the server's message, and prints nothing.
func adminCall(ctx context.Context, op *adminclient.Client, method, path string, body any, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := op.Request(ctx, method, path, body)
	if err != nil {
		return usageError{err}
	}
	b, err := op.Send(req)
	if err != nil {
		return err
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
