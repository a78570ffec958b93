package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/parcelgate/parcelgate/client"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// clientCmd is one SDK call from the command line. bind declares the
// command's flags on fs and returns the function that runs it with the
// positional arguments; its result is printed as JSON.
type clientCmd struct {
	name     string
	args     string // synopsis of the positional arguments
	short    string
	min, max int // count of positional arguments; max -1 is no limit
	bind     func(fs *pflag.FlagSet) clientRun
	// aliases are the command's old names: they still run it, hidden
	// from help and completion (decisions §42).
	aliases []string
}

// clientRun runs a command with its positional arguments.
type clientRun = func(ctx context.Context, c *client.Client, args []string) (any, error)

const clientLong = `Call the provider's interface through the Go SDK (package client) and print
the answers as JSON. Lists print every item of every page as one JSON array,
unless --page asks for one page. On an error answer nothing is printed on
standard output; a list that fails after its first page leaves its array
unclosed, so no JSON reader takes it for the whole list.

The connection flags (--url ... --timeout) can also be set as
PARCELGATE_<NAME>, e.g. PARCELGATE_CLIENT_SECRET: prefer the environment for
secrets. FILE is a JSON file; - reads standard input.`

func clientCommand() *cobra.Command {
	var cfg client.Config
	var env string
	subs := make([]*cobra.Command, 0, len(clientCommands)+len(shipmentCommands))
	for _, spec := range append(clientCommands, shipmentCommands...) {
		subs = append(subs, spec.command(&cfg, &env))
		// An old name is the same command under that name, hidden; cobra's
		// own aliases would be listed in the command's help.
		for _, old := range spec.aliases {
			a := spec
			a.name = old
			cmd := a.command(&cfg, &env)
			cmd.Hidden = true
			cmd.Short = fmt.Sprintf("the old name of %q", spec.name)
			cmd.Annotations = map[string]string{aliasOf: spec.name}
			subs = append(subs, cmd)
		}
	}
	g := group("client", "Call the provider's interface through the Go SDK: codes, orders, products, stock", clientLong, subs...)
	fs := g.PersistentFlags()
	fs.StringVar(&cfg.BaseURL, "url", "http://127.0.0.1:8080", "base URL of every surface")
	fs.StringVar(&cfg.GatewayURL, "gateway-url", "", "address of the gateway (sending codes, shipment data), if not --url")
	fs.StringVar(&cfg.ErrandURL, "errand-url", "", "address of the errand-code API, if not --url")
	fs.StringVar(&cfg.EcomURL, "ecom-url", "", "address of the ecom API (orders, products, stock, catalogs), if not --url")
	fs.StringVar(&env, "environment", "production", "environment: production or test (errand path parcel or parcel-uat)")
	// --env, the older spelling, still works; the help says --environment
	// as the admin commands do.
	fs.StringVar(&env, "env", "production", "environment (old spelling of --environment)")
	fs.MarkHidden("env")
	fs.StringVar(&cfg.Version, "api-version", client.DefaultVersion, "gateway API version (yyyy-mm)")
	fs.StringVar(&cfg.ClientID, "client-id", "", "gateway client ID")
	fs.StringVar(&cfg.ClientSecret, "client-secret", "", "gateway client secret")
	fs.StringVar(&cfg.Username, "username", "", "service account username")
	fs.StringVar(&cfg.Password, "password", "", "service account password")
	fs.BoolVar(&cfg.ServiceAccountOAuth, "oauth", false, "get the service account's token from POST /oauth/token?grant_type=client_credentials (the provider's Authentication API) instead of GET /auth/token")
	fs.DurationVar(&cfg.Timeout, "timeout", client.DefaultTimeout, "limit of each attempt")
	fs.VisitAll(func(f *pflag.Flag) { envFlag(fs, f.Name) })
	return g
}

