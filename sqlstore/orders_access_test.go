package sqlstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/internal/wiring"
	"github.com/parcelgate/parcelgate/pickup"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// The services of orders and parcels ask Caller.May themselves and keep
// their tenants apart (decisions §31, interface §5.1, §5.2): one access
// table per service, run by checkAccess on both engines.

func ids(orders []*parcelgate.Order) string {
	var s []string
	for _, o := range orders {
		s = append(s, o.ID)
	}
	return strings.Join(s, ",")
}

func TestOrderServiceAsksMayAndKeepsTenants(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		orders := sqlstore.NewOrderService(db)
		a := testOrg(t, db, parcelgate.Production, "1234567-1")
		b := testOrg(t, db, parcelgate.Production, "7654321-2")
		o, err := orders.CreateOrder(ctx, a, testOrderRequest(t, a, "A1"))
		if err != nil {
			t.Fatal(err)
		}
		// interface §5.2: orders are the merchant's and the retailer's; a
		// gateway token and a supplier's account may not touch them.
		notBuyers := []*parcelgate.Caller{gatewayClientOf(orgOf(a)), accountOf(orgOf(a), parcelgate.RoleSupplier)}
		enc := parcelgate.OrderEncoding{Name: "id", Encode: func(o *parcelgate.Order) ([]byte, error) { return []byte(o.ID), nil }}
		order := func(o *parcelgate.Order, err error) (string, error) {
			if err != nil {
				return "", err
			}
			return o.ID, nil
		}
		// The order a caller would send (A's when there is no caller).
		req := func(c *parcelgate.Caller, id string) *parcelgate.OrderRequest {
			if c == nil {
				c = a
			}
			return testOrderRequest(t, c, id)
		}
		checkAccess(t, writtenIn(t, db), o.ID, "ZZZZZZZZZZZZZZZZ", []accessCase{
			{name: "CreateOrder", denied: notBuyers, owner: a,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					return order(orders.CreateOrder(ctx, c, req(c, "A2")))
				}},
			{name: "FindOrder", denied: notBuyers, other: b, crossCode: parcelgate.ENOTFOUND, owner: a, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) { return order(orders.FindOrder(ctx, c, id)) }},
			{name: "FindOrderAnswer", denied: notBuyers, other: b, crossCode: parcelgate.ENOTFOUND, owner: a, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					body, err := orders.FindOrderAnswer(ctx, c, id, enc)
					return string(body), err
				}},
			{name: "ListOrders", denied: notBuyers, other: b, listing: true, owner: a, ownerSees: true,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					p, err := orders.ListOrders(ctx, c, parcelgate.OrderQuery{}, parcelgate.PageRequest{Size: 100})
					return ids(p.Items), err
				}},
			{name: "ListOrderAnswers", denied: notBuyers, other: b, listing: true, owner: a, ownerSees: true,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					p, err := orders.ListOrderAnswers(ctx, c, parcelgate.OrderQuery{}, parcelgate.PageRequest{Size: 100}, enc)
					var s []string
					for _, body := range p.Items {
						s = append(s, string(body))
					}
					return strings.Join(s, ","), err
				}},
			{name: "OrderHistory", denied: notBuyers, other: b, owner: a,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					h, err := orders.OrderHistory(ctx, c, id)
					return fmt.Sprint(len(h), " events"), err
				}},
			{name: "UpdateOrder", denied: notBuyers, other: b, crossCode: parcelgate.ENOTFOUND, owner: a,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return order(orders.UpdateOrder(ctx, c, id, req(c, "")))
				}},
			{name: "AddOrderComment", denied: notBuyers, other: b, crossCode: parcelgate.ENOTFOUND, owner: a,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					cm, _, err := orders.AddOrderComment(ctx, c, id, parcelgate.OrderComment{ExternalID: "C1", Value: "Leave at the door", Type: "pickingNote"})
					if err != nil {
						return "", err
					}
					return cm.ExternalID, nil
				}},
			{name: "DeleteOrderComment", denied: notBuyers, other: b, crossCode: parcelgate.ENOTFOUND, owner: a,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return "", orders.DeleteOrderComment(ctx, c, id, "C1")
				}},
			{name: "SetOrderPreferences", denied: notBuyers, other: b, crossCode: parcelgate.ENOTFOUND, owner: a,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return order(orders.SetOrderPreferences(ctx, c, id, parcelgate.OrderPreferences{AutoSubmit: false}))
				}},
			{name: "ReopenOrder", denied: notBuyers, other: b, crossCode: parcelgate.ENOTFOUND, owner: a,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return order(orders.ReopenOrder(ctx, c, id, nil))
				}},
			// A1 is in Error (nothing is stocked): past the access
			// checks, its state refuses the cancel.
			{name: "CancelOrder", denied: notBuyers, other: b, crossCode: parcelgate.ENOTFOUND, owner: a, ownerCode: parcelgate.ECONFLICT,
				call: func(c *parcelgate.Caller, id string) (string, error) { return order(orders.CancelOrder(ctx, c, id)) }},
			// decisions §31: the warehouse's move is the operator's, in the
			// order's organization; the merchant itself may not.
			{name: "SetOrderStatus", denied: append([]*parcelgate.Caller{a}, notBuyers...), other: parcelgate.OperatorCaller(orgOf(b)), crossCode: parcelgate.ENOTFOUND, owner: parcelgate.OperatorCaller(orgOf(a)), ownerCode: parcelgate.ECONFLICT,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return order(orders.SetOrderStatus(ctx, c, id, parcelgate.OrderCancelled, ""))
				}},
		})
	})
}

