package sqlstore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/pickup"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// BenchmarkSendingCodeCreate is POST /labelless's store work for a new
// tracking number (noEdiCheck): the read that finds no code, the write
// transaction and the allocation.
func BenchmarkSendingCodeCreate(b *testing.B) {
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			db := testdb.Open(b, engine, nil)
			c := gatewayClientOf(orgOf(testOrg(b, db, parcelgate.Production, "1234567-1")))
			ctx := context.Background()
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				i++
				if _, err := sqlstore.NewCodeService(db).CreateSendingCode(ctx, c, fmt.Sprintf("JJFI%017d", i), true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSendingCodeLookup reads sending codes of a store holding 10,000:
// by tracking number, by code with the shipment details (a shipment with
// two parcels behind each code), and a repeated POST (idempotent, read
// only).
func BenchmarkSendingCodeLookup(b *testing.B) {
	const n = 10000
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			db := testdb.Open(b, engine, nil)
			c := gatewayClientOf(orgOf(testOrg(b, db, parcelgate.Production, "1234567-1")))
			ctx := context.Background()
			codes := make([]string, n)
			for i := range n {
				tn := fmt.Sprintf("JJFI%017d", i)
				if i < 100 {
					s := &parcelgate.Shipment{TrackingNumber: tn, ServiceCode: "2103", Sender: parcelgate.Address{Name: "S"}, Receiver: parcelgate.Address{Name: "R"}, Parcels: []parcelgate.Parcel{{}, {PackageCode: "M2"}}}
					if _, err := sqlstore.NewShipmentService(db, pickup.Network{}).CreateShipment(ctx, c, s); err != nil {
						b.Fatal(err)
					}
				}
				sc, err := sqlstore.NewCodeService(db).CreateSendingCode(ctx, c, tn, true)
				if err != nil {
					b.Fatal(err)
				}
				codes[i] = sc.SendingCode
			}
			if err := db.AnalyzeForTest(ctx); err != nil {
				b.Fatal(err)
			}
			b.Run("by-tracking-number", func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					if _, err := sqlstore.NewCodeService(db).FindSendingCode(ctx, c, fmt.Sprintf("JJFI%017d", i%n)); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("by-code-with-shipment", func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					sc, err := sqlstore.NewCodeService(db).FindSendingCodeByCode(ctx, c, codes[i%100])
					if err != nil || sc.Shipment == nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("repeated-create", func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					if _, err := sqlstore.NewCodeService(db).CreateSendingCode(ctx, c, fmt.Sprintf("JJFI%017d", i%n), true); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkCodeAllocation allocates one new code (and rolls it back, so the
// fill stays put) when a given fraction of the space is active. The store
// draws from a 65,536-code part of the space, which is pre-filled with one
// INSERT ... SELECT: what a draw costs depends on the fraction that is
// taken, not on the size of the space. draws/op is how many codes were
// drawn per new code, batches of candidates included.
func BenchmarkCodeAllocation(b *testing.B) {
	const space = 1 << 16
	for _, engine := range testdb.Engines {
		for _, fill := range []int{0, 50, 90, 99} {
			b.Run(fmt.Sprintf("%s/fill=%d", engine, fill), func(b *testing.B) {
				db := testdb.Open(b, engine, nil)
				c := testOrg(b, db, parcelgate.Production, "1234567-1")
				ctx := context.Background()
				var draws atomic.Int64
				db.DrawCodesFromForTest(space, &draws)
				if err := db.FillCodesForTest(ctx, parcelgate.Production, c.OrgID, space*fill/100); err != nil {
					b.Fatal(err)
				}
				draws.Store(0)
				for b.Loop() {
					if err := db.AllocateRolledBackForTest(ctx, parcelgate.Production, c.OrgID, "BENCH0001"); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(draws.Load())/float64(b.N), "draws/op")
			})
		}
	}
}