// command builds the cobra command of one table row.
func (spec clientCmd) command(cfg *client.Config, env *string) *cobra.Command {
	what := spec.args
	if spec.min == 0 && spec.max == 0 {
		what = "no arguments"
	}
	cmd := &cobra.Command{
		Use:   strings.TrimSpace(spec.name + " " + spec.args),
		Short: spec.short,
		Args:  rangeArgs(spec.min, spec.max, what),
	}
	exec := spec.bind(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		cfg.Environment = client.Environment(strings.ToLower(*env))
		if err := halfCredentials(cfg); err != nil {
			return err
		}
		c, err := client.New(*cfg)
		if err != nil {
			return usageError{err}
		}
		out, err := exec(cmd.Context(), c, args)
		if err != nil {
			return credentialHint(err)
		}
		if files, ok := out.(writtenFiles); ok {
			return files.print(cmd.OutOrStdout())
		}
		// A list calls the API as it is printed.
		return credentialHint(printJSON(cmd.OutOrStdout(), out))
	}
	return cmd
}

// providerFindKeys are the Tracking API's find keys in the provider's
// names, as --by lists them (decisions §39).
var providerFindKeys = []string{
	string(client.KeyAll), string(client.KeyParcelAll), string(client.KeyParcelTrackingNumber), string(client.KeyParcelConsignmentNumber),
	string(client.KeyParcelOrderNumber), string(client.KeyParcelSenderReference), string(client.KeyParcelReceiverReference),
	string(client.KeyParcelErrandCode), string(client.KeyFreightAll), string(client.KeyFreightWaybillNumber),
	string(client.KeyFreightTrackingNumber), string(client.KeyFreightOrderNumber), string(client.KeyFreightReceiverReference),
	string(client.KeyFreightSenderReference),
}

// trackingRoutes are the Tracking API's routes by another key
// (/tracking/7/shipments/{route}/{value}); --by calls one by its name.
var trackingRoutes = []string{
	string(client.ByConsignmentNumber), string(client.ByWaybillNumber), string(client.ByGoodsItemID), string(client.BySenderReference),
	string(client.ByOrderNumber), string(client.ByReceiverReference), string(client.ByErrandCode), string(client.ByPhoneNumber),
}

// bindMock declares --mock on a sending code command: the call carries
// x-test-environment: true, which the provider answers with mock data.
func bindMock(fs *pflag.FlagSet) *bool {
	return fs.Bool("mock", false, "send x-test-environment: true: the provider's mock data for any well-formed number or code, the same every time, nothing stored (any --environment)")
}

// The credentials of each API and where the CLI reads them, for the
// errors that say what to set.
const (
	gatewayCredentials = "set --client-id/--client-secret or PARCELGATE_CLIENT_ID/PARCELGATE_CLIENT_SECRET"
	ecomCredentials    = "set --username/--password or PARCELGATE_USERNAME/PARCELGATE_PASSWORD"
)

// halfCredentials refuses a client ID without its secret (or a username
// without its password), naming the flags and variables, before the SDK
// refuses it in its own (Go field) names.
func halfCredentials(cfg *client.Config) error {
	if (cfg.ClientID == "") != (cfg.ClientSecret == "") {
		return usagef("half of the gateway credentials is given: %s, the two together", gatewayCredentials)
	}
	if (cfg.Username == "") != (cfg.Password == "") {
		return usagef("half of the service account credentials is given: %s, the two together", ecomCredentials)
	}
	return nil
}

// credentialHint turns the SDK's "no credentials configured (the ecom API)"
// into a usage error naming what sets them: the gateway client's for the
// gateway and errand-code APIs, the service account's for the ecom API and
// tracking.
func credentialHint(err error) error {
	if err == nil || !errors.Is(err, client.ErrNoCredentials) {
		return err
	}
	if strings.Contains(err.Error(), "the ecom API") {
		return usagef("no service account credentials (the ecom API): %s", ecomCredentials)
	}
	return usagef("no gateway credentials: %s", gatewayCredentials)
}

