package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/parcelgate/parcelgate/client"
)

// The location commands: the delivery services a shop can offer and the
// pick-up points near an address. They close the client table.
func init() {
	clientCommands = append(clientCommands,
		clientCmd{name: "services", short: "List the delivery services (service codes) a shop can offer",
			bind: func(fs *pflag.FlagSet) clientRun {
				return func(ctx context.Context, c *client.Client, _ []string) (any, error) { return c.DeliveryServices(ctx) }
			}},
		clientCmd{name: "pickup-points", short: "Find pick-up points near an address (--postal-code, --post-office, --street-address) or by --search text",
			bind: func(fs *pflag.FlagSet) clientRun {
				var q client.PickupPointQuery
				var services, types, capabilities commaList
				fs.Var(&services, "service-code", "service codes, comma-separated (2103 delivers to pick-up points)")
				fs.StringVar(&q.PostalCode, "postal-code", "", "the address's postal code")
				fs.StringVar(&q.PostOffice, "post-office", "", "the address's town")
				fs.StringVar(&q.StreetAddress, "street-address", "", "the street address")
				fs.StringVar(&q.Country, "country", "", "ISO country code (default FI)")
				fs.StringVar(&q.Search, "search", "", "free text instead of an address")
				pointKindFlags(fs, &types, &capabilities)
				fs.StringVar(&q.CountryFrom, "country-from", "", "country the parcel leaves from, for the estimate")
				fs.StringVar(&q.PostalCodeFrom, "postal-code-from", "", "postal code the parcel leaves from, for the estimate")
				fs.IntVar(&q.Limit, "limit", 0, "at most this many points (default 20)")
				return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
					q.ServiceCodes, q.Types, q.Capabilities = services, types, capabilities
					return c.PickupPoints(ctx, q)
				}
			}},
		clientCmd{name: "pickuppoints", args: "[COUNTRY ID]", max: 2, short: "The gateway's Pick-up Point API: points near --postcode, --city or --address, or matching --text; with COUNTRY and ID, one point",
			bind: func(fs *pflag.FlagSet) clientRun {
				var q client.PickupPointSearch
				var services, types, capabilities commaList
				fs.StringVar(&q.Postcode, "postcode", "", "the location's postal code")
				fs.StringVar(&q.CountryCode, "country", "", "ISO country code (default FI)")
				fs.StringVar(&q.City, "city", "", "the location's town")
				fs.StringVar(&q.Address, "address", "", "the location's street address")
				fs.StringVar(&q.Text, "text", "", "free text instead of a location")
				fs.Var(&services, "service-code", "service codes, comma-separated")
				pointKindFlags(fs, &types, &capabilities)
				fs.IntVar(&q.Limit, "limit", 0, "at most this many points (default 20)")
				fs.StringVar(&q.Language, "language", "", "the language of the type names: fi, sv or en (Accept-Language)")
				return func(ctx context.Context, c *client.Client, args []string) (any, error) {
					switch len(args) {
					case 0:
						q.ServiceCodes, q.Types, q.Capabilities = services, types, capabilities
						return c.SearchPickupPoints(ctx, q)
					case 2:
						return c.GatewayPickupPoint(ctx, args[0], args[1], q.Language)
					}
					return nil, errors.New("pickuppoints takes no arguments (a search) or COUNTRY and ID (one point)")
				}
			}},
		clientCmd{name: "estimate", short: "When a parcel will be delivered: --from and --to postal codes, --product, optionally --time, --phase and --saturday",
			bind: func(fs *pflag.FlagSet) clientRun {
				var q client.EstimateRequest
				var at string
				var saturday bool
				fs.StringVar(&q.FromPostcode, "from", "", "the postal code the parcel leaves from (Finland)")
				fs.StringVar(&q.ToPostcode, "to", "", "the destination's postal code")
				fs.StringVar(&q.ToCountry, "to-country", "", "the destination's ISO country code (default FI)")
				fs.StringVar(&q.ProductCode, "product", "", "the product (service) code, e.g. 2103")
				fs.StringVar(&at, "time", "", "when the parcel is handed over, RFC 3339 (default now, by the server's clock)")
				fs.StringVar(&q.LogisticPhase, "phase", "", "DROPPED_OFF (default) or PICKED_UP")
				fs.BoolVar(&saturday, "saturday", false, "Saturday delivery (additional service 3106; products 2101 and 2102)")
				return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
					if at != "" {
						t, err := time.Parse(time.RFC3339Nano, at)
						if err != nil {
							return nil, fmt.Errorf("--time: %w", err)
						}
						q.At = t
					}
					if saturday {
						q.AdditionalServices = []string{client.SaturdayDelivery}
					}
					return c.Estimate(ctx, q)
				}
			}},
	)
}

// pointKindFlags declares the narrowing both pick-up point searches take
// alike: the point types and the capabilities.
func pointKindFlags(fs *pflag.FlagSet, types, capabilities *commaList) {
	fs.Var(types, "type", "point types, comma-separated; !TYPE leaves one out (POST_OFFICE, PICKUP_POINT, PARCEL_LOCKER)")
	fs.Var(capabilities, "capability", "capabilities, comma-separated; !name for one to lack (outdoors, cashOnDelivery)")
}
