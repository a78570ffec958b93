// Package demo seeds a sandbox with a tenant an integrator can use at once:
// in each environment a merchant that is also supplier and retailer, with a
// gateway client, a service account holding every role, and a warehouse
// catalog. The credentials are fixed and well known, so scripts and CI jobs
// can use them without reading the server's output; that is also why
// --demo must never be used on a server that holds real data.
package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
)

// Services are what seeding needs: the root's services it writes through
// and the settings that say whether a store was seeded.
type Services struct {
	Organizations Organizations
	Credentials   Credentials
	Catalogs      Catalogs
	Shipments     Shipments
	Inventory     Inventory
	Orders        Orders
	Controls      Controls
	Settings      Settings
	// SupplierShipments switches the second supplier's automatic
	// supplier on (decisions §34).
	SupplierShipments AutoSupplier
}

// Settings are named values one instance claims for all, so that of
// several instances starting together exactly one seeds.
type Settings interface {
	// ClaimSetting stores name = value unless name is set, and reports
	// whether this call stored it.
	ClaimSetting(ctx context.Context, name, value string) (bool, error)
	// Setting returns the value of name, "" when unset.
	Setting(ctx context.Context, name string) (string, error)
	DeleteSetting(ctx context.Context, name string) error
}

// SnapshotName is the snapshot of each demo organization taken when it was
// seeded: POST /admin/v1/demo/reset restores them, so the demo data is
// back in its seeded state with one call.
const SnapshotName = "demo"

const demoSetting = "demo.seeded"

// Tenant is the demo tenant of one environment.
type Tenant struct {
	Environment  parcelgate.Environment
	BusinessID   string
	ClientID     string
	ClientSecret string
	Username     string
	Password     string
	WarehouseID  string
	// Shipment is the tracking number of a demo shipment with one parcel
	// of each locker size; its parcel IDs are the tracking number's first
	// 17 characters followed by 0S, 0M, 0L and XL.
	Shipment string
	// The retailer a few demo products are also published to.
	RetailerID       string
	RetailerUsername string
	RetailerPassword string
	RetailCatalogID  string
	// A second supplier publishing to the retailer's dropshipping
	// catalog, whose automatic supplier confirms its shipments, so the
	// retailer's demo order splits between two suppliers.
	SupplierID       string
	SupplierUsername string
	SupplierPassword string
}

// Tenants are the demo tenants, production first.
var Tenants = []Tenant{
	{parcelgate.Production, "1234567-1", "demo-client", "demo-client-secret", "demo", "demo-password", "WH1", "JJFI10000000000000001",
		"7777777-4", "demo-retailer", "demo-retailer-password", "SHOP1", "8888888-3", "demo-supplier", "demo-supplier-password"},
	{parcelgate.Test, "1234567-1", "demo-test-client", "demo-test-client-secret", "demo-test", "demo-test-password", "WH1", "JJFI20000000000000001",
		"7777777-4", "demo-test-retailer", "demo-test-retailer-password", "SHOP1", "8888888-3", "demo-test-supplier", "demo-test-supplier-password"},
}

// ErrNotEmpty is returned by Seed for a database that holds organizations
// but no demo: the demo's public credentials never go into a database with
// real data in it.
var ErrNotEmpty = errors.New("--demo seeds only an empty database, and this one already holds organizations; start without --demo, or with a new database")

