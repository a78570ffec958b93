package pickup

import (
	. "github.com/parcelgate/parcelgate"
	"testing"
	"time"
)

// The gateway's searches over the national data set, one of each mode.
func BenchmarkSearchPickupPoints(b *testing.B) {
	at := Coordinates{Latitude: 60.17, Longitude: 24.93}
	for name, s := range map[string]PickupSearch{
		"postcode":    {Postcode: "33100", Limit: 10},
		"coordinates": {Coordinates: &at, RadiusMetres: 5000, Limit: 20},
		"rectangle":   {Rectangle: &Rectangle{SWLatitude: 60.1, SWLongitude: 24.8, NELatitude: 60.3, NELongitude: 25.1}, Limit: 20},
		"freeText":    {FreeText: "pakettiautomaatti tampere", Limit: 10},
	} {
		b.Run(name, func(b *testing.B) {
			if err := s.Validate(); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				network.SearchPickupPoints(s)
			}
		})
	}
	b.Run("ecom", func(b *testing.B) {
		q := PickupQuery{PostalCode: "33100", ServiceCodes: []string{"2103"}}
		q.Validate()
		now := time.Now()
		for b.Loop() {
			network.QueryPickupPoints(q, now)
		}
	})
}