// printJSON writes v as indented JSON. A list iterator is written as one
// array as its items come, so a long list is not held in memory; nothing is
// written before the first page has come, so a list refused at once prints
// nothing.
func printJSON(w io.Writer, v any) error {
	bw := bufio.NewWriter(w)
	seq, ok := v.(iter.Seq2[any, error])
	if !ok {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
		return bw.Flush()
	}
	n := 0
	for item, err := range seq {
		if err != nil {
			if n > 0 {
				// Leave the array unclosed: partial output must not parse
				// as the whole list.
				bw.Flush()
			}
			return err
		}
		b, err := json.MarshalIndent(item, "  ", "  ")
		if err != nil {
			return err
		}
		if n == 0 {
			bw.WriteString("[")
		} else {
			bw.WriteByte(',')
		}
		bw.WriteString("\n  ")
		bw.Write(b)
		n++
	}
	if n == 0 {
		bw.WriteString("[")
	} else {
		bw.WriteString("\n")
	}
	bw.WriteString("]\n")
	return bw.Flush()
}

// items turns an SDK iterator into what printJSON streams.
func items[T any](seq iter.Seq2[T, error]) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for v, err := range seq {
			if !yield(v, err) {
				return
			}
		}
	}
}

// readJSON reads the file name ("-" is standard input) into v.
func readJSON(name string, v any) error {
	if name == "" {
		return usagef("a JSON request is required: -f FILE (- for standard input)")
	}
	var r io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	dec := json.NewDecoder(r)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// listFlags are the paging flags of a list command.
type listFlags struct {
	page, size int
}

func (l *listFlags) bind(fs *pflag.FlagSet) {
	fs.IntVar(&l.page, "page", -1, "print only this page (0-based) as the page envelope")
	fs.IntVar(&l.size, "size", 0, "page size (default: the server's)")
}

// paging is the Paging of the flags.
func (l *listFlags) paging() client.Paging { return client.Paging{Page: max(l.page, 0), Size: l.size} }

// list prints one page when --page is given, else every item.
func list[T any](l *listFlags, page func() (*client.Page[T], error), all func() iter.Seq2[T, error]) (any, error) {
	if l.page >= 0 {
		return page()
	}
	return items(all()), nil
}

// timeFlag is a flag holding an RFC 3339 time.
type timeFlag struct{ t time.Time }

func (f *timeFlag) Type() string { return "time" }

func (f *timeFlag) String() string {
	if f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339Nano)
}

func (f *timeFlag) Set(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("want an RFC 3339 time such as 2025-04-01T12:00:00Z")
	}
	f.t = t
	return nil
}

// commaList is a flag holding a comma-separated list; given again, it adds.
type commaList []string

func (l *commaList) Type() string { return "list" }

func (l *commaList) String() string { return strings.Join(*l, ",") }

func (l *commaList) Set(s string) error {
	*l = append(*l, splitList(s)...)
	return nil
}

// fileBody binds a command without arguments whose request is read from
// the JSON file of its -f flag.
func fileBody[T any](what string, run func(ctx context.Context, c *client.Client, body *T) (any, error)) func(*pflag.FlagSet) clientRun {
	return func(fs *pflag.FlagSet) clientRun {
		file := fs.StringP("file", "f", "", what+" as JSON (- for standard input)")
		return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
			body := new(T)
			if err := readJSON(*file, body); err != nil {
				return nil, err
			}
			return run(ctx, c, body)
		}
	}
}

// writeLabels writes each print of res to dir as {shipmentNo}_{pdf_type}.pdf
// (the names posti-cli gives them), fetching those not in the answer, and
// leaves the PDF data out of res: it is in the files.
func writeLabels(ctx context.Context, c *client.Client, dir string, res *client.ShippingOrderResult) (writtenFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files writtenFiles
	for i, p := range res.Prints {
		pdf := p.Data
		if len(pdf) == 0 {
			var err error
			if pdf, err = c.Label(ctx, p.Href); err != nil {
				return nil, err
			}
		}
		path := filepath.Join(dir, res.ShipmentNo+"_"+p.PdfType+".pdf")
		if err := os.WriteFile(path, pdf, 0o644); err != nil {
			return nil, err
		}
		res.Prints[i].Data = nil
		files = append(files, writtenFile{path: path, medium: p.Media, size: len(pdf), number: res.ShipmentNo})
	}
	return files, nil
}