// testShipment is a shipment of two parcels, for the gateway's
// CreateShipment (tracking number given) or the shipping API (parcel
// numbers given, no tracking number).
func testShipment(tn string, parcelIDs ...string) *parcelgate.Shipment {
	w := 1.5
	sh := &parcelgate.Shipment{TrackingNumber: tn, ServiceCode: "2103",
		Sender:   parcelgate.Address{Name: "Demo Shop Oy", StreetAddress: "Kauppakatu 1", PostalCode: "00100", PostOffice: "Helsinki", Country: "FI"},
		Receiver: parcelgate.Address{Name: "Matti Meikäläinen", StreetAddress: "Hämeenkatu 5", PostalCode: "33100", PostOffice: "Tampere", Country: "FI"}}
	for _, id := range parcelIDs {
		sh.Parcels = append(sh.Parcels, parcelgate.Parcel{ParcelID: id, Weight: &w, PackageCode: "PKT"})
	}
	return sh
}

func TestCodeServiceAsksMayAndKeepsTenants(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		codes := sqlstore.NewCodeService(db)
		a := gatewayClientOf(orgOf(testOrg(t, db, parcelgate.Production, "1234567-1")))
		b := gatewayClientOf(orgOf(testOrg(t, db, parcelgate.Production, "7654321-2")))
		const tn, missing = "JJFI10000000000000001", "JJFI10000000000000099"
		sh := testShipment(tn, "JJFI100000000000000P1", "JJFI100000000000000P2")
		if _, err := sqlstore.NewShipmentService(db, pickup.Network{}).CreateShipment(ctx, a, sh); err != nil {
			t.Fatal(err)
		}
		sc, err := codes.CreateSendingCode(ctx, a, tn, false)
		if err != nil {
			t.Fatal(err)
		}
		// interface §5.1: codes are the gateway client's; a service
		// account (here the organization's merchant) may not make them. It
		// may read its organization's (decisions §40: the console).
		merchant := accountOf(orgOf(a), parcelgate.RoleMerchant)
		code := func(sc *parcelgate.SendingCode, err error) (string, error) {
			if err != nil {
				return "", err
			}
			return sc.TrackingNumber + " " + sc.SendingCode, nil
		}
		checkAccess(t, writtenIn(t, db), tn, missing, []accessCase{
			// Refused before a code is drawn for a new tracking number.
			{name: "CreateSendingCode/new", denied: []*parcelgate.Caller{merchant}, owner: a,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					return code(codes.CreateSendingCode(ctx, c, "JJFI10000000000000002", true))
				}},
			{name: "CreateSendingCode", denied: []*parcelgate.Caller{merchant}, other: b, crossCode: parcelgate.ENOTFOUND, owner: a, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return code(codes.CreateSendingCode(ctx, c, id, false))
				}},
			{name: "FindSendingCode", other: b, crossCode: parcelgate.ENOTFOUND, owner: a, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) { return code(codes.FindSendingCode(ctx, c, id)) }},
			{name: "ActiveCodes", denied: []*parcelgate.Caller{merchant, a}, owner: parcelgate.EnvironmentOperator(parcelgate.Production),
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					n, err := codes.ActiveCodes(ctx, c)
					return fmt.Sprint(n), err
				}},
		})
		// The second parcel holds no errand code yet: a refused call must
		// not give it one; another tenant's parcel is "not found", as a
		// missing parcel is.
		checkAccess(t, writtenIn(t, db), "JJFI100000000000000P2", "JJFI100000000000000P9", []accessCase{
			{name: "ErrandCodes", denied: []*parcelgate.Caller{merchant}, other: b, owner: a,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					res, err := codes.ErrandCodes(ctx, c, []string{id})
					return fmt.Sprint(res), err
				}},
		})
		checkAccess(t, writtenIn(t, db), sc.SendingCode, "FFFFFF", []accessCase{
			{name: "FindSendingCodeByCode", other: b, crossCode: parcelgate.ENOTFOUND, owner: a, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return code(codes.FindSendingCodeByCode(ctx, c, id))
				}},
		})
	})
}

