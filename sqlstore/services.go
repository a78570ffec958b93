package sqlstore

// The services of the store, one per entity, each over the one *DB: a
// service holds every method of its entity, and a front end is handed only
// the services (through the root's interfaces) it uses. A service keeps no
// state of its own; what is shared (connections, the clock, the fast path's
// caches) lives in *DB, so a service is as cheap to make as a pointer. The
// shipment service is also handed the pick-up point network (reference
// data the wiring gives it), to decide the shipping API's points.

import "github.com/parcelgate/parcelgate"

// Services are every service of the store over one database, for the
// wiring: cmd/parcelgate and the test harnesses hand each front end the
// fields it takes.
type Services struct {
	Orders          *OrderService
	Inventory       *InventoryService
	Catalogs        *CatalogService
	Codes           *CodeService
	Shipments       *ShipmentService
	Credentials     *CredentialService
	TokenKeys       *TokenKeyService
	Organizations   *OrganizationService
	Settings        *SettingService
	Controls        *ControlService
	Faults          *FaultService
	Journal         *JournalService
	Console         *ConsoleService
	ConsoleSessions *ConsoleSessionService
	Tracking        *TrackingService
	// SupplierShipments are dropshipping's shipments (decisions §34).
	SupplierShipments *DropshipService
	// Tallies are the kept counts (decisions §52).
	Tallies *TallyService
}

// NewServices returns every service over db; points is the pick-up point
// network (package pickup's, through the root's interface).
func NewServices(db *DB, points parcelgate.PickupPointLookup) *Services {
	return &Services{
		Orders:            NewOrderService(db).UsePickupPoints(points),
		Inventory:         NewInventoryService(db),
		Catalogs:          NewCatalogService(db),
		Codes:             NewCodeService(db),
		Shipments:         NewShipmentService(db, points),
		Credentials:       NewCredentialService(db),
		TokenKeys:         NewTokenKeyService(db),
		Organizations:     NewOrganizationService(db),
		Settings:          NewSettingService(db),
		Controls:          NewControlService(db),
		Faults:            NewFaultService(db),
		Journal:           NewJournalService(db),
		Console:           NewConsoleService(db),
		ConsoleSessions:   NewConsoleSessionService(db),
		Tracking:          NewTrackingService(db),
		SupplierShipments: NewDropshipService(db),
		Tallies:           NewTallyService(db),
	}
}
