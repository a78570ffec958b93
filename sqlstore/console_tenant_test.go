package sqlstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/console/view"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/pickup"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// consoleTenants makes two organizations of production with journal
// entries (request IDs "own-N" and "other-N", and one ID both used,
// "shared"), the first with 3 orders, and an organization of the test
// environment with the first's business ID and 4 orders; it returns the
// two of production.
func consoleTenants(t *testing.T, db *sqlstore.DB) (own, other *parcelgate.Organization) {
	t.Helper()
	ctx := context.Background()
	own = &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "1234567-1", Name: "Own"}
	other = &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "7654321-2", Name: "Other"}
	twin := &parcelgate.Organization{Environment: parcelgate.Test, BusinessID: own.BusinessID, Name: "Own's twin in test"}
	for _, o := range []*parcelgate.Organization{own, other, twin} {
		if err := sqlstore.NewOrganizationService(db).CreateOrganization(ctx, parcelgate.EnvironmentOperator(o.Environment), o); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	doc, _ := json.Marshal(sampleOrder())
	if err := db.SeedOrdersForTest(ctx, own.Environment, own.ID, own.BusinessID, 3, base, string(doc)); err != nil {
		t.Fatal(err)
	}
	if err := db.SeedOrdersForTest(ctx, twin.Environment, twin.ID, twin.BusinessID, 4, base, string(doc)); err != nil {
		t.Fatal(err)
	}
	var entries []*parcelgate.JournalEntry
	for i, o := range []*parcelgate.Organization{own, other, own, other, own, other} {
		name := "own"
		if o == other {
			name = "other"
		}
		entries = append(entries, journalEntry(o, fmt.Sprintf("%s-%d", name, i), base.Add(time.Duration(i)*time.Second)))
	}
	entries = append(entries, journalEntry(own, "shared", base.Add(time.Minute)), journalEntry(other, "shared", base.Add(2*time.Minute)))
	if err := sqlstore.NewJournalService(db).WriteJournal(ctx, entries); err != nil {
		t.Fatal(err)
	}
	return own, other
}

func journalEntry(o *parcelgate.Organization, requestID string, at time.Time) *parcelgate.JournalEntry {
	return &parcelgate.JournalEntry{RequestID: requestID, Environment: o.Environment, OrgID: o.ID, BusinessID: o.BusinessID, At: at,
		Method: "GET", Path: "/x", Route: "/x", Status: 200, RequestBody: "in", ResponseBody: "out"}
}