func TestShipmentServiceAsksMayAndKeepsTenants(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		shipments := sqlstore.NewShipmentService(db, pickup.Network{})
		a := gatewayClientOf(orgOf(testOrg(t, db, parcelgate.Production, "1234567-1")))
		b := gatewayClientOf(orgOf(testOrg(t, db, parcelgate.Production, "7654321-2")))
		const tn = "JJFI10000000000000001"
		if _, err := shipments.CreateShipment(ctx, a, testShipment(tn, "JJFI100000000000000P1")); err != nil {
			t.Fatal(err)
		}
		merchant := accountOf(orgOf(a), parcelgate.RoleMerchant)
		shipment := func(sh *parcelgate.Shipment, err error) (string, error) {
			if err != nil {
				return "", err
			}
			return sh.TrackingNumber + " " + string(sh.Status), nil
		}
		checkAccess(t, writtenIn(t, db), tn, "JJFI10000000000000099", []accessCase{
			{name: "CreateShipment", denied: []*parcelgate.Caller{merchant}, owner: a,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					_, err := shipments.CreateShipment(ctx, c, testShipment("JJFI10000000000000002", "JJFI100000000000000P2"))
					return "", err
				}},
			// decisions §40: reading is also any service account's of the
			// organization (the console's parcels area).
			{name: "FindShipment", other: b, crossCode: parcelgate.ENOTFOUND, owner: a, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return shipment(shipments.FindShipment(ctx, c, id))
				}},
			// decisions §31: delivery is the operator's, in the shipment's
			// organization; the gateway client itself may not.
			{name: "DeliverShipment", denied: []*parcelgate.Caller{a, merchant}, other: parcelgate.OperatorCaller(orgOf(b)), crossCode: parcelgate.ENOTFOUND, owner: parcelgate.OperatorCaller(orgOf(a)), ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return shipment(shipments.DeliverShipment(ctx, c, id))
				}},
		})
	})
}

