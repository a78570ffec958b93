package sqlstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/console/view"
	"github.com/parcelgate/parcelgate/internal/testdb"
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

		orders, err := reads.ConsoleOrders(ctx, c, view.OrderFilter{}, "", 50)
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

		page, err := journal.Journal(ctx, c, parcelgate.JournalQuery{Limit: 100})
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
		page, err = journal.Journal(ctx, c, parcelgate.JournalQuery{BusinessID: other.BusinessID, Limit: 100})
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
		if page, err := journal.Journal(ctx, &elsewhere, parcelgate.JournalQuery{}); err != nil || len(page.Items) != 0 {
			t.Fatalf("journal in the other environment: %d, %v", len(page.Items), err)
		}

		// The operator: every tenant's, one environment's, or one named.
		all, err := journal.Journal(ctx, parcelgate.EnvironmentOperator(""), parcelgate.JournalQuery{Limit: 100})
		if err != nil || len(all.Items) != 8 {
			t.Fatalf("operator, every environment: %d, %v; want 8", len(all.Items), err)
		}
		named, err := journal.Journal(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.JournalQuery{BusinessID: other.BusinessID, Limit: 100})
		if err != nil || len(named.Items) != 4 || named.Items[0].OrgID != other.ID {
			t.Fatalf("operator naming %s: %d, %v; want its 4", other.BusinessID, len(named.Items), err)
		}
		if es, err := journal.JournalEntries(ctx, parcelgate.OperatorCaller(other), parcelgate.JournalQuery{}, "shared"); err != nil || len(es) != 1 || es[0].OrgID != other.ID {
			t.Fatalf("operator on %s, shared ID: %v, %v", other.BusinessID, es, err)
		}
		if es, err := journal.JournalEntries(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.JournalQuery{}, "shared"); err != nil || len(es) != 2 {
			t.Fatalf("operator, whole environment, shared ID: %d, %v; want both", len(es), err)
		}
		if _, err := journal.Journal(ctx, parcelgate.EnvironmentOperator(parcelgate.Test), parcelgate.JournalQuery{BusinessID: other.BusinessID}); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
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
		if orgs, n, err := reads.ConsoleEnvironmentCounts(ctx, parcelgate.EnvironmentOperator("")); err != nil || orgs != 3 || n != 7 {
			t.Fatalf("every environment's figures: %d orgs, %d orders, %v", orgs, n, err)
		}
		listed, err := reads.ConsoleOrganizations(ctx, parcelgate.EnvironmentOperator(parcelgate.Test), "", 10)
		if err != nil || len(listed.Items) != 1 || listed.Items[0].Orders != 4 {
			t.Fatalf("test's organizations: %d, %v", len(listed.Items), err)
		}
	})
}