// writtenFile is a file a command wrote, as its summary line names it.
type writtenFile struct {
	path, medium string
	size         int
	number       string // the tracking number (or numbers) the file is for
}

// writtenFiles is the answer of a command that writes files: instead of
// the files' bytes (a label's PDF is some 14 KB of base64 in JSON), one
// line per file: its path, print medium ("-" when the server chose),
// size and tracking number, in columns.
type writtenFiles []writtenFile

func (files writtenFiles) print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range files {
		fmt.Fprintf(tw, "%s\t%s\t%d bytes\t%s\n", f.path, or(f.medium, "-"), f.size, or(f.number, "-"))
	}
	return tw.Flush()
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// oneArg binds a command without flags that takes one argument.
func oneArg(run func(ctx context.Context, c *client.Client, arg string) (any, error)) func(*pflag.FlagSet) clientRun {
	return func(*pflag.FlagSet) clientRun {
		return func(ctx context.Context, c *client.Client, args []string) (any, error) {
			return run(ctx, c, args[0])
		}
	}
}

// bindProductQuery declares the filter flags of product and balance lists.
func bindProductQuery(fs *pflag.FlagSet, q *client.ProductQuery, l *listFlags, modified bool) func() *client.ProductQuery {
	var ids, eans commaList
	var from timeFlag
	fs.Var(&ids, "product", "product external IDs, comma-separated")
	fs.Var(&eans, "ean", "EAN codes, comma-separated")
	if modified {
		fs.Var(&from, "modified-from", "only balances changed after this RFC 3339 time")
	}
	l.bind(fs)
	return func() *client.ProductQuery {
		q.ProductExternalIDs, q.EANCodes, q.ModifiedFrom, q.Paging = ids, eans, from.t, l.paging()
		return q
	}
}

// bindCatalogFilter declares the flags that narrow a supplier's list to a
// retailer or one of its catalogs.
func bindCatalogFilter(fs *pflag.FlagSet, q *client.ProductQuery, what string) {
	fs.StringVar(&q.RetailerID, "retailer", "", "only "+what+" this retailer's catalogs (business ID)")
	fs.StringVar(&q.CatalogExternalID, "catalog", "", "only "+what+" this catalog")
}