// The shipping API's calls of the shipment service (decisions §29).
func TestShippingOrdersAskMayAndKeepTenants(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		shipping := sqlstore.NewShipmentService(db, pickup.Network{})
		a := gatewayClientOf(orgOf(testOrg(t, db, parcelgate.Production, "1234567-1")))
		b := gatewayClientOf(orgOf(testOrg(t, db, parcelgate.Production, "7654321-2")))
		// The numbers a caller gives are replaced: the service numbers the
		// parcels (domestic 2103: JJFI and 17 digits), the shipment by its
		// first parcel, and decides its pick-up point (the nearest to
		// 33100, through the finder).
		sh := testShipment("", "JJFI100000000000000P1", "JJFI100000000000000P2")
		if err := shipping.CreateShippingOrder(ctx, a, sh); err != nil {
			t.Fatal(err)
		}
		first, second := sh.Parcels[0].ParcelID, sh.Parcels[1].ParcelID
		if !strings.HasPrefix(first, "JJFI") || len(first) != 21 || first == "JJFI100000000000000P1" || sh.TrackingNumber != first || second == first || sh.PickupPointID == "" {
			t.Fatalf("shipping order numbered %s (parcels %s, %s), point %q; want the service's JJFI numbers, the first parcel's, and the nearest point", sh.TrackingNumber, first, second, sh.PickupPointID)
		}
		if _, err := sqlstore.NewCodeService(db).ErrandCodes(ctx, a, []string{second}); err != nil {
			t.Fatal(err)
		}
		merchant := accountOf(orgOf(a), parcelgate.RoleMerchant)
		checkAccess(t, writtenIn(t, db), second, "JJFI100000000000000P9", []accessCase{
			{name: "CreateShippingOrder", denied: []*parcelgate.Caller{merchant}, owner: a,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					return "", shipping.CreateShippingOrder(ctx, c, testShipment("", ""))
				}},
			// By the number of its second parcel; the organization's
			// service accounts may read its shipments (decisions §40).
			{name: "FindShippingOrder", other: b, crossCode: parcelgate.ENOTFOUND, owner: a,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					sh, err := shipping.FindShippingOrder(ctx, c, id)
					if err != nil {
						return "", err
					}
					return sh.TrackingNumber, nil
				}},
		})
		// Another tenant's shipment holds no codes for the caller, like a
		// missing one; its owner's holds the errand code of its second
		// parcel.
		checkAccess(t, writtenIn(t, db), sh.TrackingNumber, "JJFI100000000000000P9", []accessCase{
			{name: "ShipmentCodes", other: b, owner: a,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					codes, err := shipping.ShipmentCodes(ctx, c, id)
					return fmt.Sprint(len(codes.ErrandCodes), " errand codes"), err
				}},
		})
	})
}

func TestTrackingServiceAsksMayAndKeepsTenants(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		tracking := sqlstore.NewTrackingService(db)
		a := testOrg(t, db, parcelgate.Production, "1234567-1")
		b := testOrg(t, db, parcelgate.Production, "7654321-2")
		const tn, parcel = "JJFI10000000000000001", "JJFI100000000000000P1"
		if _, err := sqlstore.NewShipmentService(db, pickup.Network{}).CreateShipment(ctx, gatewayClientOf(orgOf(a)), testShipment(tn, parcel)); err != nil {
			t.Fatal(err)
		}
		// decisions §30: any service account tracks parcels; a gateway
		// token does not.
		gw := gatewayClientOf(orgOf(a))
		tracked := func(ps []parcelgate.TrackedParcel, err error) (string, error) {
			var s []string
			for _, p := range ps {
				s = append(s, fmt.Sprintf("%s own=%v moves=%d", p.Parcel.ParcelID, p.Own, len(p.Moves)))
			}
			return strings.Join(s, ","), err
		}
		since, until := time.Now().Add(-24*time.Hour), time.Now().Add(24*time.Hour)
		checkAccess(t, writtenIn(t, db), parcel, "JJFI100000000000000P9", []accessCase{
			// A lookup by number finds any organization's parcel, in its
			// public view (Own false): the check is of the caller's right.
			{name: "TrackNumbers", denied: []*parcelgate.Caller{gw}, owner: a, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return tracked(tracking.TrackNumbers(ctx, c, []string{id}))
				}},
			{name: "FindParcels", denied: []*parcelgate.Caller{gw}, other: b, owner: a, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return tracked(tracking.FindParcels(ctx, c, []string{id}, parcelgate.FindAll, parcelgate.PageFrom(0, 10)))
				}},
			{name: "ParcelsCreatedBetween", denied: []*parcelgate.Caller{gw}, other: b, listing: true, owner: a, ownerSees: true,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					return tracked(tracking.ParcelsCreatedBetween(ctx, c, since, until, parcelgate.PageFrom(0, 10)))
				}},
			// decisions §30: moving a parcel is the operator's, in the
			// parcel's organization; the tenant itself may not.
			{name: "MoveParcel", denied: []*parcelgate.Caller{a, gw}, other: parcelgate.OperatorCaller(orgOf(b)), crossCode: parcelgate.ENOTFOUND, owner: parcelgate.OperatorCaller(orgOf(a)), ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					p, err := tracking.MoveParcel(ctx, c, id, parcelgate.StatusInTransport)
					if err != nil {
						return "", err
					}
					return tracked([]parcelgate.TrackedParcel{*p}, nil)
				}},
		})
		// Another tenant sees the parcel by its number, never as its own.
		if got, err := tracked(tracking.TrackNumbers(ctx, b, []string{parcel})); err != nil || got != parcel+" own=false moves=1" {
			t.Fatalf("another tenant's lookup: %q %v", got, err)
		}
	})
}

