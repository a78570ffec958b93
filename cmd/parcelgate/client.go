package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate/client"
)

// clientCommand is one SDK call from the command line. bind declares the
// command's flags on fs and returns the function that runs it with the
// positional arguments; its result is printed as JSON.
type clientCommand struct {
	args string // synopsis of the positional arguments
	help string
	bind func(fs *flag.FlagSet) clientRun
}

// clientRun runs a command with its positional arguments.
type clientRun = func(ctx context.Context, c *client.Client, args []string) (any, error)

func clientUsage(w io.Writer) {
	fmt.Fprint(w, `usage: parcelgate client [flags] <command> [command flags] [ARGS]

Calls the provider's interface through the Go SDK (package client) and
prints the answers as JSON. Lists print every item of every page as one JSON
array, unless -page asks for one page.

flags (each also PARCELGATE_<NAME>, e.g. PARCELGATE_CLIENT_SECRET; prefer
the environment for secrets):
  -url URL               base URL of every surface (default http://127.0.0.1:8080)
  -gateway-url URL       sending codes and shipment data, if not -url
  -errand-url URL        errand codes, if not -url
  -ecom-url URL          orders, products, stock, catalogs, if not -url
  -env production|test   environment (errand path parcel or parcel-uat)
  -api-version yyyy-mm   gateway API version (default 2025-04)
  -client-id ID, -client-secret SECRET   gateway client
  -username NAME, -password PASSWORD     service account
  -timeout DURATION      limit of each attempt (default 30s)

commands:
`)
	names := make([]string, 0, len(clientCommands))
	for n := range clientCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		cmd := clientCommands[n]
		fmt.Fprintf(w, "  %-40s %s\n", strings.TrimSpace(n+" "+cmd.args), cmd.help)
	}
	fmt.Fprintln(w, "\nRun \"parcelgate client <command> -h\" for the flags of a command. FILE is a JSON file; - reads standard input.")
}

func clientMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	global := flag.NewFlagSet("client", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.Usage = func() { clientUsage(stderr) }
	var cfg client.Config
	var env string
	global.StringVar(&cfg.BaseURL, "url", "http://127.0.0.1:8080", "base URL of every surface")
	global.StringVar(&cfg.GatewayURL, "gateway-url", "", "gateway address")
	global.StringVar(&cfg.ErrandURL, "errand-url", "", "errand-code API address")
	global.StringVar(&cfg.EcomURL, "ecom-url", "", "ecom API address")
	global.StringVar(&env, "env", "production", "environment: production or test")
	global.StringVar(&cfg.Version, "api-version", client.DefaultVersion, "gateway API version")
	global.StringVar(&cfg.ClientID, "client-id", "", "gateway client ID")
	global.StringVar(&cfg.ClientSecret, "client-secret", "", "gateway client secret")
	global.StringVar(&cfg.Username, "username", "", "service account username")
	global.StringVar(&cfg.Password, "password", "", "service account password")
	global.DurationVar(&cfg.Timeout, "timeout", client.DefaultTimeout, "limit of each attempt")
	if err := global.Parse(args); err != nil {
		return err
	}
	if err := envDefaults(global); err != nil {
		return err
	}
	if global.NArg() == 0 {
		clientUsage(stderr)
		return flag.ErrHelp
	}
	name, rest := global.Arg(0), global.Args()[1:]
	cmd, ok := clientCommands[name]
	if !ok {
		clientUsage(stderr)
		return fmt.Errorf("unknown client command %q", name)
	}
	fs := flag.NewFlagSet("client "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: parcelgate client %s [flags] %s\n\n%s\n", name, cmd.args, cmd.help)
		fs.PrintDefaults()
	}
	exec := cmd.bind(fs)
	if err := fs.Parse(rest); err != nil {
		return err
	}
	cfg.Environment = client.Environment(strings.ToLower(env))
	c, err := client.New(cfg)
	if err != nil {
		return err
	}
	out, err := exec(ctx, c, fs.Args())
	if err != nil {
		return err
	}
	return printJSON(stdout, out)
}

