package sqlstore

// The services of the store, one per entity, each over the one *DB: a
// service holds every method of its entity, and a front end is handed only
// the services (through the root's interfaces) it uses. A service keeps no
// state of its own; what is shared (connections, the clock, the fast path's
// caches) lives in *DB, so a service is as cheap to make as a pointer.

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
	Sandbox         *SandboxService
	Faults          *FaultService
	Journal         *JournalService
	Console         *ConsoleService
	ConsoleSessions *ConsoleSessionService
}

// NewServices returns every service over db.
func NewServices(db *DB) *Services {
	return &Services{
		Orders:          NewOrderService(db),
		Inventory:       NewInventoryService(db),
		Catalogs:        NewCatalogService(db),
		Codes:           NewCodeService(db),
		Shipments:       NewShipmentService(db),
		Credentials:     NewCredentialService(db),
		TokenKeys:       NewTokenKeyService(db),
		Organizations:   NewOrganizationService(db),
		Settings:        NewSettingService(db),
		Sandbox:         NewSandboxService(db),
		Faults:          NewFaultService(db),
		Journal:         NewJournalService(db),
		Console:         NewConsoleService(db),
		ConsoleSessions: NewConsoleSessionService(db),
	}
}

// OrderService keeps the warehouse orders of spec 4.3: their creation, re-sends, status moves, comments, history and reads. Each method acts for its caller and is scoped to the caller's organization and environment.
type OrderService struct{ db *DB }

// NewOrderService returns the OrderService over db.
func NewOrderService(db *DB) *OrderService { return &OrderService{db: db} }

// InventoryService keeps a supplier's products and their balances in the retailers' catalogs (spec 3, spec 4.4): PUT /inventory, balances, end of sale and the ID migration.
type InventoryService struct{ db *DB }

// NewInventoryService returns the InventoryService over db.
func NewInventoryService(db *DB) *InventoryService { return &InventoryService{db: db} }

// CatalogService keeps the retailers' catalogs and the reads a retailer makes of them (spec 4.4 GET catalogs, balances, products).
type CatalogService struct{ db *DB }

// NewCatalogService returns the CatalogService over db.
func NewCatalogService(db *DB) *CatalogService { return &CatalogService{db: db} }

// CodeService keeps sending codes and errand codes (spec 4.1, 4.2): their allocation from the code space, reuse and release (decisions §5).
type CodeService struct{ db *DB }

// NewCodeService returns the CodeService over db.
func NewCodeService(db *DB) *CodeService { return &CodeService{db: db} }

// ShipmentService keeps the gateway's shipment data: registration, reads and the operator's delivery.
type ShipmentService struct{ db *DB }

// NewShipmentService returns the ShipmentService over db.
func NewShipmentService(db *DB) *ShipmentService { return &ShipmentService{db: db} }

// CredentialService keeps gateway clients and ecom service accounts: creation, authentication with its lockout, revocation.
type CredentialService struct{ db *DB }

// NewCredentialService returns the CredentialService over db.
func NewCredentialService(db *DB) *CredentialService { return &CredentialService{db: db} }

// TokenKeyService keeps the keys tokens are signed with, shared by every instance.
type TokenKeyService struct{ db *DB }

// NewTokenKeyService returns the TokenKeyService over db.
func NewTokenKeyService(db *DB) *TokenKeyService { return &TokenKeyService{db: db} }

// OrganizationService keeps the organizations (tenants) of each environment.
type OrganizationService struct{ db *DB }

// NewOrganizationService returns the OrganizationService over db.
func NewOrganizationService(db *DB) *OrganizationService { return &OrganizationService{db: db} }

// SettingService keeps the small named settings one instance claims for all (the demo's seeding).
type SettingService struct{ db *DB }

// NewSettingService returns the SettingService over db.
func NewSettingService(db *DB) *SettingService { return &SettingService{db: db} }

// SandboxService keeps the sandbox controls' storage: the shared clock, resets and snapshots.
type SandboxService struct{ db *DB }

// NewSandboxService returns the SandboxService over db.
func NewSandboxService(db *DB) *SandboxService { return &SandboxService{db: db} }

// FaultService keeps the injected faults every instance applies to the APIs.
type FaultService struct{ db *DB }

// NewFaultService returns the FaultService over db.
func NewFaultService(db *DB) *FaultService { return &FaultService{db: db} }

// JournalService keeps the request journal.
type JournalService struct{ db *DB }

// NewJournalService returns the JournalService over db.
func NewJournalService(db *DB) *JournalService { return &JournalService{db: db} }

// ConsoleService keeps the web console's own reads of one tenant's data and the operator's overview.
type ConsoleService struct{ db *DB }

// NewConsoleService returns the ConsoleService over db.
func NewConsoleService(db *DB) *ConsoleService { return &ConsoleService{db: db} }

// ConsoleSessionService keeps the web console's sessions.
type ConsoleSessionService struct{ db *DB }

// NewConsoleSessionService returns the ConsoleSessionService over db.
func NewConsoleSessionService(db *DB) *ConsoleSessionService { return &ConsoleSessionService{db: db} }
