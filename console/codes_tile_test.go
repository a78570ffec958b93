package console_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/internal/wiring"
)

// decisions §53, §58: the overview's active codes tile counts the
// tenant's live codes up to a bound (1,000 in service; 3 here), exact up
// to it and "bound+" past it; another tenant's codes are not counted.
func TestActiveCodesTileIsBounded(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) { activeCodesTile(t, engine) })
	}
}

func activeCodesTile(t *testing.T, engine string) {
	{
		e := newEnvServices(t, engine, true, nil, wiring.CountedCodes(3))
		ctx := context.Background()
		var orgs []*parcelgate.Organization
		for _, bid := range []string{"2345678-0", "0737546-2"} {
			org := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: bid, Name: bid}
			if err := e.api.Organizations.CreateOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), org); err != nil {
				t.Fatal(err)
			}
			orgs = append(orgs, org)
		}
		code := func(org *parcelgate.Organization, i int) {
			gw := &parcelgate.Caller{OrgID: org.ID, BusinessID: org.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindGateway}
			if _, err := e.api.Codes.CreateSendingCode(ctx, gw, fmt.Sprintf("JJFI%s%04d", org.BusinessID[:7], i), true); err != nil {
				t.Fatal(err)
			}
		}
		b := e.browser()
		b.operator(parcelgate.Production)
		if p := b.post("/console/tenant", url.Values{"environment": {"production"}, "businessId": {orgs[0].BusinessID}}); p.status != 303 {
			t.Fatalf("choose tenant: %d", p.status)
		}
		tile := func() string {
			return between(b.get("/console/").body, `id="tile-codes"><span class="tag tag-progress">Active codes</span><strong>`, `</strong>`)
		}
		// The other tenant's codes, past the bound: none of them counts.
		for i := range 5 {
			code(orgs[1], i)
		}
		if got := tile(); got != "0" {
			t.Fatalf("no codes of its own: tile %q", got)
		}
		for i := range 3 {
			code(orgs[0], i)
		}
		if got := tile(); got != "3" {
			t.Fatalf("3 codes, bound 3: tile %q", got)
		}
		code(orgs[0], 3)
		if got := tile(); got != "3+" {
			t.Fatalf("4 codes, bound 3: tile %q", got)
		}
	}
}