// Seed creates the demo tenants on an empty database and reports whether
// this call seeded them; a database seeded before is left as it is.
// Instances that start together seed once.
func Seed(ctx context.Context, st Services, versions []string) (seeded bool, err error) {
	if v, err := st.Settings.Setting(ctx, demoSetting); err != nil || v != "" {
		return false, err
	}
	if hasOrgs, err := st.Organizations.HasOrganizations(ctx); err != nil || hasOrgs {
		if err == nil {
			err = ErrNotEmpty
		}
		return false, err
	}
	first, err := st.Settings.ClaimSetting(ctx, demoSetting, "1")
	if err != nil || !first {
		return false, err
	}
	defer func() {
		if err != nil {
			// Let a later start see the failure rather than a demo marked done.
			err = errors.Join(err, st.Settings.DeleteSetting(context.WithoutCancel(ctx), demoSetting))
		}
	}()
	for _, t := range Tenants {
		if err := seedTenant(ctx, st, t, versions); err != nil {
			return false, fmt.Errorf("demo %s: %w", t.Environment, err)
		}
		if err := seedOrder(ctx, st, t); err != nil {
			return false, fmt.Errorf("demo %s: sample order: %w", t.Environment, err)
		}
		if err := seedDropship(ctx, st, t); err != nil {
			return false, fmt.Errorf("demo %s: dropshipping: %w", t.Environment, err)
		}
		for _, bid := range []string{t.BusinessID, t.RetailerID, t.SupplierID} {
			org, err := st.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(t.Environment), bid)
			if err == nil {
				_, err = st.Controls.TakeSnapshot(ctx, parcelgate.OperatorCaller(org), SnapshotName)
			}
			if err != nil {
				return false, fmt.Errorf("demo %s: snapshot of %s: %w", t.Environment, bid, err)
			}
		}
	}
	return true, nil
}

func seedTenant(ctx context.Context, st Services, t Tenant, versions []string) error {
	// The demo's contract numbers are in the provider's form, six digits
	// starting with 6, and are the ones its pages' examples show: the
	// shipping API's custNo 677503, and 612345, the retailer's number a
	// dropshipping shipment's consignment.contractNumber carries.
	org := &parcelgate.Organization{
		Environment: t.Environment, BusinessID: t.BusinessID, Name: "Demo Shop Oy", ContractNumber: "677503",
		Address: &parcelgate.Address{ExternalID: t.BusinessID, Name: "Demo Shop Oy", StreetAddress: "Demokatu 1", PostalCode: "00100", PostOffice: "Helsinki", Country: "FI", Telephone: "+358401234567", Email: "shop@example.com"},
	}
	if err := st.Organizations.CreateOrganization(ctx, parcelgate.EnvironmentOperator(t.Environment), org); err != nil {
		return err
	}
	var grants []parcelgate.VersionGrant
	for _, v := range versions {
		grants = append(grants, parcelgate.VersionGrant{Version: v, Tier: 1})
	}
	if err := st.Credentials.CreateGatewayClient(ctx, parcelgate.EnvironmentOperator(t.Environment), &parcelgate.GatewayClient{ClientID: t.ClientID, Environment: t.Environment, BusinessID: t.BusinessID, Versions: grants}, auth.HashSecret(t.ClientSecret)); err != nil {
		return err
	}
	hash, err := auth.HashPassword(t.Password)
	if err != nil {
		return err
	}
	if err := st.Credentials.CreateServiceAccount(ctx, parcelgate.EnvironmentOperator(t.Environment), &parcelgate.ServiceAccount{Username: t.Username, Environment: t.Environment, BusinessID: t.BusinessID, Roles: parcelgate.Roles}, hash); err != nil {
		return err
	}
	if err := st.Catalogs.CreateCatalog(ctx, parcelgate.EnvironmentOperator(t.Environment), &parcelgate.Catalog{Environment: t.Environment, RetailerID: t.BusinessID, ExternalID: t.WarehouseID, Name: "Demo warehouse", Type: parcelgate.CatalogPosti, SupplierIDs: []string{t.BusinessID}}); err != nil {
		return err
	}
	if err := seedShipments(ctx, st, t, org); err != nil {
		return err
	}
	return seedRetail(ctx, st, t, org)
}

