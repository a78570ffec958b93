package main

import (
	"context"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/parcelgate/parcelgate/client"
	"github.com/spf13/pflag"
)

// shipmentCommands are the dropshipping supplier's calls (Shipments API
// v3, decisions §34) and the retailer's view of its order's shipments.
var shipmentCommands = []clientCmd{
	{name: "supplier-shipments", aliases: []string{"shipments"}, short: "List the supplier's shipments, filtered by change time and status",
		bind: func(fs *pflag.FlagSet) clientRun {
			var l listFlags
			var q client.ShipmentQuery
			var from timeFlag
			var statuses commaList
			fs.Var(&from, "from", "only shipments changed after this RFC 3339 time")
			fs.Var(&statuses, "status", "only shipments in these statuses, comma-separated, case-sensitive (Created, Viewed, Picking, Packing, Shipping, Delivered, Cancelled, Error)")
			l.bind(fs)
			return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
				q.From, q.Paging, q.Statuses = from.t, l.paging(), nil
				for _, s := range statuses {
					q.Statuses = append(q.Statuses, client.SupplyStatus(s))
				}
				return list(&l, func() (*client.Page[client.SupplierShipment], error) { return c.SupplierShipmentsPage(ctx, &q) },
					func() iter.Seq2[client.SupplierShipment, error] { return c.SupplierShipments(ctx, &q) })
			}
		}},
	{name: "supplier-shipment", args: "ID", min: 1, max: 1, short: "Show one of the supplier's shipments",
		bind: oneArg(func(ctx context.Context, c *client.Client, id string) (any, error) {
			return c.SupplierShipment(ctx, id)
		})},
	{name: "set-supplier-shipment-status", aliases: []string{"set-shipment-status"}, args: "ID --status STATUS", min: 1, max: 1, short: "Move a supplier shipment: Viewed, Picking, Packing, Shipping, Delivered, Cancelled or Error",
		bind: func(fs *pflag.FlagSet) clientRun {
			st := fs.String("status", "", "the new status (case-sensitive)")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if *st == "" {
					return nil, usageError{errMissingStatus}
				}
				return c.SetShipmentStatus(ctx, args[0], client.SupplyStatus(*st))
			}
		}},
	{name: "confirm-supplier-shipment", aliases: []string{"confirm-shipment"}, args: "ID [-f FILE]", min: 1, max: 1, short: "Confirm a supplier shipment: with -f, its parcels (a JSON array with rows and deliveredQuantity); without, every row in full",
		bind: func(fs *pflag.FlagSet) clientRun {
			file := fs.StringP("file", "f", "", "the parcels as JSON (- for standard input); leave out to confirm every row in full with platform tracking codes")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if *file == "" {
					return c.FastConfirmShipment(ctx, args[0])
				}
				var parcels []client.ShipmentParcel
				if err := readJSON(*file, &parcels); err != nil {
					return nil, err
				}
				return c.ConfirmShipment(ctx, args[0], parcels)
			}
		}},
	{name: "split-supplier-shipment", aliases: []string{"split-shipment"}, args: "ID -f FILE [--confirm]", min: 1, max: 1, short: "Split a supplier shipment into parcels: the full parcel list as a JSON array; --confirm confirms them in the same call",
		bind: func(fs *pflag.FlagSet) clientRun {
			file := fs.StringP("file", "f", "", "the parcels as JSON (- for standard input); a parcel the shipment has may leave out its service fields, an added one needs them")
			confirm := fs.Bool("confirm", false, "confirm in the same PUT (status Delivered, as the provider's split example): each parcel's deliveredQuantity is what it carries, and each gets tracking codes, its own or the platform's with a label")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				var parcels []client.ShipmentParcel
				if err := readJSON(*file, &parcels); err != nil {
					return nil, err
				}
				if *confirm {
					return c.SplitAndConfirmShipment(ctx, args[0], parcels)
				}
				return c.SplitShipment(ctx, args[0], parcels)
			}
		}},
	{name: "add-supplier-shipment-event", args: "ID --code CODE", min: 1, max: 1, short: "Report an event of a supplier shipment beside its status (a hand-over, a delay); prints the shipment with its events",
		bind: func(fs *pflag.FlagSet) clientRun {
			var ev client.ShipmentEvent
			var at timeFlag
			fs.StringVar(&ev.Code, "code", "", "what happened: 1-50 letters, digits, '_' or '-' (required)")
			fs.StringVar(&ev.Description, "description", "", "the event in words")
			fs.StringVar(&ev.ParcelID, "parcel", "", "the parcel it is about (default: the shipment)")
			fs.StringVar(&ev.Location, "location", "", "where it happened")
			fs.Var(&at, "time", "when it happened (RFC 3339; default now)")
			fs.StringVar(&ev.ExternalID, "external-id", "", "your own ID of the event: sending it again is a safe retry")
			return func(ctx context.Context, c *client.Client, args []string) (any, error) {
				if ev.Code == "" {
					return nil, usageError{usageText("--code is required")}
				}
				ev.Timestamp = at.t
				return c.AddShipmentEvent(ctx, args[0], ev)
			}
		}},
	{name: "supplier-shipment-options", args: "ID", min: 1, max: 1, short: "List the delivery methods a supplier shipment's parcels may take, for a confirmation or a split",
		bind: oneArg(func(ctx context.Context, c *client.Client, id string) (any, error) {
			return c.ShipmentOptionsOf(ctx, id)
		})},
	{name: "supplier-parcel-label", aliases: []string{"shipment-label"}, args: "ID PARCEL_ID -o FILE", min: 2, max: 2, short: "Save the PDF address label of a supplier shipment's parcel (platform tracking codes only) and list it",
		bind: pdfCommand(true)},
	{name: "supplier-parcel-note", aliases: []string{"shipment-note"}, args: "ID PARCEL_ID -o FILE", min: 2, max: 2, short: "Save the PDF delivery note of a supplier shipment's parcel and list it",
		bind: pdfCommand(false)},
	{name: "order-supplier-shipments", aliases: []string{"order-shipments"}, args: "ID", min: 1, max: 1, short: "Show the suppliers' shipments of one of the retailer's orders",
		bind: oneArg(func(ctx context.Context, c *client.Client, id string) (any, error) { return c.OrderShipments(ctx, id) })},
}

