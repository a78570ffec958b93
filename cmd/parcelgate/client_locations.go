package main

import (
	"context"

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
				fs.Var(&types, "type", "point types, comma-separated; !TYPE leaves one out (POST_OFFICE, PICKUP_POINT, PARCEL_LOCKER)")
				fs.Var(&capabilities, "capability", "capabilities, comma-separated; !name for one to lack (outdoors, cashOnDelivery)")
				fs.StringVar(&q.CountryFrom, "country-from", "", "country the parcel leaves from, for the estimate")
				fs.StringVar(&q.PostalCodeFrom, "postal-code-from", "", "postal code the parcel leaves from, for the estimate")
				fs.IntVar(&q.Limit, "limit", 0, "at most this many points (default 20)")
				return func(ctx context.Context, c *client.Client, _ []string) (any, error) {
					q.ServiceCodes, q.Types, q.Capabilities = services, types, capabilities
					return c.PickupPoints(ctx, q)
				}
			}},
	)
}