// seedShipments registers the demo shipments: t.Shipment with a parcel of
// each locker size (by package code, by dimensions and by default), and a
// one-parcel shipment, so sending and errand codes can be tried at once.
func seedShipments(ctx context.Context, st Services, t Tenant, org *parcelgate.Organization) error {
	c := &parcelgate.Caller{OrgID: org.ID, BusinessID: org.BusinessID, Environment: t.Environment, Kind: parcelgate.KindGateway}
	cm := func(v float64) *float64 { return &v }
	base := t.Shipment[:len(t.Shipment)-4]
	receiver := parcelgate.Address{Name: "Maija Meikäläinen", StreetAddress: "Testitie 2", PostalCode: "33100", PostOffice: "Tampere", Country: "FI", Telephone: "+358401111111", Email: "maija@example.com"}
	shipments := []*parcelgate.Shipment{
		{TrackingNumber: t.Shipment, ServiceCode: "2103", Sender: *org.Address, Receiver: receiver, Parcels: []parcelgate.Parcel{
			{ParcelID: base + "000S", Weight: cm(0.8)},
			{ParcelID: base + "000M", PackageCode: "M2", Weight: cm(2.5)},
			{ParcelID: base + "000L", Weight: cm(6), Length: cm(55), Width: cm(35), Height: cm(30)},
			{ParcelID: base + "00XL", PackageCode: "XL2", Weight: cm(12), Length: cm(60), Width: cm(36), Height: cm(50)},
		}},
		{TrackingNumber: base + "0002", ServiceCode: "2104", Sender: *org.Address, Receiver: receiver, Parcels: []parcelgate.Parcel{{ParcelID: base + "0002"}}},
	}
	for _, s := range shipments {
		if _, err := st.Shipments.CreateShipment(ctx, c, s); err != nil {
			return err
		}
	}
	return nil
}

// seedRetail creates the demo retailer with its catalog open to the demo
// merchant, and publishes the demo products to the warehouse and to it.
func seedRetail(ctx context.Context, st Services, t Tenant, supplier *parcelgate.Organization) error {
	if err := st.Organizations.CreateOrganization(ctx, parcelgate.EnvironmentOperator(t.Environment), &parcelgate.Organization{Environment: t.Environment, BusinessID: t.RetailerID, Name: "Demo Retail Oy", ContractNumber: "612345"}); err != nil {
		return err
	}
	hash, err := auth.HashPassword(t.RetailerPassword)
	if err != nil {
		return err
	}
	if err := st.Credentials.CreateServiceAccount(ctx, parcelgate.EnvironmentOperator(t.Environment), &parcelgate.ServiceAccount{Username: t.RetailerUsername, Environment: t.Environment, BusinessID: t.RetailerID, Roles: []parcelgate.Role{parcelgate.RoleRetailer}}, hash); err != nil {
		return err
	}
	if err := st.Organizations.CreateOrganization(ctx, parcelgate.EnvironmentOperator(t.Environment), &parcelgate.Organization{Environment: t.Environment, BusinessID: t.SupplierID, Name: "Demo Supplier Oy",
		Address: &parcelgate.Address{ExternalID: t.SupplierID, Name: "Demo Supplier Oy", StreetAddress: "Varastotie 3", PostalCode: "01510", PostOffice: "Vantaa", Country: "FI"}}); err != nil {
		return err
	}
	if hash, err = auth.HashPassword(t.SupplierPassword); err != nil {
		return err
	}
	if err := st.Credentials.CreateServiceAccount(ctx, parcelgate.EnvironmentOperator(t.Environment), &parcelgate.ServiceAccount{Username: t.SupplierUsername, Environment: t.Environment, BusinessID: t.SupplierID, Roles: []parcelgate.Role{parcelgate.RoleSupplier}}, hash); err != nil {
		return err
	}
	if err := st.Catalogs.CreateCatalog(ctx, parcelgate.EnvironmentOperator(t.Environment), &parcelgate.Catalog{Environment: t.Environment, RetailerID: t.RetailerID, ExternalID: t.RetailCatalogID, Name: "Demo web shop", Type: parcelgate.CatalogDropship, SupplierIDs: []string{t.BusinessID, t.SupplierID}}); err != nil {
		return err
	}
	products := []struct {
		id, ean, name, fi string
		qty               int64
		price             string
	}{
		{"TSHIRT-M", "6400000000017", "T-shirt, size M", "T-paita, koko M", 120, "7.90"},
		{"MUG", "6400000000024", "Coffee mug", "Kahvimuki", 48, "3.50"},
		{"LAMP", "6400000000031", "Desk lamp", "Pöytävalaisin", 15, "19.00"},
		{"POSTER", "6400000000048", "Poster 50x70", "Juliste 50x70", 200, "4.20"},
	}
	var entries []parcelgate.InventoryInput
	for _, p := range products {
		ext := t.BusinessID + "-" + p.id
		doc, err := json.Marshal(map[string]any{
			"externalId": ext, "eanCode": p.ean, "unitOfMeasure": "PCS", "isFragile": p.id == "MUG" || p.id == "LAMP",
			"measurements": map[string]any{"weight": 0.4, "length": 30, "width": 20, "height": 5},
			"descriptions": map[string]any{"en": map[string]any{"name": p.name}, "fi": map[string]any{"name": p.fi}},
		})
		if err != nil {
			return err
		}
		eur := "EUR"
		entries = append(entries, parcelgate.InventoryInput{
			// The descriptions name it, as PutInventory requires.
			Product: &parcelgate.Product{ExternalID: ext, EANCode: p.ean, Document: doc}, Named: true,
			Balances: []parcelgate.BalanceInput{
				{ProductExternalID: ext, RetailerID: t.BusinessID, CatalogExternalID: t.WarehouseID, Quantity: &p.qty, WholesalePrice: &p.price, Currency: &eur},
				{ProductExternalID: ext, RetailerID: t.RetailerID, CatalogExternalID: t.RetailCatalogID, Quantity: &p.qty, WholesalePrice: &p.price, Currency: &eur},
			},
		})
	}
	c := &parcelgate.Caller{Subject: "demo", OrgID: supplier.ID, BusinessID: supplier.BusinessID, Environment: t.Environment, Kind: parcelgate.KindEcom, Roles: parcelgate.Roles}
	failed, err := st.Inventory.PutInventory(ctx, c, entries)
	for i, f := range failed {
		return fmt.Errorf("demo product %s: %w", entries[i].Product.ExternalID, f)
	}
	return err
}