// decisions §16, §21; interface §5.2: a tenant's console session reads
// its own organization's console rows and journal entries only — another
// organization's, in the same environment, are never listed, counted or
// found, even when its request ID is the same or the query names the
// other's business ID; the operator reads every tenant's, or one it names.
func TestConsoleAndJournalReadsStayInTheTenant(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		own, other := consoleTenants(t, db)
		c := accountOf(own, parcelgate.RoleMerchant)
		reads, journal := sqlstore.NewConsoleService(db), sqlstore.NewJournalService(db)

		orders, err := sqlstore.NewOrderService(db).ListOrders(ctx, c, parcelgate.OrderQuery{NewestFirst: true}, parcelgate.PageRequest{Size: 50})
		if err != nil || len(orders.Items) != 3 {
			t.Fatalf("orders: %d, %v; want the own 3", len(orders.Items), err)
		}
		counts, err := reads.ConsoleOrderCounts(ctx, c)
		var n int64
		for _, k := range counts {
			n += k
		}
		if err != nil || n != 3 {
			t.Fatalf("order counts: %v (%d), %v; want 3", counts, n, err)
		}
		if _, _, err := reads.ConsoleOrderAllocations(ctx, c, "SEED1"); err != nil {
			t.Errorf("the own order's rows: %v", err)
		}
		// The test environment's organization of the same business ID is
		// another tenant: its order SEED4 is not found.
		if _, _, err := reads.ConsoleOrderAllocations(ctx, c, "SEED4"); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
			t.Errorf("another tenant's order rows: %v, want ENOTFOUND", err)
		}

		page, err := journal.Journal(ctx, c, parcelgate.JournalQuery{}, parcelgate.PageRequest{Size: 100})
		if err != nil || len(page.Items) != 4 {
			t.Fatalf("journal: %d entries, %v; want the own 4", len(page.Items), err)
		}
		for _, e := range page.Items {
			if e.OrgID != own.ID {
				t.Errorf("journal lists %s of %s", e.RequestID, e.BusinessID)
			}
		}
		// Naming the other organization filters nothing for a tenant: its
		// scope is its caller's.
		page, err = journal.Journal(ctx, c, parcelgate.JournalQuery{BusinessID: other.BusinessID}, parcelgate.PageRequest{Size: 100})
		if err != nil || len(page.Items) != 4 || page.Items[0].OrgID != own.ID {
			t.Fatalf("journal naming another businessId: %d entries, %v", len(page.Items), err)
		}
		es, err := journal.JournalEntries(ctx, c, parcelgate.JournalQuery{}, "shared")
		if err != nil || len(es) != 1 || es[0].OrgID != own.ID {
			t.Fatalf("shared request ID: %v, %v; want the own entry only", es, err)
		}
		if _, err := journal.JournalEntries(ctx, c, parcelgate.JournalQuery{BusinessID: other.BusinessID}, "other-1"); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
			t.Fatalf("another tenant's request ID: %v, want ENOTFOUND", err)
		}
		// The same organization seen from the other environment is another
		// tenant: nothing.
		elsewhere := *c
		elsewhere.Environment = parcelgate.Test
		if page, err := journal.Journal(ctx, &elsewhere, parcelgate.JournalQuery{}, parcelgate.PageRequest{}); err != nil || len(page.Items) != 0 {
			t.Fatalf("journal in the other environment: %d, %v", len(page.Items), err)
		}

		// The operator: every tenant's, one environment's, or one named.
		all, err := journal.Journal(ctx, parcelgate.AllOperator(), parcelgate.JournalQuery{}, parcelgate.PageRequest{Size: 100})
		if err != nil || len(all.Items) != 8 {
			t.Fatalf("operator, every environment: %d, %v; want 8", len(all.Items), err)
		}
		named, err := journal.Journal(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.JournalQuery{BusinessID: other.BusinessID}, parcelgate.PageRequest{Size: 100})
		if err != nil || len(named.Items) != 4 || named.Items[0].OrgID != other.ID {
			t.Fatalf("operator naming %s: %d, %v; want its 4", other.BusinessID, len(named.Items), err)
		}
		if es, err := journal.JournalEntries(ctx, parcelgate.OperatorCaller(other), parcelgate.JournalQuery{}, "shared"); err != nil || len(es) != 1 || es[0].OrgID != other.ID {
			t.Fatalf("operator on %s, shared ID: %v, %v", other.BusinessID, es, err)
		}
		if es, err := journal.JournalEntries(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.JournalQuery{}, "shared"); err != nil || len(es) != 2 {
			t.Fatalf("operator, whole environment, shared ID: %d, %v; want both", len(es), err)
		}
		if _, err := journal.Journal(ctx, parcelgate.EnvironmentOperator(parcelgate.Test), parcelgate.JournalQuery{BusinessID: other.BusinessID}, parcelgate.PageRequest{}); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
			t.Fatalf("operator naming an organization of another environment: %v, want ENOTFOUND", err)
		}

		// The operator's console figures are its environment's.
		orgs, n, err := reads.ConsoleEnvironmentCounts(ctx, parcelgate.EnvironmentOperator(parcelgate.Production))
		if err != nil || orgs != 2 || n != 3 {
			t.Fatalf("production's figures: %d orgs, %d orders, %v", orgs, n, err)
		}
		if orgs, n, err := reads.ConsoleEnvironmentCounts(ctx, parcelgate.EnvironmentOperator(parcelgate.Test)); err != nil || orgs != 1 || n != 4 {
			t.Fatalf("test's figures: %d orgs, %d orders, %v", orgs, n, err)
		}
		if orgs, n, err := reads.ConsoleEnvironmentCounts(ctx, parcelgate.AllOperator()); err != nil || orgs != 3 || n != 7 {
			t.Fatalf("every environment's figures: %d orgs, %d orders, %v", orgs, n, err)
		}
		testOp := parcelgate.EnvironmentOperator(parcelgate.Test)
		orgPage, err := sqlstore.NewOrganizationService(db).ListOrganizations(ctx, testOp, parcelgate.OrganizationQuery{NewestFirst: true}, parcelgate.PageRequest{Size: 10})
		if err != nil || len(orgPage.Items) != 1 {
			t.Fatalf("test's organizations: %d, %v", len(orgPage.Items), err)
		}
		listed, err := reads.ConsoleOrganizationFigures(ctx, testOp, orgPage.Items)
		if err != nil || len(listed) != 1 || listed[0].Orders != 4 {
			t.Fatalf("test's organizations' figures: %d, %v", len(listed), err)
		}
		// Another environment's organization has no figures for this
		// environment's operator.
		everyOrg, err := sqlstore.NewOrganizationService(db).ListOrganizations(ctx, parcelgate.AllOperator(), parcelgate.OrganizationQuery{NewestFirst: true}, parcelgate.PageRequest{Size: 10})
		if err != nil || len(everyOrg.Items) != 3 {
			t.Fatalf("every environment's organizations: %d, %v", len(everyOrg.Items), err)
		}
		if listed, err := reads.ConsoleOrganizationFigures(ctx, testOp, everyOrg.Items); err != nil || len(listed) != 1 {
			t.Fatalf("figures of other environments' organizations for the test operator: %d, %v", len(listed), err)
		}
	})
}

