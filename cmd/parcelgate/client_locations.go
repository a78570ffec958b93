package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
		clientCmd{name: "pickup-points", short: "Find pick-up points for a shop's checkout (the ecom API) near an address (--postal-code, --post-office, --street-address) or by --search text",
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
		clientCmd{name: "gateway-pickup-points", aliases: []string{"pickuppoints"}, args: "[COUNTRY [ID]]", max: 2, short: "The gateway's Pick-up Point API: a search (--postcode/--street/--city, --latitude/--longitude/--radius, --rectangle, --free-text or --parcel-locker); with COUNTRY, a page of its points; with COUNTRY and ID, one point",
			bind: func(fs *pflag.FlagSet) clientRun {
				var q client.PickupPointSearch
				var lat, lon float64
				var rect, filters commaList
				var locker, token string
				fs.StringVar(&q.Postcode, "postcode", "", "near this postal code")
				fs.StringVar(&q.CountryCode, "country", "", "ISO country code of the location (default FI)")
				fs.StringVar(&q.Street, "street", "", "the location's street")
				fs.StringVar(&q.City, "city", "", "near this town")
				fs.Float64Var(&lat, "latitude", 0, "near this position (with --longitude)")
				fs.Float64Var(&lon, "longitude", 0, "near this position (with --latitude)")
				fs.Float64Var(&q.RadiusMetres, "radius", 0, "within this many metres of the position")
				fs.Var(&rect, "rectangle", "inside swLatitude,swLongitude,neLatitude,neLongitude")
				fs.StringVar(&q.FreeText, "free-text", "", "every word in the point's name, address or town")
				fs.StringVar(&locker, "parcel-locker", "", "true: lockers only; false: no lockers")
				fs.StringVar(&q.ProductCode, "product", "", "points that serve this product code (2103)")
				fs.Var(&filters, "filter", "service filters, comma-separated name=true|false (outdoorLocker, lockerReservable, wheelchairAccessibility, openOnWeekends, ADRLimitedQuantities, saturdayDelivery)")
				fs.IntVar(&q.Limit, "limit", 0, "at most this many points (default 20)")
				fs.StringVar(&q.Language, "language", "", "the answer's language: fi (default), sv, da, en, et, lv, lt")
				fs.StringVar(&token, "page-token", "", "with COUNTRY: the pagingContinuationToken of the previous page")
				fs.StringVar(&q.EstimateFrom, "estimate-from", "", "add each point's delivery estimate from this postal code (with --estimate-product)")
				fs.StringVar(&q.EstimateProduct, "estimate-product", "2103", "the product of --estimate-from")
				fs.BoolVar(&q.Occupancy, "occupancy", false, "add each locker's usual occupancy")
				return func(ctx context.Context, c *client.Client, args []string) (any, error) {
					switch len(args) {
					case 1:
						return c.ListPickupPoints(ctx, args[0], token, q.Language)
					case 2:
						return c.GatewayPickupPoint(ctx, args[0], args[1], q.Language)
					}
					if fs.Changed("latitude") || fs.Changed("longitude") {
						q.Coordinates = &[2]float64{lat, lon}
					}
					if len(rect) > 0 {
						var r [4]float64
						if len(rect) != 4 {
							return nil, errors.New("--rectangle takes four numbers: swLatitude,swLongitude,neLatitude,neLongitude")
						}
						for i, v := range rect {
							if _, err := fmt.Sscan(v, &r[i]); err != nil {
								return nil, fmt.Errorf("--rectangle: %q is no number", v)
							}
						}
						q.Rectangle = &r
					}
					if locker != "" {
						b := locker == "true"
						if !b && locker != "false" {
							return nil, errors.New("--parcel-locker is true or false")
						}
						q.ParcelLocker = &b
					}
					for _, f := range filters {
						name, v, ok := strings.Cut(f, "=")
						if !ok || (v != "true" && v != "false") {
							return nil, fmt.Errorf("--filter %q: give name=true or name=false", f)
						}
						if q.Filters == nil {
							q.Filters = map[string]bool{}
						}
						q.Filters[name] = v == "true"
					}
					return c.SearchPickupPoints(ctx, q)
				}
			}},
		clientCmd{name: "estimate", short: "When a parcel will be delivered: --from (or --from-pup) and --to (or --to-pup), --product, optionally --time, --phase and --saturday",
			bind: func(fs *pflag.FlagSet) clientRun {
				var q client.EstimateRequest
				var at string
				var saturday bool
				fs.StringVar(&q.FromPostcode, "from", "", "the postal code the parcel leaves from (Finland)")
				fs.StringVar(&q.FromPupCode, "from-pup", "", "the pick-up point (9-digit ID) the parcel is dropped at")
				fs.StringVar(&q.ToPostcode, "to", "", "the destination's postal code")
				fs.StringVar(&q.ToPupCode, "to-pup", "", "the destination pick-up point (9-digit ID)")
				fs.StringVar(&q.ToCountry, "to-country", "", "the destination's ISO country code (default FI)")
				fs.StringVar(&q.ProductCode, "product", "", "the product (service) code, e.g. 2103")
				fs.StringVar(&at, "time", "", "when the parcel is handed over, RFC 3339 (default now)")
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