// SampleDropshipOrder is the externalId of the demo retailer's order from
// its dropshipping catalog, split between the demo merchant and the second
// supplier.
const SampleDropshipOrder = "7777777-4-DROP1"

// seedDropship publishes the second supplier's products to the retailer's
// dropshipping catalog, switches its automatic supplier on (30 s), and
// places the retailer's sample order of a product of each supplier: two
// shipments, one the automatic supplier confirms, one the demo merchant
// confirms with PATCH /ecommerce/v3/shipments/{id}.
func seedDropship(ctx context.Context, st Services, t Tenant) error {
	supplier, err := st.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(t.Environment), t.SupplierID)
	if err != nil {
		return err
	}
	qty, price, eur := int64(60), "12.50", "EUR"
	ext := t.SupplierID + "-CANDLE"
	doc, err := json.Marshal(map[string]any{"externalId": ext, "eanCode": "6400000000055", "unitOfMeasure": "PCS", "isFragile": true,
		"measurements": map[string]any{"weight": 0.3, "length": 10, "width": 10, "height": 15},
		"descriptions": map[string]any{"en": map[string]any{"name": "Scented candle"}, "fi": map[string]any{"name": "Tuoksukynttilä"}}})
	if err != nil {
		return err
	}
	sc := &parcelgate.Caller{Subject: t.SupplierUsername, OrgID: supplier.ID, BusinessID: supplier.BusinessID, Environment: t.Environment, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleSupplier}}
	failed, err := st.Inventory.PutInventory(ctx, sc, []parcelgate.InventoryInput{{Product: &parcelgate.Product{ExternalID: ext, EANCode: "6400000000055", Document: doc}, Named: true,
		Balances: []parcelgate.BalanceInput{{ProductExternalID: ext, RetailerID: t.RetailerID, CatalogExternalID: t.RetailCatalogID, Quantity: &qty, WholesalePrice: &price, Currency: &eur}}}})
	for _, f := range failed {
		return fmt.Errorf("demo product %s: %w", ext, f)
	}
	if err != nil {
		return err
	}
	if _, err := st.SupplierShipments.SetAutoSupplier(ctx, parcelgate.OperatorCaller(supplier), parcelgate.AutoSupplier{Enabled: true, DelaySeconds: 30}); err != nil {
		return err
	}
	retailer, err := st.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(t.Environment), t.RetailerID)
	if err != nil {
		return err
	}
	req := &parcelgate.OrderRequest{
		ExternalID: SampleDropshipOrder,
		References: []parcelgate.OrderReference{{Name: parcelgate.RefSO, Value: "DROP-1"}},
		DeliveryAddress: parcelgate.Address{Name: "Matti Meikäläinen", StreetAddress: "Kotikatu 4", PostalCode: "00200",
			PostOffice: "Helsinki", Country: "FI", Telephone: "+358401234568", Email: "matti@example.com"},
		ServiceCode: "2104",
		Rows: []parcelgate.OrderRowRequest{
			{ExternalProductID: t.BusinessID + "-MUG", ExternalWarehouseID: t.RetailCatalogID, Quantity: 2},
			{ExternalProductID: ext, ExternalWarehouseID: t.RetailCatalogID, Quantity: 1},
		},
		AutoSubmit: true,
	}
	rc := &parcelgate.Caller{Subject: t.RetailerUsername, OrgID: retailer.ID, BusinessID: retailer.BusinessID, Environment: t.Environment, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleRetailer}}
	o, err := st.Orders.CreateOrder(ctx, rc, req)
	if err != nil {
		return err
	}
	if o.Status.Value != parcelgate.OrderCreated {
		return fmt.Errorf("%s is %s: %s", o.ExternalID, o.Status.Value, o.Status.Reason)
	}
	return nil
}

