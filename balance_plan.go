package parcelgate

import (
	"fmt"
	"slices"
)

// The planning of balance updates: interface §4.4 PUT /inventory/balances rules
// 1-5, decided here once for both PUT /inventory/balances and the balances
// of PUT /inventory. The store loads a StockState, calls PlanBalances and
// writes the plan; it decides nothing itself.

// CatalogRef is a catalog open to a supplier (it lists the supplier), as
// the planner sees it.
type CatalogRef struct {
	ID          int64
	RetailerOrg int64
	RetailerID  string
	ExternalID  string
}

// PublishedBalance is a live balance of a product: the product is
// published to Catalog. Removed balances (tombstones) are not published:
// rule 4 updates only live balances, and publishing revives a tombstone.
type PublishedBalance struct {
	BalanceID int64
	Catalog   CatalogRef
}

// StockState is what the planner needs to know of one supplier, loaded in
// the transaction that writes the plan.
type StockState struct {
	// SupplierID is the supplier's business ID, for messages.
	SupplierID string
	// Products are the supplier's products by ProductKey: true for an
	// ACTIVE one, false for one whose sale ended (EOS).
	Products map[string]bool
	// Open are the catalogs that list the supplier.
	Open []CatalogRef
	// Published are the live balances by product key.
	Published map[string][]PublishedBalance
}

// BalanceWrite is what a plan changes in one balance. Nil fields stay as
// they are.
type BalanceWrite struct {
	// BalanceID is the live balance to update; 0 publishes ProductKey to
	// Catalog (rule 1): a new balance, or the revival of a tombstone, which
	// starts with allocated 0, quantity 0 unless given, and no price unless
	// given.
	BalanceID  int64
	ProductKey string
	Catalog    CatalogRef
	Quantity   *int64
	// Allocated is only ever 0 (Validate): it releases the allocations
	// (rule 5). A quantity update leaves allocations as they are.
	Allocated      *int64
	WholesalePrice *string
	Currency       *string
}

// Publishes reports whether w publishes the product to a catalog.
func (w *BalanceWrite) Publishes() bool { return w.BalanceID == 0 }

func (w *BalanceWrite) merge(e *BalanceInput) {
	if e.Quantity != nil {
		w.Quantity = e.Quantity
	}
	if e.Allocated != nil {
		w.Allocated = e.Allocated
	}
	if e.WholesalePrice != nil {
		w.WholesalePrice = e.WholesalePrice
	}
	if e.Currency != nil {
		w.Currency = e.Currency
	}
}

// BalancePlan is the outcome of PlanBalances.
type BalancePlan struct {
	// Writes are the balances to write, each once, in the order the
	// entries first touched them; each carries the last value the entries
	// gave each field, which is what applying them one by one would leave.
	Writes []*BalanceWrite
	// Failed holds, by group index, the problems of each group that cannot
	// be applied; none of its entries is in Writes. Fields are named as in
	// BalanceInput ("catalogExternalId"); Index is the entry's position in
	// its group.
	Failed map[int]*Error
}

// PlanBalances decides what groups of validated balance entries write
// (interface §4.4 PUT balances rules 1-5). A group stands or falls as one: PUT
// /inventory makes each envelope's balances a group, PUT
// /inventory/balances each entry its own. Entries are applied in order, so
// an entry sees what earlier entries of successful groups published.
//
//   - Rule 1: an entry naming a catalog the product is not published to
//     publishes it there; the catalog must be open to the supplier (listed
//     as a supplier), else the entry fails as if the catalog did not exist.
//     Without retailerId the catalog ID must name exactly one open catalog.
//   - Rules 2-3: an entry naming a catalog the product is published to
//     updates the fields it gives (quantity, wholesalePrice, currency).
//   - Rule 4: an entry without catalogExternalId updates every catalog
//     where the product is published (of retailerId, when given); it fails
//     when there is none.
//   - Rule 5: quantity updates keep the allocations; allocated: 0 in the
//     entry releases them (the write sets allocated to 0). Orders whose
//     allocation was released meanwhile release only what is still
//     allocated when they end (the order engine's side of the rule).
//
// An entry naming a product the supplier does not have fails.
func PlanBalances(st StockState, groups [][]BalanceInput) BalancePlan {
	failed := map[int]*Error{}
	for {
		plan := planOnce(st, groups, failed)
		if len(plan.Failed) == 0 {
			plan.Failed = failed
			return plan
		}
		// A group that failed takes back what it staged, which can change
		// what later groups see (rule 4 on a catalog it published to):
		// plan again without it, until no more groups fail.
		for g, err := range plan.Failed {
			failed[g] = err
		}
	}
}