// errMissingStatus is the usage error of set-shipment-status without
// --status.
var errMissingStatus = usageText("--status is required")

type usageText string

func (u usageText) Error() string { return string(u) }

// pdfCommand saves a parcel's label (or note) to the file of -o and lists
// it with the parcel's tracking codes.
func pdfCommand(label bool) func(fs *pflag.FlagSet) clientRun {
	return func(fs *pflag.FlagSet) clientRun {
		out := fs.StringP("output", "o", "", "the PDF file to write")
		media := ""
		if label {
			fs.StringVar(&media, "media", "", "print medium: laser-a5 (default), laser-a4, laser-2a5, thermo-225, thermo-190")
		}
		return func(ctx context.Context, c *client.Client, args []string) (any, error) {
			if *out == "" {
				return nil, usageError{usageText("-o FILE is required")}
			}
			f, err := os.Create(*out)
			if err != nil {
				return nil, err
			}
			cw := &countingWriter{w: f}
			if label {
				err = c.ParcelLabel(ctx, args[0], args[1], media, cw)
			} else {
				err = c.ParcelNote(ctx, args[0], args[1], cw)
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(*out)
				return nil, err
			}
			kind := "delivery-note"
			if label {
				kind = or(media, "laser-a5")
			}
			return writtenFiles{{path: *out, medium: kind, size: cw.n, number: parcelCodes(ctx, c, args[0], args[1])}}, nil
		}
	}
}

// parcelCodes are the tracking codes of a supplier shipment's parcel,
// comma-separated, for the summary line; "" when it has none (or the
// shipment cannot be read again: the file is written either way).
func parcelCodes(ctx context.Context, c *client.Client, id, parcelID string) string {
	sh, err := c.SupplierShipment(ctx, id)
	if err != nil {
		return ""
	}
	for _, p := range sh.Consignment.Parcels {
		if p.ParcelID == parcelID {
			return strings.Join(p.TrackingCodes, ",")
		}
	}
	return ""
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