// SampleOrder is the externalId of the demo's sample sales order.
const SampleOrder = "1234567-1-DEMO1"

// seedOrder places a sample sales order of the demo merchant: two demo
// products from its warehouse, so that an integrator sees at once an order
// allocate stock and, under --fulfillment auto, move to Delivered.
func seedOrder(ctx context.Context, st Services, t Tenant) error {
	org, err := st.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(t.Environment), t.BusinessID)
	if err != nil {
		return err
	}
	req := &parcelgate.OrderRequest{
		ExternalID: SampleOrder,
		References: []parcelgate.OrderReference{{Name: parcelgate.RefSO, Value: "DEMO-1"}},
		DeliveryAddress: parcelgate.Address{Name: "Maija Meikäläinen", StreetAddress: "Kotikatu 2", PostalCode: "00200",
			PostOffice: "Helsinki", Country: "FI", Telephone: "+358401234567", Email: "maija@example.com"},
		ServiceCode: "2103",
		Rows: []parcelgate.OrderRowRequest{
			{ExternalProductID: t.BusinessID + "-TSHIRT-M", ExternalWarehouseID: t.WarehouseID, Quantity: 2},
			{ExternalProductID: t.BusinessID + "-MUG", ExternalWarehouseID: t.WarehouseID, Quantity: 1},
		},
		AutoSubmit: true,
	}
	c := &parcelgate.Caller{Subject: t.Username, OrgID: org.ID, BusinessID: org.BusinessID, Environment: t.Environment, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleMerchant}}
	o, err := st.Orders.CreateOrder(ctx, c, req)
	if err != nil {
		return err
	}
	if o.Status.Value != parcelgate.OrderCreated {
		return fmt.Errorf("%s is %s: %s", o.ExternalID, o.Status.Value, o.Status.Reason)
	}
	return nil
}