// clientCommands is every client command, grouped as the interface is:
// tokens, codes (gateway and errand), products and stock, orders.
var clientCommands = []clientCmd{
	{name: "token", short: "Get access tokens: the gateway's and the ecom API's, for the credentials given",
		bind: func(fs *pflag.FlagSet) clientRun {
			return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
				out := map[string]*client.Token{}
				var errs []error
				for api, get := range map[string]func(context.Context) (*client.Token, error){"gateway": c.GatewayToken, "ecom": c.EcomToken} {
					tok, err := get(ctx)
					if err != nil {
						if !errors.Is(err, client.ErrNoCredentials) {
							errs = append(errs, fmt.Errorf("%s token: %w", api, err))
						}
						continue
					}
					out[api] = tok
				}
				if len(out) == 0 && len(errs) == 0 {
					return nil, usagef("no credentials: %s (gateway), or %s (ecom)", gatewayCredentials, ecomCredentials)
				}
				if len(errs) > 0 {
					return nil, errors.Join(errs...)
				}
				return out, nil
			}
		}},

	{name: "create-shipment", args: "-f FILE", short: "Register shipment data (a ShipmentRequest); prints the shipment with its parcel IDs",
		bind: fileBody("the shipment", func(ctx context.Context, c *client.Client, s *client.ShipmentRequest) (any, error) {
			return c.CreateShipment(ctx, s)
		})},
	{name: "shipment", args: "TRACKING_NUMBER", min: 1, max: 1, short: "Show the shipment data of a tracking number",
		bind: oneArg(func(ctx context.Context, c *client.Client, tn string) (any, error) { return c.Shipment(ctx, tn) })},
	{name: "create-shipping-order", args: "-f FILE", short: "Make a shipment with the shipping API (a ShippingOrder), write its label PDFs to --labels and list them",
		bind: func(fs *pflag.FlagSet) clientRun {
			file := fs.StringP("file", "f", "", "the shipping order as JSON (- for standard input)")
			dir := fs.String("labels", ".", "directory the label PDFs are written to, one file per print: {shipmentNo}_{pdf_type}.pdf")
			asJSON := fs.Bool("json", false, "print the shipping API's answer as JSON (parcel numbers, prints; the PDF data left out) instead of one line per file")
			return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
				var o client.ShippingOrder
				if err := readJSON(*file, &o); err != nil {
					return nil, err
				}
				res, err := c.CreateShippingOrder(ctx, &o, &client.ShippingOptions{ReturnFile: true})
				if err != nil {
					return nil, err
				}
				files, err := writeLabels(ctx, c, *dir, res)
				if err != nil || *asJSON || len(files) == 0 {
					// Without a print (nothing to list) the answer is what
					// says what was made.
					return res, err
				}
				return files, nil
			}
		}},
	{name: "label", args: "NUMBER", min: 1, max: 1, short: "Write the label PDF of a shipment or parcel number to --output and list it",
		bind: func(fs *pflag.FlagSet) clientRun {
			outPath := fs.StringP("output", "o", "", "file to write the PDF to (default NUMBER.pdf)")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				pdf, err := c.Label(ctx, args[0])
				if err != nil {
					return nil, err
				}
				path := *outPath
				if path == "" {
					path = args[0] + ".pdf"
				}
				if err := os.WriteFile(path, pdf, 0o644); err != nil {
					return nil, err
				}
				// The label route answers the medium the shipment was made with.
				return writtenFiles{{path: path, size: len(pdf), number: strings.ToUpper(strings.TrimSpace(args[0]))}}, nil
			}
		}},
	{name: "track", args: "NUMBER...", min: 1, max: -1, short: "Track parcels by number with the Tracking API (the service account's token); --by for another key",
		bind: func(fs *pflag.FlagSet) clientRun {
			by := fs.String("by", "", "find by other keys instead of tracking numbers (one value), in the provider's names, comma-separated, ! excluding one: "+
				strings.Join(providerFindKeys, ", ")+" (freight keys find nothing: no freight is carried here), e.g. all,!parcel_order_number; "+
				"or one of the Tracking API's routes: "+strings.Join(trackingRoutes, ", "))
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if *by != "" {
					if len(args) != 1 {
						return nil, fmt.Errorf("track --by %s takes one value, not %d", *by, len(args))
					}
					// A route's name alone calls the route (a consignment
					// number there shows another organization's parcel in
					// the public view); anything else is find's keys.
					if slices.Contains(trackingRoutes, *by) {
						return c.TrackBy(ctx, client.TrackingKey(*by), args[0])
					}
					var keys []client.TrackingKey
					for k := range strings.SplitSeq(*by, ",") {
						keys = append(keys, client.TrackingKey(strings.TrimSpace(k)))
					}
					return c.FindParcelsIn(ctx, keys, args[0])
				}
				var ns commaList
				for _, a := range args {
					ns.Set(a)
				}
				return c.Track(ctx, ns...)
			}
		}},
	{name: "create-sending-code", args: "TRACKING_NUMBER", min: 1, max: 1, short: "Create (or get) the label-less sending code of a shipment",
		bind: func(fs *pflag.FlagSet) clientRun {
			noEDI := fs.Bool("no-edi-check", false, "make the code even without shipment data")
			mock := bindMock(fs)
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				return c.CreateSendingCode(ctx, args[0], &client.SendingCodeOptions{NoEDICheck: *noEDI, TestEnvironment: *mock})
			}
		}},
	{name: "sending-code", args: "TRACKING_NUMBER", min: 1, max: 1, short: "Look up the sending code of a shipment",
		bind: func(fs *pflag.FlagSet) clientRun {
			mock := bindMock(fs)
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				return c.SendingCode(ctx, args[0], &client.SendingCodeOptions{TestEnvironment: *mock})
			}
		}},
	{name: "sending-code-shipment", args: "CODE", min: 1, max: 1, short: "Look up the shipment of a sending code",
		bind: func(fs *pflag.FlagSet) clientRun {
			mock := bindMock(fs)
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				return c.ShipmentBySendingCode(ctx, args[0], &client.SendingCodeOptions{TestEnvironment: *mock})
			}
		}},
	{name: "reservation-status", args: "--from TIME --to TIME --country CC", short: "The Tracking API's reservations/status: the caller's parcels due at --postcode in the window, one entry a day",
		bind: func(fs *pflag.FlagSet) clientRun {
			var from, to timeFlag
			var q client.ReservationQuery
			var postcodes, products, services commaList
			fs.Var(&from, "from", "start of the window (RFC 3339), inclusive")
			fs.Var(&to, "to", "end of the window (RFC 3339), exclusive; at most 31 days after --from")
			fs.StringVar(&q.Country, "country", "FI", "the destinations' country code")
			fs.Var(&postcodes, "postcode", "the destinations' postal codes, comma-separated")
			fs.Var(&products, "product", "only these products, comma-separated (2103, or 2103:3101 with an additional service)")
			fs.Var(&services, "service", "only parcels with one of these additional services, comma-separated")
			return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
				q.From, q.To, q.Postcodes, q.Products, q.Services = from.t, to.t, postcodes, products, services
				return c.ReservationStatus(ctx, q)
			}
		}},
	{name: "errand-codes", args: "PARCEL_ID...", min: 1, max: -1, short: "Get the errand codes of parcels (IDs as arguments or comma-separated)",
		bind: func(fs *pflag.FlagSet) clientRun {
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				var ids commaList
				for _, a := range args {
					ids.Set(a)
				}
				if len(ids) == 0 {
					return nil, usagef("want one or more parcel IDs")
				}
				return c.ErrandCodes(ctx, ids...)
			}
		}},

	{name: "put-inventory", args: "-f FILE", short: "Create or replace products: a JSON array of {product, balances}",
		bind: fileBody("the entries", func(ctx context.Context, c *client.Client, entries *[]client.InventoryEntry) (any, error) {
			return c.PutInventory(ctx, *entries)
		})},
	{name: "inventory", short: "List the supplier's products with their balances",
		bind: func(fs *pflag.FlagSet) clientRun {
			var l listFlags
			var q client.ProductQuery
			bindCatalogFilter(fs, &q, "products published to")
			query := bindProductQuery(fs, &q, &l, false)
			return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
				q := query()
				return list(&l, func() (*client.Page[client.InventoryItem], error) { return c.InventoryPage(ctx, q) },
					func() iter.Seq2[client.InventoryItem, error] { return c.Inventory(ctx, q) })
			}
		}},
	{name: "product", args: "EXTERNAL_ID", min: 1, max: 1, short: "Show one of the supplier's products with its balances",
		bind: oneArg(func(ctx context.Context, c *client.Client, id string) (any, error) { return c.InventoryItem(ctx, id) })},
	{name: "delete-products", args: "EXTERNAL_ID...", min: 1, max: -1, short: "End the sale of products (status EOS)",
		bind: func(fs *pflag.FlagSet) clientRun {
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				return c.DeleteProducts(ctx, args...)
			}
		}},
	{name: "put-balances", args: "-f FILE", short: "Publish products to catalogs, update stock or prices: a JSON array of balances",
		bind: fileBody("the balance updates", func(ctx context.Context, c *client.Client, updates *[]client.BalanceUpdate) (any, error) {
			return c.PutBalances(ctx, *updates)
		})},
	{name: "balances", short: "List the supplier's balances in every catalog",
		bind: func(fs *pflag.FlagSet) clientRun {
			var l listFlags
			var q client.ProductQuery
			bindCatalogFilter(fs, &q, "in")
			query := bindProductQuery(fs, &q, &l, true)
			return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
				q := query()
				return list(&l, func() (*client.Page[client.Balance], error) { return c.BalancesPage(ctx, q) },
					func() iter.Seq2[client.Balance, error] { return c.Balances(ctx, q) })
			}
		}},
	{name: "delete-balances", args: "PRODUCT_EXTERNAL_ID", min: 1, max: 1, short: "Remove a product from catalogs (all of them unless narrowed)",
		bind: func(fs *pflag.FlagSet) clientRun {
			var q client.ProductQuery
			bindCatalogFilter(fs, &q, "from")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				return c.DeleteBalances(ctx, args[0], q.RetailerID, q.CatalogExternalID)
			}
		}},
	{name: "remove-from-catalogs", args: "-f FILE", short: "Remove products from catalogs: a JSON array of {productExternalId, catalogExternalId, retailerId}; prints the entries not applied",
		bind: fileBody("the removals", func(ctx context.Context, c *client.Client, rs *[]client.BalanceRemoval) (any, error) {
			return c.RemoveFromCatalogs(ctx, *rs)
		})},
	{name: "migrate-products", short: "Drop the business-ID prefix from the supplier's product IDs ({businessId}-{x} becomes {x})",
		bind: func(fs *pflag.FlagSet) clientRun {
			return func(ctx context.Context, c *client.Client, _ []string) (any, error) { return c.MigrateProductIDs(ctx) }
		}},
	{name: "catalogs", short: "List the caller's catalogs (as retailer, or those it may publish to as supplier)",
		bind: func(fs *pflag.FlagSet) clientRun {
			var l listFlags
			role := fs.String("role", "", "RETAILER (catalogs owned) or SUPPLIER (catalogs open to the caller)")
			l.bind(fs)
			return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
				q := &client.CatalogQuery{Role: client.CatalogRole(strings.ToUpper(*role)), Paging: l.paging()}
				return list(&l, func() (*client.Page[client.Catalog], error) { return c.CatalogsPage(ctx, q) },
					func() iter.Seq2[client.Catalog, error] { return c.Catalogs(ctx, q) })
			}
		}},
	{name: "catalog-products", args: "CATALOG_ID", min: 1, max: 1, short: "List the products published to a catalog (retailer)",
		bind: func(fs *pflag.FlagSet) clientRun {
			var l listFlags
			var q client.ProductQuery
			query := bindProductQuery(fs, &q, &l, false)
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				q := query()
				return list(&l, func() (*client.Page[client.InventoryItem], error) { return c.CatalogProductsPage(ctx, args[0], q) },
					func() iter.Seq2[client.InventoryItem, error] { return c.CatalogProducts(ctx, args[0], q) })
			}
		}},
	{name: "catalog-balances", args: "[CATALOG_ID]", min: 0, max: 1, short: "List the balances of a catalog, or of all the retailer's catalogs",
		bind: func(fs *pflag.FlagSet) clientRun {
			var l listFlags
			var q client.ProductQuery
			query := bindProductQuery(fs, &q, &l, true)
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				catalog := ""
				if len(args) == 1 {
					catalog = args[0]
				}
				q := query()
				return list(&l, func() (*client.Page[client.Balance], error) { return c.CatalogBalancesPage(ctx, catalog, q) },
					func() iter.Seq2[client.Balance, error] { return c.CatalogBalances(ctx, catalog, q) })
			}
		}},

	{name: "create-order", args: "-f FILE", short: "Place a warehouse sales order (an OrderRequest)",
		bind: fileBody("the order", func(ctx context.Context, c *client.Client, o *client.OrderRequest) (any, error) {
			return c.CreateOrder(ctx, o)
		})},
	{name: "orders", short: "List orders, filtered by change time, reference, status or warehouse",
		bind: func(fs *pflag.FlagSet) clientRun {
			var l listFlags
			var q client.OrderQuery
			var from, to timeFlag
			var statuses commaList
			fs.Var(&from, "updated-from", "only orders changed after this RFC 3339 time")
			fs.Var(&to, "updated-to", "only orders changed up to this RFC 3339 time")
			fs.StringVar(&q.RefName, "ref-name", "", "reference name (default SO with --ref-value)")
			fs.StringVar(&q.RefValue, "ref-value", "", "only orders with this reference value")
			fs.Var(&statuses, "status", "only orders in these statuses, comma-separated (Created, Submitted, Partially delivered, Delivered, Cancelled, Error)")
			fs.StringVar(&q.WarehouseExternalID, "warehouse", "", "only orders of this warehouse")
			var orderedFrom, orderedTo timeFlag
			fs.Var(&orderedFrom, "from", "only orders whose orderDate is at or after this RFC 3339 time (the provider's from)")
			fs.Var(&orderedTo, "to", "only orders whose orderDate is before this RFC 3339 time (the provider's to)")
			fs.StringVar(&q.DocumentType, "document-type", "", "only orders of this document type: SalesOrder or PurchaseOrder")
			l.bind(fs)
			return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
				q.UpdatedFrom, q.UpdatedTo, q.Paging = from.t, to.t, l.paging()
				q.OrderedFrom, q.OrderedTo = orderedFrom.t, orderedTo.t
				q.Statuses = nil
				for _, s := range statuses {
					q.Statuses = append(q.Statuses, client.OrderStatus(s))
				}
				return list(&l, func() (*client.Page[client.Order], error) { return c.OrdersPage(ctx, &q) },
					func() iter.Seq2[client.Order, error] { return c.Orders(ctx, &q) })
			}
		}},
	{name: "order", args: "ID", min: 1, max: 1, short: "Show an order by its service ID or externalId",
		bind: oneArg(func(ctx context.Context, c *client.Client, id string) (any, error) { return c.Order(ctx, id) })},
	{name: "update-order", args: "ID -f FILE", min: 1, max: 1, short: "Send new content for an order still Created",
		bind: func(fs *pflag.FlagSet) clientRun {
			file := fs.StringP("file", "f", "", "the order as JSON (- for standard input)")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				var o client.OrderRequest
				if err := readJSON(*file, &o); err != nil {
					return nil, err
				}
				return c.UpdateOrder(ctx, args[0], &o)
			}
		}},
	{name: "cancel-order", args: "ID", min: 1, max: 1, short: "Cancel an order not yet Delivered",
		bind: oneArg(func(ctx context.Context, c *client.Client, id string) (any, error) { return c.CancelOrder(ctx, id) })},
	{name: "add-order-comment", args: "ID", min: 1, max: 1, short: "Add a note for the warehouse to an order",
		bind: func(fs *pflag.FlagSet) clientRun {
			var cm client.OrderComment
			fs.StringVar(&cm.Value, "value", "", "the note")
			fs.StringVar(&cm.Type, "type", "passThrough", "pickingNote (the shopper's note) or passThrough")
			fs.StringVar(&cm.ExternalID, "external-id", "", "your own ID of the note; sending it again replaces the note")
			fs.StringVar(&cm.Author, "author", "", "who wrote it")
			fs.StringVar(&cm.Origin, "origin", "", "where it comes from, e.g. WOOCOMMERCE")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				return c.AddOrderComment(ctx, args[0], cm)
			}
		}},
	{name: "delete-order-comment", args: "ID COMMENT_ID", min: 2, max: 2, short: "Remove a note from an order (by its id or your externalId of it)",
		bind: func(fs *pflag.FlagSet) clientRun {
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if err := c.DeleteOrderComment(ctx, args[0], args[1]); err != nil {
					return nil, err
				}
				return map[string]string{"deleted": args[1]}, nil
			}
		}},
	{name: "reopen-order", args: "ID", min: 1, max: 1, short: "Send an order in Error or Cancelled again (with -f, with new content)",
		bind: func(fs *pflag.FlagSet) clientRun {
			file := fs.StringP("file", "f", "", "new content as JSON (optional; - for standard input)")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				var o *client.OrderRequest
				if *file != "" {
					o = new(client.OrderRequest)
					if err := readJSON(*file, o); err != nil {
						return nil, err
					}
				}
				return c.ReopenOrder(ctx, args[0], o)
			}
		}},
	{name: "set-order-preferences", args: "ID", min: 1, max: 1, short: "Change an order's preferences (--auto-submit=true releases a held order)",
		bind: func(fs *pflag.FlagSet) clientRun {
			auto := fs.Bool("auto-submit", true, "submit the order to the warehouse by itself")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				return c.SetOrderPreferences(ctx, args[0], client.OrderPreferences{AutoSubmit: *auto})
			}
		}},
}