// interface §5.2, decisions §16: each console read and journal read asks
// Caller.May itself, with the action of the page that shows it, so a
// caller the console would not serve is refused by the service too
// (EFORBIDDEN), whoever calls it.
func TestConsoleAndJournalReadsRefuseWithoutThePermission(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		own, _ := consoleTenants(t, db)
		reads, journal := sqlstore.NewConsoleService(db), sqlstore.NewJournalService(db)
		supplier := accountOf(own, parcelgate.RoleSupplier)
		retailer := accountOf(own, parcelgate.RoleRetailer)
		merchant := accountOf(own, parcelgate.RoleMerchant)
		gateway := gatewayClientOf(own)
		for _, tc := range []struct {
			name string
			c    *parcelgate.Caller
			call func(c *parcelgate.Caller) error
		}{
			// orders: ActionReadOrders (merchant, retailer)
			{"ConsoleOrders", supplier, func(c *parcelgate.Caller) error {
				_, err := reads.ConsoleOrders(ctx, c, view.OrderFilter{}, "", 10)
				return err
			}},
			{"ConsoleOrderCounts", supplier, func(c *parcelgate.Caller) error { _, err := reads.ConsoleOrderCounts(ctx, c); return err }},
			{"ConsoleOrderAllocations", supplier, func(c *parcelgate.Caller) error {
				_, _, err := reads.ConsoleOrderAllocations(ctx, c, "x")
				return err
			}},
			// products: read products or every catalog
			{"ConsoleProducts", gateway, func(c *parcelgate.Caller) error { _, err := reads.ConsoleProducts(ctx, c, "", "", 10); return err }},
			{"ConsoleProductDetail", gateway, func(c *parcelgate.Caller) error { _, _, err := reads.ConsoleProductDetail(ctx, c, 1); return err }},
			{"ConsoleCatalogChoices", gateway, func(c *parcelgate.Caller) error { _, err := reads.ConsoleCatalogChoices(ctx, c); return err }},
			// shipments and codes: a gateway client's or the operator's
			{"ConsoleShipments", merchant, func(c *parcelgate.Caller) error { _, err := reads.ConsoleShipments(ctx, c, "", 10); return err }},
			{"ConsoleLookup", retailer, func(c *parcelgate.Caller) error { _, err := reads.ConsoleLookup(ctx, c, "JJFI12345"); return err }},
			{"ConsoleShipmentCodes", supplier, func(c *parcelgate.Caller) error {
				_, err := reads.ConsoleShipmentCodes(ctx, c, "JJFI12345")
				return err
			}},
			// the overview and the journal: any service account, not a gateway client
			{"ConsoleCounts", gateway, func(c *parcelgate.Caller) error { _, err := reads.ConsoleCounts(ctx, c); return err }},
			{"ConsoleChangeStamp", gateway, func(c *parcelgate.Caller) error { _, err := reads.ConsoleChangeStamp(ctx, c); return err }},
			{"Journal", gateway, func(c *parcelgate.Caller) error {
				_, err := journal.Journal(ctx, c, parcelgate.JournalQuery{})
				return err
			}},
			{"JournalEntries", gateway, func(c *parcelgate.Caller) error {
				_, err := journal.JournalEntries(ctx, c, parcelgate.JournalQuery{}, "own-0")
				return err
			}},
			// the operator's pages: ActionOperate
			{"ConsoleEnvironmentStamp", merchant, func(c *parcelgate.Caller) error { _, err := reads.ConsoleEnvironmentStamp(ctx, c); return err }},
			{"ConsoleOrganizations", merchant, func(c *parcelgate.Caller) error { _, err := reads.ConsoleOrganizations(ctx, c, "", 10); return err }},
			{"ConsoleEnvironmentCounts", merchant, func(c *parcelgate.Caller) error { _, _, err := reads.ConsoleEnvironmentCounts(ctx, c); return err }},
			{"ConsoleGatewayClients", merchant, func(c *parcelgate.Caller) error { _, err := reads.ConsoleGatewayClients(ctx, c, "", 10); return err }},
			{"ConsoleServiceAccounts", retailer, func(c *parcelgate.Caller) error { _, err := reads.ConsoleServiceAccounts(ctx, c, "", 10); return err }},
			{"ConsoleCredentialOrg", supplier, func(c *parcelgate.Caller) error {
				_, err := reads.ConsoleCredentialOrg(ctx, c, view.CredentialServiceAccount, "someone")
				return err
			}},
			{"ConsoleCatalogs", merchant, func(c *parcelgate.Caller) error { _, err := reads.ConsoleCatalogs(ctx, c, "", 10); return err }},
		} {
			if err := tc.call(tc.c); parcelgate.ErrorCode(err) != parcelgate.EFORBIDDEN {
				t.Errorf("%s for %s %v: %v, want EFORBIDDEN", tc.name, tc.c.Kind, tc.c.Roles, err)
			}
			if err := tc.call(nil); parcelgate.ErrorCode(err) != parcelgate.EUNAUTHORIZED {
				t.Errorf("%s for no caller: %v, want EUNAUTHORIZED", tc.name, err)
			}
			// The operator on the tenant may make every read (a missing
			// object is ENOTFOUND, not a refusal).
			if err := tc.call(parcelgate.OperatorCaller(own)); err != nil && parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
				t.Errorf("%s for the operator: %v", tc.name, err)
			}
		}
		// Every role reads its own overview and journal (the console shows
		// them to every session).
		for _, c := range []*parcelgate.Caller{supplier, retailer, merchant} {
			if _, err := reads.ConsoleCounts(ctx, c); err != nil {
				t.Errorf("ConsoleCounts for %v: %v", c.Roles, err)
			}
			if _, err := journal.Journal(ctx, c, parcelgate.JournalQuery{}); err != nil {
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
			page, err := journal.Journal(ctx, c, parcelgate.JournalQuery{Before: cursor, Limit: 3})
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
			if page.Next != strconv.FormatInt(page.Items[len(page.Items)-1].ID, 10) {
				t.Fatalf("Next %q is not the page's oldest id in decimal", page.Next)
			}
			cursor = page.Next
		}
		if want := []string{"shared", "own-4", "own-2", "own-0"}; fmt.Sprint(got) != fmt.Sprint(want) || pages != 2 {
			t.Fatalf("walked %v on %d pages, want %v on 2", got, pages, want)
		}
		for _, bad := range []string{"abc", "0", "-3", "1.5", " 12"} {
			if _, err := journal.Journal(ctx, c, parcelgate.JournalQuery{Before: bad}); parcelgate.ErrorCode(err) != parcelgate.EINVALID {
				t.Errorf("cursor %q: %v, want EINVALID", bad, err)
			}
		}
	})
}