// printJSON writes v as indented JSON. A list iterator is written as one
// array as its items come, so a long list is not held in memory.
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
	bw.WriteString("[")
	n := 0
	for item, err := range seq {
		if err != nil {
			bw.WriteString("\n]\n")
			bw.Flush()
			return err
		}
		b, err := json.MarshalIndent(item, "  ", "  ")
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n  ")
		bw.Write(b)
		n++
	}
	if n > 0 {
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
		return errors.New("a JSON request is required: -f FILE (- for standard input)")
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

// nArgs checks the count of positional arguments.
func nArgs(args []string, n int, what string) error {
	if len(args) != n {
		return fmt.Errorf("want %s", what)
	}
	return nil
}

// listFlags are the paging flags of a list command.
type listFlags struct {
	page, size int
}

func (l *listFlags) bind(fs *flag.FlagSet) {
	fs.IntVar(&l.page, "page", -1, "print only this page (0-based) as the page envelope")
	fs.IntVar(&l.size, "size", 0, "page size (default: the server's)")
}

// paging is the Paging of the flags.
func (l *listFlags) paging() client.Paging { return client.Paging{Page: max(l.page, 0), Size: l.size} }

// list prints one page when -page is given, else every item.
func list[T any](l *listFlags, page func() (*client.Page[T], error), all func() iter.Seq2[T, error]) (any, error) {
	if l.page >= 0 {
		return page()
	}
	return items(all()), nil
}

// timeFlag is a flag holding an RFC 3339 time.
type timeFlag struct{ t time.Time }

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

// commaList is a flag holding a comma-separated list.
type commaList []string

func (l *commaList) String() string { return strings.Join(*l, ",") }

func (l *commaList) Set(s string) error {
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

var clientCommands = map[string]clientCommand{
	"token": {"", "get access tokens: the gateway's and the ecom API's, for the credentials given", func(fs *flag.FlagSet) clientRun {
		return func(ctx context.Context, c *client.Client, args []string) (any, error) {
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
				return nil, errors.New("no credentials: give -client-id and -client-secret, or -username and -password")
			}
			if len(errs) > 0 {
				return nil, errors.Join(errs...)
			}
			return out, nil
		}
	}},
}

func init() {
	for name, cmd := range map[string]clientCommand{
		"create-shipment": {"-f FILE", "register shipment data (a ShipmentRequest)", fileBody("the shipment", func(ctx context.Context, c *client.Client, s *client.ShipmentRequest) (any, error) {
			return c.CreateShipment(ctx, s)
		})},
		"shipment": {"TRACKING_NUMBER", "show the shipment data of a tracking number", oneArg("a tracking number", func(ctx context.Context, c *client.Client, tn string) (any, error) {
			return c.Shipment(ctx, tn)
		})},
		"create-sending-code": {"TRACKING_NUMBER", "create (or get) the sending code of a shipment", func(fs *flag.FlagSet) clientRun {
			noEDI := fs.Bool("no-edi-check", false, "make the code even without shipment data")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if err := nArgs(args, 1, "a tracking number"); err != nil {
					return nil, err
				}
				return c.CreateSendingCode(ctx, args[0], &client.SendingCodeOptions{NoEDICheck: *noEDI})
			}
		}},
		"sending-code": {"TRACKING_NUMBER", "look up the sending code of a shipment", oneArg("a tracking number", func(ctx context.Context, c *client.Client, tn string) (any, error) {
			return c.SendingCode(ctx, tn)
		})},
		"sending-code-shipment": {"CODE", "look up the shipment of a sending code", oneArg("a sending code", func(ctx context.Context, c *client.Client, code string) (any, error) {
			return c.ShipmentBySendingCode(ctx, code)
		})},
		"errand-codes": {"PARCEL_ID...", "get the errand codes of parcels", func(fs *flag.FlagSet) clientRun {
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				var ids commaList
				for _, a := range args {
					ids.Set(a)
				}
				if len(ids) == 0 {
					return nil, errors.New("want one or more parcel IDs")
				}
				return c.ErrandCodes(ctx, ids...)
			}
		}},
	} {
		clientCommands[name] = cmd
	}
}

