package parcelgate

import (
	"fmt"
	"math/big"
	"slices"
)

// RowStock is what the store found for one order row: the balance of the
// row's product in the row's warehouse, published by the merchant to its
// own warehouse catalog (in the warehouse service the merchant is both
// supplier and retailer, decisions §6).
type RowStock struct {
	BalanceID int64
	// Available is the balance's quantity: what can still be allocated.
	Available int64
	// Price is the wholesale price as decimal text, "" when unpriced.
	Price string
	// EOS: the product is at end of sale (interface §3).
	EOS bool
	// Fragile and Oversized are the product's flags (interface §2.3 value-added
	// services).
	Fragile, Oversized bool
	// SupplierOrg and SupplierID name the supplier of a balance in one of
	// the retailer's dropshipping catalogs (decisions §34); zero for the
	// merchant's own warehouse.
	SupplierOrg int64
	SupplierID  string
}

// Allocation is the outcome of allocating an order's rows (decisions §7).
type Allocation struct {
	// Status is Created when every row is covered, Error when a product is
	// unknown in its warehouse or at end of sale, Cancelled when the stock
	// does not cover a row. Only Created allocates anything.
	Status OrderStatus
	Reason string
	// BalanceIDs are the balances of the rows, by row; 0 for a row whose
	// product was not found.
	BalanceIDs []int64
	// Prices are the rows' unit wholesale prices, Total their sum times
	// the quantities (totalWholeSalePrice).
	Prices []float64
	Total  float64
	// Services are the value-added services the products bring (interface §2.3:
	// Fragile, Oversized), in the order first met.
	Services []string
	// Supply is, by row, the supplier whose dropshipping balance the row
	// takes (decisions §34); zero for a row of the merchant's warehouse.
	Supply []OrderRowSupply
}

// Allocates reports whether the rows' quantities are to be taken:
// quantity -= q, allocated += q on each row's balance.
func (a Allocation) Allocates() bool { return a.Status == OrderCreated }

// Allocate decides the allocation of an order's rows, all or nothing
// (decisions §7), from what the store loaded: stock[i] is row i's balance,
// nil when the product is not published in the row's warehouse;
// warehouses are the merchant's warehouse catalogs. The first problem in
// row order gives the reason: a product not in its warehouse (or a
// warehouse not the merchant's) or at end of sale is Error; a row the
// balance cannot cover, counting earlier rows on the same balance, is
// Cancelled. Prices and services are decided whatever the outcome, so an
// order in Error still shows what it would cost.
func Allocate(rows []OrderRow, stock []*RowStock, warehouses []string) Allocation {
	a := Allocation{Status: OrderCreated, BalanceIDs: make([]int64, len(rows)), Prices: make([]float64, len(rows)), Services: []string{}, Supply: make([]OrderRowSupply, len(rows))}
	total := new(big.Rat)
	var missing, short string
	need := map[int64]int64{}
	for i, row := range rows {
		b := stock[i]
		switch {
		case b == nil:
			if missing == "" {
				missing = unknownRowReason(row, warehouses)
			}
			continue
		case b.EOS && missing == "":
			missing = fmt.Sprintf("Product %s is end of sale (EOS).", row.ExternalProductID)
		}
		a.BalanceIDs[i] = b.BalanceID
		a.Supply[i] = OrderRowSupply{SupplierOrg: b.SupplierOrg, SupplierID: b.SupplierID}
		need[b.BalanceID] += int64(row.Quantity)
		if short == "" && need[b.BalanceID] > b.Available {
			short = fmt.Sprintf("Not enough stock: product %s has %d available in warehouse %s, the order needs %d.", row.ExternalProductID, b.Available, row.ExternalWarehouseID, need[b.BalanceID])
		}
		if price, ok := new(big.Rat).SetString(b.Price); ok {
			a.Prices[i], _ = price.Float64()
			total.Add(total, price.Mul(price, big.NewRat(int64(row.Quantity), 1)))
		}
		if b.Fragile && !slices.Contains(a.Services, ServiceFragile) {
			a.Services = append(a.Services, ServiceFragile)
		}
		if b.Oversized && !slices.Contains(a.Services, ServiceOversized) {
			a.Services = append(a.Services, ServiceOversized)
		}
	}
	a.Total, _ = total.Float64()
	switch {
	case missing != "":
		a.Status, a.Reason = OrderError, missing
	case short != "":
		a.Status, a.Reason = OrderCancelled, short
	}
	return a
}

// unknownRowReason says why a row has no balance: the warehouse is not the
// merchant's, or the product is not stocked there.
func unknownRowReason(row OrderRow, warehouses []string) string {
	if !slices.Contains(warehouses, row.ExternalWarehouseID) {
		return fmt.Sprintf("Warehouse %s is not one of your warehouses.", row.ExternalWarehouseID)
	}
	if row.ExternalProductID == "" {
		// A row by EAN that no product of the warehouse has
		// (ResolveRowProducts).
		return fmt.Sprintf("No product with EAN %s is stocked in warehouse %s: create it with that eanCode and publish it there before ordering it.", row.ProductEANCode, row.ExternalWarehouseID)
	}
	return fmt.Sprintf("Product %s is not stocked in warehouse %s: create it and publish it there before ordering it.", row.ExternalProductID, row.ExternalWarehouseID)
}

// Apply writes the allocation's prices and services into the order: row
// wholesale prices, totalWholeSalePrice, and additionalServices, which
// are the client's own services followed by those the products bring
// (interface §2.3), each once. An allocated row of a dropshipping catalog
// carries its supplier (SupplierID, decisions §34) from here on; nothing
// is delivered of any row yet.
func (o *Order) Apply(a Allocation) {
	for i := range o.Rows {
		o.Rows[i].WholesalePrice = a.Prices[i]
		o.Rows[i].SupplierID, o.Rows[i].DeliveredQuantity = "", nil
		if a.Allocates() && i < len(a.Supply) {
			o.Rows[i].SupplierID = a.Supply[i].SupplierID
		}
	}
	o.TotalWholeSalePrice = a.Total
	o.AdditionalServices = append([]AdditionalService{}, o.RequestedServices...)
	for _, s := range a.Services {
		if !slices.ContainsFunc(o.AdditionalServices, func(x AdditionalService) bool { return x.ServiceCode == s }) {
			o.AdditionalServices = append(o.AdditionalServices, AdditionalService{ServiceCode: s})
		}
	}
}

// AllocateOrder decides the allocation of a new order of env with
// externalID: Allocate, with the test scenarios (scenario.go) applied. A
// product that is AlwaysOutOfStock counts as having none available; an
// order that is an OrderScenario gets the scenario's status and reason
// instead of being allocated, unless a product is unknown or at end of
// sale (Error, as for any order). Outside the test environment it is
// Allocate.
func AllocateOrder(env Environment, externalID string, rows []OrderRow, stock []*RowStock, warehouses []string) Allocation {
	if env == Test {
		stock = slices.Clone(stock)
		for i, row := range rows {
			if stock[i] != nil && AlwaysOutOfStock(env, row.ExternalProductID) {
				empty := *stock[i]
				empty.Available = 0
				stock[i] = &empty
			}
		}
	}
	a := Allocate(rows, stock, warehouses)
	if a.Status == OrderError {
		return a
	}
	if status, reason, ok := OrderScenario(env, externalID); ok {
		a.Status, a.Reason = status, reason
	}
	return a
}