// planOnce plans the groups not in skip and reports the newly failed ones.
func planOnce(st StockState, groups [][]BalanceInput, skip map[int]*Error) BalancePlan {
	pub := make(map[string][]PublishedBalance, len(st.Published))
	for k, v := range st.Published {
		pub[k] = slices.Clip(v)
	}
	var plan BalancePlan
	plan.Failed = map[int]*Error{}
	byID := map[int64]*BalanceWrite{}
	nextNew := int64(0)
	for g, group := range groups {
		if skip[g] != nil {
			continue
		}
		var p Problems
		type staged struct {
			id int64
			e  *BalanceInput
			w  *BalanceWrite // a publish
		}
		var stage []staged
		// Publishes of this group, visible to its later entries only if
		// the group succeeds; kept apart until then.
		gpub := map[string][]PublishedBalance{}
		for i := range group {
			e := &group[i]
			key := ProductKey(st.SupplierID, e.ProductExternalID)
			if !st.Products[key] {
				p.AddAt(i, "productExternalId", "no product %q of supplier %s; create the product first", e.ProductExternalID, st.SupplierID)
				continue
			}
			live := append(slices.Clip(pub[key]), gpub[key]...)
			if e.CatalogExternalID != "" {
				cat, msg := openCatalog(st, e.RetailerID, e.CatalogExternalID)
				if msg != "" {
					p.AddAt(i, "catalogExternalId", "%s", msg)
					continue
				}
				j := slices.IndexFunc(live, func(x PublishedBalance) bool { return x.Catalog.ID == cat.ID })
				if j < 0 {
					nextNew--
					w := &BalanceWrite{ProductKey: key, Catalog: cat}
					stage = append(stage, staged{id: nextNew, e: e, w: w})
					gpub[key] = append(gpub[key], PublishedBalance{BalanceID: nextNew, Catalog: cat})
					continue
				}
				stage = append(stage, staged{id: live[j].BalanceID, e: e})
				continue
			}
			n := 0
			for _, x := range live {
				if e.RetailerID == "" || x.Catalog.RetailerID == e.RetailerID {
					stage = append(stage, staged{id: x.BalanceID, e: e})
					n++
				}
			}
			if n == 0 {
				where := "any catalog"
				if e.RetailerID != "" {
					where = "any catalog of retailer " + e.RetailerID
				}
				p.AddAt(i, "catalogExternalId", "is required: product %q is not published to %s yet (interface §4.4 PUT balances rule 4 updates the catalogs where it is published)", e.ProductExternalID, where)
			}
		}
		if p.Len() > 0 {
			plan.Failed[g] = p.Err().(*Error)
			continue
		}
		for k, v := range gpub {
			pub[k] = append(pub[k], v...)
		}
		for _, s := range stage {
			w := byID[s.id]
			if w == nil {
				w = s.w
				if w == nil {
					w = &BalanceWrite{BalanceID: s.id}
				}
				byID[s.id] = w
				plan.Writes = append(plan.Writes, w)
			}
			w.merge(s.e)
		}
	}
	return plan
}

// openCatalog resolves a catalog open to the supplier. A catalog that
// exists but does not list the supplier answers like a missing one
// (decisions §3); it returns the problem's message when there is one.
func openCatalog(st StockState, retailerID, externalID string) (CatalogRef, string) {
	var found []CatalogRef
	for _, c := range st.Open {
		if c.ExternalID == externalID && (retailerID == "" || c.RetailerID == retailerID) {
			found = append(found, c)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], ""
	case len(found) > 1:
		return CatalogRef{}, fmt.Sprintf("%q names a catalog of several retailers; give retailerId", externalID)
	case retailerID != "":
		return CatalogRef{}, fmt.Sprintf("retailer %s has no catalog %q open to supplier %s", retailerID, externalID, st.SupplierID)
	}
	return CatalogRef{}, fmt.Sprintf("no catalog %q is open to supplier %s", externalID, st.SupplierID)
}
