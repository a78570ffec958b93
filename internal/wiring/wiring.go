// Package wiring hands each front end the services of one store: the one
// place that knows which concrete service fills which of a front end's
// fields. cmd/parcelgate, the in-process server and the test harnesses
// use it, so they wire alike.
package wiring

import (
	"github.com/parcelgate/parcelgate/console"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/pickup"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// HTTP returns the services of the HTTP API over db.
func HTTP(db *sqlstore.DB) httpapi.Services {
	s := sqlstore.NewServices(db, pickup.Network{})
	return httpapi.Services{
		Organizations: s.Organizations,
		Credentials:   s.Credentials,
		Catalogs:      s.Catalogs,
		Orders:        s.Orders,
		OrderAnswers:  s.Orders,
		Shipments:     s.Shipments,
		Codes:         s.Codes,
		Inventory:     s.Inventory,
		Controls:      s.Controls,
		Faults:        s.Faults,
		Journal:       s.Journal,
		TokenKeys:     s.TokenKeys,
		Database:      db,
		Tracking:      s.Tracking,
		// Pick-up points and estimates are the provider's network, not
		// tenant data: package pickup's data set, in memory (decisions §32).
		PickupPoints: pickup.Network{},
		Estimates:    pickup.Network{},

		SupplierShipments: s.SupplierShipments,
	}
}

// ConsoleOption changes a bound of the console's services from its
// default: the wiring's configuration, so a front end and its tests set
// it without reaching into the store.
type ConsoleOption func(*consoleConfig)

type consoleConfig struct {
	countedCodes int64
}

// CountedCodes makes the overview's active codes tile count up to n codes
// (at least 1) instead of view.MaxCountedCodes (decisions §58, §64): a
// test of the bound needs n codes, not a thousand.
func CountedCodes(n int64) ConsoleOption {
	return func(c *consoleConfig) { c.countedCodes = n }
}

// Console returns the services of the web console over db.
func Console(db *sqlstore.DB, opts ...ConsoleOption) console.Services {
	var cfg consoleConfig
	for _, o := range opts {
		o(&cfg)
	}
	s := sqlstore.NewServices(db, pickup.Network{})
	reads := s.Console
	if cfg.countedCodes != 0 {
		reads = reads.WithCodeCountBound(cfg.countedCodes)
	}
	return console.Services{
		Organizations: s.Organizations,
		Credentials:   s.Credentials,
		Orders:        s.Orders,
		Inventory:     s.Inventory,
		Catalogs:      s.Catalogs,
		Shipments:     s.Shipments,
		Controls:      s.Controls,
		Faults:        s.Faults,
		Journal:       s.Journal,
		Shipping:      s.Shipments,
		Codes:         s.Codes,
		Tracking:      s.Tracking,
		PickupPoints:  pickup.Network{},
		Estimates:     pickup.Network{},
		Reads:         reads,
		Operator:      reads,
		Sessions:      s.ConsoleSessions,
		Database:      db,

		SupplierShipments: s.SupplierShipments,
		Dropship:          s.SupplierShipments,
	}
}

// Demo returns the services demo.Seed writes through over db.
func Demo(db *sqlstore.DB) demo.Services {
	s := sqlstore.NewServices(db, pickup.Network{})
	return demo.Services{
		Organizations: s.Organizations,
		Credentials:   s.Credentials,
		Catalogs:      s.Catalogs,
		Shipments:     s.Shipments,
		Inventory:     s.Inventory,
		Orders:        s.Orders,
		Controls:      s.Controls,
		Settings:      s.Settings,

		SupplierShipments: s.SupplierShipments,
	}
}