func TestDropshipServiceAsksMayAndKeepsTenants(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		// The demo's retailer places a dropshipping order split between
		// two suppliers (its merchant and a second supplier): a shipment
		// of each.
		if _, err := demo.Seed(ctx, wiring.Demo(db), parcelgate.DefaultVersions); err != nil {
			t.Fatal(err)
		}
		ten := demo.Tenants[0]
		account := func(bid string, roles ...parcelgate.Role) *parcelgate.Caller {
			id, err := db.OrgIDForTest(ctx, ten.Environment, bid)
			if err != nil {
				t.Fatal(bid, err)
			}
			return &parcelgate.Caller{Subject: bid, OrgID: id, BusinessID: bid, Environment: ten.Environment, Kind: parcelgate.KindEcom, Roles: roles}
		}
		retailer := account(ten.RetailerID, parcelgate.RoleRetailer)
		supplier := account(ten.SupplierID, parcelgate.RoleSupplier)
		merchantSupplier := account(ten.BusinessID, parcelgate.RoleSupplier)
		supplies := sqlstore.NewDropshipService(db)
		parts, err := supplies.OrderShipments(ctx, retailer, demo.SampleDropshipOrder)
		if err != nil {
			t.Fatal(err)
		}
		var own string
		for _, s := range parts {
			if s.ClientID == ten.SupplierID {
				own = s.ShipmentID
			}
		}
		if own == "" {
			t.Fatalf("no shipment of %s among %d", ten.SupplierID, len(parts))
		}
		// decisions §34: shipments are their supplier's; the retailer (and
		// a gateway token) may not touch them.
		notSuppliers := []*parcelgate.Caller{retailer, gatewayClientOf(orgOf(supplier))}
		shipment := func(s *parcelgate.DropshipShipment, err error) (string, error) {
			if err != nil {
				return "", err
			}
			return s.ShipmentID + " " + string(s.Status.Value), nil
		}
		picking := parcelgate.DropshipStatus("Picking")
		checkAccess(t, writtenIn(t, db), own, "ZZZZZZZZZZZZZZZZZZZZ", []accessCase{
			{name: "ListShipments", denied: notSuppliers, other: merchantSupplier, listing: true, owner: supplier, ownerSees: true,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					p, err := supplies.ListShipments(ctx, c, parcelgate.DropshipQuery{}, parcelgate.PageRequest{Size: 100})
					var s []string
					for _, sh := range p.Items {
						s = append(s, sh.ShipmentID)
					}
					return strings.Join(s, ","), err
				}},
			{name: "FindShipment", denied: notSuppliers, other: merchantSupplier, crossCode: parcelgate.ENOTFOUND, owner: supplier, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return shipment(supplies.FindShipment(ctx, c, id))
				}},
			{name: "UpdateShipment", denied: notSuppliers, other: merchantSupplier, crossCode: parcelgate.ENOTFOUND, owner: supplier, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return shipment(supplies.UpdateShipment(ctx, c, id, parcelgate.DropshipUpdate{Status: &picking}))
				}},
			// A split names the full list of the shipment's parcels;
			// this one, past the access checks, is invalid.
			{name: "SplitShipment", denied: notSuppliers, other: merchantSupplier, crossCode: parcelgate.ENOTFOUND, owner: supplier, ownerCode: parcelgate.EINVALID,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return shipment(supplies.SplitShipment(ctx, c, id, parcelgate.DropshipUpdate{Status: &picking}))
				}},
			{name: "ConfirmShipment", denied: notSuppliers, other: merchantSupplier, crossCode: parcelgate.ENOTFOUND, owner: supplier, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return shipment(supplies.ConfirmShipment(ctx, c, id))
				}},
			// decisions §38: a supplier's events are its own shipment's.
			{name: "AddShipmentEvent", denied: notSuppliers, other: merchantSupplier, crossCode: parcelgate.ENOTFOUND, owner: supplier, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					sh, _, err := supplies.AddShipmentEvent(ctx, c, id, parcelgate.DropshipEventInput{Code: "HANDED_TO_CARRIER"})
					return shipment(sh, err)
				}},
		})
		// The retailer's view of its order's shipments: another
		// organization's order answers like a missing one.
		order, err := sqlstore.NewOrderService(db).FindOrder(ctx, retailer, demo.SampleDropshipOrder)
		if err != nil {
			t.Fatal(err)
		}
		merchant := account(ten.BusinessID, parcelgate.RoleMerchant)
		checkAccess(t, writtenIn(t, db), order.ID, "ZZZZZZZZZZZZZZZZ", []accessCase{
			{name: "OrderShipments", denied: []*parcelgate.Caller{supplier, gatewayClientOf(orgOf(retailer))}, other: merchant, crossCode: parcelgate.ENOTFOUND, owner: retailer,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					parts, err := supplies.OrderShipments(ctx, c, id)
					return fmt.Sprint(len(parts), " shipments"), err
				}},
		})
		// decisions §34: the automatic supplier is the operator's switch,
		// of one organization; the supplier itself may not flip it.
		checkAccess(t, writtenIn(t, db), "", "", []accessCase{
			{name: "SetAutoSupplier", denied: []*parcelgate.Caller{supplier, gatewayClientOf(orgOf(supplier))}, owner: parcelgate.OperatorCaller(orgOf(supplier)),
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					a, err := supplies.SetAutoSupplier(ctx, c, parcelgate.AutoSupplier{Enabled: true, DelaySeconds: 60})
					return fmt.Sprint(a), err
				}},
			{name: "AutoSupplierOf", denied: []*parcelgate.Caller{supplier, gatewayClientOf(orgOf(supplier))}, owner: parcelgate.OperatorCaller(orgOf(supplier)),
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					a, err := supplies.AutoSupplierOf(ctx, c)
					return fmt.Sprint(a), err
				}},
		})
		// Each organization's setting is its own: the operator in the
		// retailer's organization does not see the supplier's.
		if a, err := supplies.AutoSupplierOf(ctx, parcelgate.OperatorCaller(orgOf(retailer))); err != nil || a.Enabled {
			t.Fatalf("the retailer's automatic supplier: %+v %v", a, err)
		}
		if a, err := supplies.AutoSupplierOf(ctx, parcelgate.OperatorCaller(orgOf(supplier))); err != nil || !a.Enabled || a.DelaySeconds != 60 {
			t.Fatalf("the supplier's automatic supplier: %+v %v", a, err)
		}
	})
}