// interface §5.2, decisions §16: each console read and journal read asks
// Caller.May itself, with the action of the page that shows it, so a
// caller the console would not serve is refused by the service too
// (EFORBIDDEN), whoever calls it, and reads of an object find another
// tenant's as they find a missing one. The operator on the tenant may
// make every read.
func TestConsoleAndJournalReadsRefuseWithoutThePermission(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		own, other := consoleTenants(t, db)
		reads, journal := sqlstore.NewConsoleService(db), sqlstore.NewJournalService(db)
		supplier := accountOf(own, parcelgate.RoleSupplier)
		retailer := accountOf(own, parcelgate.RoleRetailer)
		merchant := accountOf(own, parcelgate.RoleMerchant)
		gateway := gatewayClientOf(own)
		operator := parcelgate.OperatorCaller(own)
		// The objects the reads find: a shipment with a sending code, a
		// product and a service account of own's.
		const tn = "JJFI10000000000000001"
		if _, err := sqlstore.NewShipmentService(db, pickup.Network{}).CreateShipment(ctx, gateway, testShipment(tn, "JJFI100000000000000P1")); err != nil {
			t.Fatal(err)
		}
		if _, err := sqlstore.NewCodeService(db).CreateSendingCode(ctx, gateway, tn, false); err != nil {
			t.Fatal(err)
		}
		if failed, err := sqlstore.NewInventoryService(db).PutInventory(ctx, supplier, []parcelgate.InventoryInput{{
			Product: &parcelgate.Product{ExternalID: "P1", Document: []byte(`{"externalId":"P1","descriptions":{"en":{"name":"P1"}}}`)}, Named: true}}); err != nil || len(failed) > 0 {
			t.Fatal(failed, err)
		}
		products, err := sqlstore.NewInventoryService(db).ListProducts(ctx, operator, parcelgate.ProductQuery{}, parcelgate.PageRequest{Size: 10})
		if err != nil || len(products.Items) != 1 {
			t.Fatalf("own's products: %d, %v", len(products.Items), err)
		}
		if err := sqlstore.NewCredentialService(db).CreateServiceAccount(ctx, parcelgate.EnvironmentOperator(own.Environment),
			&parcelgate.ServiceAccount{Username: "someone", Environment: own.Environment, BusinessID: own.BusinessID, Roles: parcelgate.Roles}, "not-a-real-hash"); err != nil {
			t.Fatal(err)
		}
		written := writtenIn(t, db)
		sum := func(n int, err error) (string, error) { return fmt.Sprint(n), err }
		// Reads of no one object.
		checkAccess(t, written, "", "", []accessCase{
			// orders: ActionReadOrders (merchant, retailer)
			{name: "ListOrders newest first", denied: []*parcelgate.Caller{supplier}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					page, err := sqlstore.NewOrderService(db).ListOrders(ctx, c, parcelgate.OrderQuery{NewestFirst: true}, parcelgate.PageRequest{Size: 10})
					return sum(len(page.Items), err)
				}},
			{name: "ConsoleOrderCounts", denied: []*parcelgate.Caller{supplier}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					counts, err := reads.ConsoleOrderCounts(ctx, c)
					return sum(len(counts), err)
				}},
			// products: read products or every catalog
			{name: "ListProducts", denied: []*parcelgate.Caller{gateway}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					page, err := sqlstore.NewInventoryService(db).ListProducts(ctx, c, parcelgate.ProductQuery{}, parcelgate.PageRequest{Size: 10})
					return sum(len(page.Items), err)
				}},
			{name: "ConsoleCatalogChoices", denied: []*parcelgate.Caller{gateway}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					cs, err := reads.ConsoleCatalogChoices(ctx, c)
					return sum(len(cs), err)
				}},
			// shipments: any service account of the organization, a gateway
			// client, the operator (decisions §40)
			{name: "ListShipments", owner: merchant,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					page, err := sqlstore.NewShipmentService(db, pickup.Network{}).ListShipments(ctx, c, parcelgate.ShipmentSearch{}, parcelgate.PageRequest{Size: 10})
					return sum(len(page.Items), err)
				}},
			// the overview and the journal: any service account, not a gateway client
			{name: "ConsoleCounts", denied: []*parcelgate.Caller{gateway}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					_, err := reads.ConsoleCounts(ctx, c)
					return "", err
				}},
			{name: "ConsoleChangeStamp", denied: []*parcelgate.Caller{gateway}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					_, err := reads.ConsoleChangeStamp(ctx, c)
					return "", err
				}},
			{name: "Journal", denied: []*parcelgate.Caller{gateway}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					page, err := journal.Journal(ctx, c, parcelgate.JournalQuery{}, parcelgate.PageRequest{})
					return sum(len(page.Items), err)
				}},
			// the operator's pages: ActionOperate
			{name: "ConsoleEnvironmentStamp", denied: []*parcelgate.Caller{merchant}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					_, err := reads.ConsoleEnvironmentStamp(ctx, c)
					return "", err
				}},
			{name: "ListOrganizations newest first", denied: []*parcelgate.Caller{merchant}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					page, err := sqlstore.NewOrganizationService(db).ListOrganizations(ctx, c, parcelgate.OrganizationQuery{NewestFirst: true}, parcelgate.PageRequest{Size: 10})
					return sum(len(page.Items), err)
				}},
			{name: "ConsoleOrganizationFigures", denied: []*parcelgate.Caller{merchant}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					o, err := sqlstore.NewOrganizationService(db).OrganizationByID(ctx, operator.OrgID)
					if err != nil {
						return "", err
					}
					figs, err := reads.ConsoleOrganizationFigures(ctx, c, []*parcelgate.Organization{o})
					return sum(len(figs), err)
				}},
			{name: "ConsoleEnvironmentCounts", denied: []*parcelgate.Caller{merchant}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					orgs, orders, err := reads.ConsoleEnvironmentCounts(ctx, c)
					return fmt.Sprint(orgs, orders), err
				}},
			// The credentials page lists through the services the
			// operator API calls, paged by key.
			{name: "ListGatewayClients paged", denied: []*parcelgate.Caller{merchant}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					page, err := sqlstore.NewCredentialService(db).ListGatewayClients(ctx, c, parcelgate.PageRequest{Size: 10})
					return sum(len(page.Items), err)
				}},
			{name: "ListServiceAccounts paged", denied: []*parcelgate.Caller{retailer}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					page, err := sqlstore.NewCredentialService(db).ListServiceAccounts(ctx, c, parcelgate.PageRequest{Size: 10})
					return sum(len(page.Items), err)
				}},
			{name: "ListCatalogs paged", denied: []*parcelgate.Caller{merchant}, owner: operator,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					page, err := sqlstore.NewCatalogService(db).ListCatalogs(ctx, c, parcelgate.PageRequest{Size: 10})
					return sum(len(page.Items), err)
				}},
		})
		// Reads of one object of own's: another tenant's answer is a
		// missing object's.
		checkAccess(t, written, "SEED1", "SEED9", []accessCase{
			{name: "ConsoleOrderAllocations", denied: []*parcelgate.Caller{supplier}, other: accountOf(other, parcelgate.RoleMerchant), crossCode: parcelgate.ENOTFOUND, owner: operator,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					rows, _, err := reads.ConsoleOrderAllocations(ctx, c, id)
					return sum(len(rows), err)
				}},
		})
		checkAccess(t, written, strconv.FormatInt(products.Items[0].Product.ID, 10), "999999", []accessCase{
			{name: "FindProduct", denied: []*parcelgate.Caller{gateway}, other: accountOf(other, parcelgate.RoleSupplier), crossCode: parcelgate.ENOTFOUND, owner: operator, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					n, err := strconv.ParseInt(id, 10, 64)
					if err != nil {
						t.Fatal(err)
					}
					p, err := sqlstore.NewInventoryService(db).FindProduct(ctx, c, n)
					if err != nil {
						return "", err
					}
					return fmt.Sprint(p.Product.ID, " ", p.Product.ExternalID), nil
				}},
		})
		checkAccess(t, written, tn, "JJFI10000000000000099", []accessCase{
			{name: "ListShipments search", other: accountOf(other, parcelgate.RoleRetailer), listing: true, crossSum: "0: ", owner: supplier, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					page, err := sqlstore.NewShipmentService(db, pickup.Network{}).ListShipments(ctx, c, parcelgate.ShipmentSearch{Number: id}, parcelgate.PageRequest{Size: 10})
					var found []string
					for _, sh := range page.Items {
						found = append(found, sh.TrackingNumber)
					}
					return fmt.Sprintf("%d: %s", len(found), strings.Join(found, ",")), err
				}},
			{name: "ShipmentCodeHistory", other: gatewayClientOf(other), crossSum: "0 codes", owner: retailer,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					codes, err := sqlstore.NewCodeService(db).ShipmentCodeHistory(ctx, c, id)
					return fmt.Sprint(len(codes), " codes"), err
				}},
		})
		checkAccess(t, written, "own-0", "own-9", []accessCase{
			{name: "JournalEntries", denied: []*parcelgate.Caller{gateway}, other: accountOf(other, parcelgate.RoleMerchant), crossCode: parcelgate.ENOTFOUND, owner: operator, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					es, err := journal.JournalEntries(ctx, c, parcelgate.JournalQuery{}, id)
					var ids []string
					for _, e := range es {
						ids = append(ids, e.RequestID)
					}
					return strings.Join(ids, ","), err
				}},
		})
		checkAccess(t, written, "someone", "no-one", []accessCase{
			{name: "ConsoleCredentialOrg", denied: []*parcelgate.Caller{supplier}, owner: operator,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					org, err := reads.ConsoleCredentialOrg(ctx, c, view.CredentialServiceAccount, id)
					return fmt.Sprint(org), err
				}},
		})
		// Every role reads its own overview and journal (the console shows
		// them to every session).
		for _, c := range []*parcelgate.Caller{supplier, retailer, merchant} {
			if _, err := reads.ConsoleCounts(ctx, c); err != nil {
				t.Errorf("ConsoleCounts for %v: %v", c.Roles, err)
			}
			if _, err := journal.Journal(ctx, c, parcelgate.JournalQuery{}, parcelgate.PageRequest{}); err != nil {
				t.Errorf("Journal for %v: %v", c.Roles, err)
			}
		}
	})
}