// PrintWelcome writes the demo credentials and a first request to try.
// seeded says whether this start seeded the demo (Seed's answer): only then
// is the sample order new.
//
// The banner goes out in one Write, so a log line from the starting server
// cannot land inside it and a reader of the output (a test, a supervisor's
// log) that sees its first line sees all of it.
func PrintWelcome(out io.Writer, baseURL string, seeded bool) {
	w := new(bytes.Buffer)
	fmt.Fprintf(w, "\nparcelgate demo sandbox at %s (never use --demo with real data: these credentials are public)\n\n", baseURL)
	for _, t := range Tenants {
		fmt.Fprintf(w, "  %-10s business ID %s\n", t.Environment, t.BusinessID)
		fmt.Fprintf(w, "    gateway client   client_id=%s client_secret=%s\n", t.ClientID, t.ClientSecret)
		fmt.Fprintf(w, "    service account  username=%s password=%s (roles merchant, supplier, retailer)\n", t.Username, t.Password)
		fmt.Fprintf(w, "    warehouse        %s (demo products published; also to retailer %s's catalog %s)\n", t.WarehouseID, t.RetailerID, t.RetailCatalogID)
		fmt.Fprintf(w, "    retailer account username=%s password=%s (role retailer)\n", t.RetailerUsername, t.RetailerPassword)
		fmt.Fprintf(w, "    second supplier  %s username=%s password=%s (role supplier; its automatic supplier confirms after 30 s)\n", t.SupplierID, t.SupplierUsername, t.SupplierPassword)
	}
	t := Tenants[0]
	// The commands set $GATEWAY_TOKEN and $ECOM_TOKEN, the names the
	// README's examples use, for the later ones; sed rather than jq, so
	// they run on a bare machine.
	const pick = `| sed 's/.*"access_token":"\([^"]*\)".*/\1/'`
	fmt.Fprintf(w, "\nTry (in a shell; each line sets or uses $GATEWAY_TOKEN, the gateway token, and $ECOM_TOKEN, the ecom token):\n")
	fmt.Fprintf(w, "  GATEWAY_TOKEN=$(curl -s %s/api/v1/token -d grant_type=client_credentials -d client_id=%s -d client_secret=%s %s)\n", baseURL, t.ClientID, t.ClientSecret, pick)
	fmt.Fprintf(w, "  ECOM_TOKEN=$(curl -s -u %s:%s %s/auth/token %s)\n", t.Username, t.Password, baseURL, pick)
	fmt.Fprintf(w, "\nDemo shipment %s (parcels of each locker size) — with the gateway token:\n", t.Shipment)
	fmt.Fprintf(w, "  curl -s %s/%s/labelless -H \"Authorization: Bearer $GATEWAY_TOKEN\" -H 'Content-Type: application/json' -d '{\"searchCriteria\":{\"trackingNumber\":\"%s\"}}'\n", baseURL, parcelgate.DefaultVersions[0], t.Shipment)
	fmt.Fprintf(w, "  curl -s %s/parcel/v1/errandCodes/%s -H \"Authorization: Bearer $GATEWAY_TOKEN\"\n", baseURL, t.Shipment[:len(t.Shipment)-4]+"000S")
	fmt.Fprintf(w, "\nPick-up points (the national data set; 9-digit IDs) and a delivery estimate — with the gateway token:\n")
	fmt.Fprintf(w, "  curl -s %s/%s/pickuppoints -H \"Authorization: Bearer $GATEWAY_TOKEN\" -H 'Content-Type: application/json' -d '{\"searchCriteria\":{\"location\":{\"postcode\":\"00100\",\"countryCode\":\"FI\"}},\"limit\":5}'\n", baseURL, parcelgate.DefaultVersions[0])
	fmt.Fprintf(w, "  curl -s %s/%s/pickuppoints/FI/001003200 -H \"Authorization: Bearer $GATEWAY_TOKEN\" -H 'Accept-Language: sv'\n", baseURL, parcelgate.DefaultVersions[0])
	fmt.Fprintf(w, "  curl -s %s/%s/estimate -H \"Authorization: Bearer $GATEWAY_TOKEN\" -H 'Content-Type: application/json' -d '{\"estimate\":{\"time\":\"2026-03-13T10:00:00Z\",\"origin\":{\"countryCode\":\"FI\",\"postcode\":\"20100\"},\"destination\":{\"countryCode\":\"FI\",\"pupCode\":\"001003200\"},\"product\":{\"code\":\"2103\"}}}'\n", baseURL, parcelgate.DefaultVersions[0])
	if seeded {
		fmt.Fprintf(w, "\nDemo sales order %s: Created now, Submitted and Delivered by the warehouse engine within seconds — with the ecom token:\n", SampleOrder)
	} else {
		fmt.Fprintf(w, "\nDemo sales order %s, created when this database was first seeded (its status is where the warehouse engine or you left it) — with the ecom token:\n", SampleOrder)
	}
	fmt.Fprintf(w, "  curl -s %s/ecommerce/v3/orders/%s -H \"Authorization: Bearer $ECOM_TOKEN\"\n", baseURL, SampleOrder)
	fmt.Fprintf(w, "\nDemo dropshipping order %s of retailer %s, split between two suppliers — the merchant's shipment, with the ecom token (the README's Dropshipping section walks the whole flow):\n", SampleDropshipOrder, t.RetailerID)
	fmt.Fprintf(w, "  curl -s '%s/ecommerce/v3/shipments?status=Created' -H \"Authorization: Bearer $ECOM_TOKEN\"\n\n", baseURL)
	out.Write(w.Bytes())
}