// fileBody binds a command without arguments whose request is read from
// the JSON file of its -f flag.
func fileBody[T any](what string, run func(ctx context.Context, c *client.Client, body *T) (any, error)) func(*flag.FlagSet) clientRun {
	return func(fs *flag.FlagSet) clientRun {
		file := fs.String("f", "", what+" as JSON (- for standard input)")
		return func(ctx context.Context, c *client.Client, args []string) (any, error) {
			if len(args) > 0 {
				return nil, fmt.Errorf("unexpected arguments: %v", args)
			}
			body := new(T)
			if err := readJSON(*file, body); err != nil {
				return nil, err
			}
			return run(ctx, c, body)
		}
	}
}

// oneArg binds a command without flags that takes one argument.
func oneArg(what string, run func(ctx context.Context, c *client.Client, arg string) (any, error)) func(*flag.FlagSet) clientRun {
	return func(*flag.FlagSet) clientRun {
		return func(ctx context.Context, c *client.Client, args []string) (any, error) {
			if err := nArgs(args, 1, what); err != nil {
				return nil, err
			}
			return run(ctx, c, args[0])
		}
	}
}

// bindProductQuery declares the filter flags of product and balance lists.
func bindProductQuery(fs *flag.FlagSet, q *client.ProductQuery, l *listFlags, modified bool) func() *client.ProductQuery {
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

func init() {
	for name, cmd := range map[string]clientCommand{
		"put-inventory": {"-f FILE", "create or replace products: a JSON array of {product, balances}; prints the entries not applied", fileBody("the entries", func(ctx context.Context, c *client.Client, entries *[]client.InventoryEntry) (any, error) {
			return c.PutInventory(ctx, *entries)
		})},
		"inventory": {"", "list the supplier's products with their balances", func(fs *flag.FlagSet) clientRun {
			var l listFlags
			var q client.ProductQuery
			fs.StringVar(&q.RetailerID, "retailer", "", "only products published to this retailer")
			fs.StringVar(&q.CatalogExternalID, "catalog", "", "only products published to this catalog")
			query := bindProductQuery(fs, &q, &l, false)
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				q := query()
				return list(&l, func() (*client.Page[client.InventoryItem], error) { return c.InventoryPage(ctx, q) },
					func() iter.Seq2[client.InventoryItem, error] { return c.Inventory(ctx, q) })
			}
		}},
		"product": {"EXTERNAL_ID", "show one of the supplier's products with its balances", oneArg("a product external ID", func(ctx context.Context, c *client.Client, id string) (any, error) {
			return c.InventoryItem(ctx, id)
		})},
		"delete-products": {"EXTERNAL_ID...", "end the sale of products (status EOS)", func(fs *flag.FlagSet) clientRun {
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if len(args) == 0 {
					return nil, errors.New("want one or more product external IDs")
				}
				return c.DeleteProducts(ctx, args...)
			}
		}},
		"put-balances": {"-f FILE", "publish products, update stock or prices: a JSON array of balances", fileBody("the balance updates", func(ctx context.Context, c *client.Client, updates *[]client.BalanceUpdate) (any, error) {
			return c.PutBalances(ctx, *updates)
		})},
		"balances": {"", "list the supplier's balances in every catalog", func(fs *flag.FlagSet) clientRun {
			var l listFlags
			var q client.ProductQuery
			fs.StringVar(&q.RetailerID, "retailer", "", "only this retailer's catalogs")
			fs.StringVar(&q.CatalogExternalID, "catalog", "", "only this catalog")
			query := bindProductQuery(fs, &q, &l, true)
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				q := query()
				return list(&l, func() (*client.Page[client.Balance], error) { return c.BalancesPage(ctx, q) },
					func() iter.Seq2[client.Balance, error] { return c.Balances(ctx, q) })
			}
		}},
		"delete-balances": {"PRODUCT_EXTERNAL_ID", "remove a product from catalogs (all of them unless narrowed)", func(fs *flag.FlagSet) clientRun {
			retailer := fs.String("retailer", "", "only this retailer's catalogs")
			catalog := fs.String("catalog", "", "only this catalog")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if err := nArgs(args, 1, "a product external ID"); err != nil {
					return nil, err
				}
				return c.DeleteBalances(ctx, args[0], *retailer, *catalog)
			}
		}},
		"remove-from-catalogs": {"-f FILE", "remove products from catalogs: a JSON array of {productExternalId, catalogExternalId, retailerId}; prints the entries not applied", fileBody("the removals", func(ctx context.Context, c *client.Client, rs *[]client.BalanceRemoval) (any, error) {
			return c.RemoveFromCatalogs(ctx, *rs)
		})},
		"migrate-products": {"", "drop the business-ID prefix from the supplier's product IDs ({businessId}-{x} becomes {x})", func(fs *flag.FlagSet) clientRun {
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if err := nArgs(args, 0, "no arguments"); err != nil {
					return nil, err
				}
				return c.MigrateProductIDs(ctx)
			}
		}},
		"catalogs": {"", "list the caller's catalogs", func(fs *flag.FlagSet) clientRun {
			var l listFlags
			role := fs.String("role", "", "RETAILER (catalogs owned) or SUPPLIER (catalogs open to the caller)")
			l.bind(fs)
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				r := strings.ToUpper(*role)
				return list(&l, func() (*client.Page[client.Catalog], error) { return c.CatalogsPage(ctx, r, l.paging()) },
					func() iter.Seq2[client.Catalog, error] { return c.Catalogs(ctx, r) })
			}
		}},
		"catalog-products": {"CATALOG_ID", "list the products published to a catalog (retailer)", func(fs *flag.FlagSet) clientRun {
			var l listFlags
			var q client.ProductQuery
			query := bindProductQuery(fs, &q, &l, false)
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if err := nArgs(args, 1, "a catalog ID"); err != nil {
					return nil, err
				}
				q := query()
				return list(&l, func() (*client.Page[client.InventoryItem], error) { return c.CatalogProductsPage(ctx, args[0], q) },
					func() iter.Seq2[client.InventoryItem, error] { return c.CatalogProducts(ctx, args[0], q) })
			}
		}},
		"catalog-balances": {"[CATALOG_ID]", "list the balances of a catalog, or of all the retailer's catalogs", func(fs *flag.FlagSet) clientRun {
			var l listFlags
			var q client.ProductQuery
			query := bindProductQuery(fs, &q, &l, true)
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if len(args) > 1 {
					return nil, errors.New("want at most one catalog ID")
				}
				catalog := ""
				if len(args) == 1 {
					catalog = args[0]
				}
				q := query()
				return list(&l, func() (*client.Page[client.Balance], error) { return c.CatalogBalancesPage(ctx, catalog, q) },
					func() iter.Seq2[client.Balance, error] { return c.CatalogBalances(ctx, catalog, q) })
			}
		}},
		"create-order": {"-f FILE", "place a warehouse sales order (an OrderRequest)", fileBody("the order", func(ctx context.Context, c *client.Client, o *client.OrderRequest) (any, error) {
			return c.CreateOrder(ctx, o)
		})},
		"orders": {"", "list orders", func(fs *flag.FlagSet) clientRun {
			var l listFlags
			var q client.OrderQuery
			var from, to timeFlag
			var statuses commaList
			fs.Var(&from, "updated-from", "only orders changed after this RFC 3339 time")
			fs.Var(&to, "updated-to", "only orders changed up to this RFC 3339 time")
			fs.StringVar(&q.RefName, "ref-name", "", "reference name (default SO with -ref-value)")
			fs.StringVar(&q.RefValue, "ref-value", "", "only orders with this reference value")
			fs.Var(&statuses, "status", "only orders in these statuses, comma-separated")
			fs.StringVar(&q.WarehouseExternalID, "warehouse", "", "only orders of this warehouse")
			l.bind(fs)
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				q.UpdatedFrom, q.UpdatedTo, q.Statuses, q.Paging = from.t, to.t, statuses, l.paging()
				return list(&l, func() (*client.Page[client.Order], error) { return c.OrdersPage(ctx, &q) },
					func() iter.Seq2[client.Order, error] { return c.Orders(ctx, &q) })
			}
		}},
		"order": {"ID", "show an order by its ID or externalId", oneArg("an order ID", func(ctx context.Context, c *client.Client, id string) (any, error) {
			return c.Order(ctx, id)
		})},
		"update-order": {"ID -f FILE", "send new content for an order still Created", func(fs *flag.FlagSet) clientRun {
			file := fs.String("f", "", "the order as JSON")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if err := nArgs(args, 1, "an order ID"); err != nil {
					return nil, err
				}
				var o client.OrderRequest
				if err := readJSON(*file, &o); err != nil {
					return nil, err
				}
				return c.UpdateOrder(ctx, args[0], &o)
			}
		}},
		"cancel-order": {"ID", "cancel an order not yet Delivered", oneArg("an order ID", func(ctx context.Context, c *client.Client, id string) (any, error) {
			return c.CancelOrder(ctx, id)
		})},
		"add-order-comment": {"ID -value TEXT", "add a note for the warehouse to an order", func(fs *flag.FlagSet) clientRun {
			var cm client.OrderComment
			fs.StringVar(&cm.Value, "value", "", "the note")
			fs.StringVar(&cm.Type, "type", "passThrough", "pickingNote (the shopper's note) or passThrough")
			fs.StringVar(&cm.ExternalID, "external-id", "", "your own ID of the note; sending it again replaces the note")
			fs.StringVar(&cm.Author, "author", "", "who wrote it")
			fs.StringVar(&cm.Origin, "origin", "", "where it comes from, e.g. WOOCOMMERCE")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if err := nArgs(args, 1, "an order ID"); err != nil {
					return nil, err
				}
				return c.AddOrderComment(ctx, args[0], cm)
			}
		}},
		"delete-order-comment": {"ID COMMENT_ID", "remove a note from an order (by its id or your externalId of it)", func(fs *flag.FlagSet) clientRun {
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if err := nArgs(args, 2, "an order ID and a comment ID"); err != nil {
					return nil, err
				}
				if err := c.DeleteOrderComment(ctx, args[0], args[1]); err != nil {
					return nil, err
				}
				return map[string]string{"deleted": args[1]}, nil
			}
		}},
		"reopen-order": {"ID", "send an order in Error or Cancelled again (with -f, with new content)", func(fs *flag.FlagSet) clientRun {
			file := fs.String("f", "", "new content as JSON (optional)")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if err := nArgs(args, 1, "an order ID"); err != nil {
					return nil, err
				}
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
		"set-order-preferences": {"ID", "change an order's preferences (-auto-submit=true releases a held order)", func(fs *flag.FlagSet) clientRun {
			auto := fs.Bool("auto-submit", true, "submit the order to the warehouse by itself")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if err := nArgs(args, 1, "an order ID"); err != nil {
					return nil, err
				}
				return c.SetOrderPreferences(ctx, args[0], client.OrderPreferences{AutoSubmit: *auto})
			}
		}},
	} {
		clientCommands[name] = cmd
	}
}