// decisions §8, §21: the journal pages newest first by its cursor, the
// decimal id the operator API's before and the console's page carry:
// following Next meets every entry once, the last page has none, and a
// cursor that is not a page's is EINVALID.
func TestJournalPageCursorRoundTrip(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		own, _ := consoleTenants(t, db)
		journal := sqlstore.NewJournalService(db)
		c := accountOf(own, parcelgate.RoleSupplier)
		var got []string
		var lastID int64
		cursor, pages := "", 0
		for {
			page, err := journal.Journal(ctx, c, parcelgate.JournalQuery{}, parcelgate.PageRequest{After: cursor, Size: 3})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, e := range page.Items {
				if lastID != 0 && e.ID >= lastID {
					t.Fatalf("not newest first: %d after %d", e.ID, lastID)
				}
				if e.RequestBody != "" || e.ResponseBody != "" {
					t.Errorf("a list carries bodies: %+v", e)
				}
				lastID = e.ID
				got = append(got, e.RequestID)
			}
			if page.Prev != "" || page.Total != 0 {
				t.Errorf("page %d: Prev %q, Total %d; the journal reads forwards only", pages, page.Prev, page.Total)
			}
			if page.Next == "" {
				break
			}
			// A cursor handed out before decisions §64 (the page's oldest
			// id in decimal) reads the same next page as Next.
			old := strconv.FormatInt(page.Items[len(page.Items)-1].ID, 10)
			byNext, err1 := journal.Journal(ctx, c, parcelgate.JournalQuery{}, parcelgate.PageRequest{After: page.Next, Size: 3})
			byOld, err2 := journal.Journal(ctx, c, parcelgate.JournalQuery{}, parcelgate.PageRequest{After: old, Size: 3})
			if err1 != nil || err2 != nil || fmt.Sprint(requestIDs(byNext.Items)) != fmt.Sprint(requestIDs(byOld.Items)) || len(byNext.Items) == 0 {
				t.Fatalf("next page by Next %q: %v %v; by the old cursor %q: %v %v", page.Next, requestIDs(byNext.Items), err1, old, requestIDs(byOld.Items), err2)
			}
			cursor = page.Next
		}
		if want := []string{"shared", "own-4", "own-2", "own-0"}; fmt.Sprint(got) != fmt.Sprint(want) || pages != 2 {
			t.Fatalf("walked %v on %d pages, want %v on 2", got, pages, want)
		}
		for _, bad := range []string{"abc", "0", "-3", "1.5", " 12"} {
			if _, err := journal.Journal(ctx, c, parcelgate.JournalQuery{}, parcelgate.PageRequest{After: bad}); parcelgate.ErrorCode(err) != parcelgate.EINVALID {
				t.Errorf("cursor %q: %v, want EINVALID", bad, err)
			}
		}
	})
}

func requestIDs(es []*parcelgate.JournalEntry) []string {
	var ids []string
	for _, e := range es {
		ids = append(ids, e.RequestID)
	}
	return ids
}
