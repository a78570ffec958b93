package parcelgate

import (
	"strings"
	"time"
)

// Document types of the provider's Orders V3 (metadata.documentType, the
// documentType filter): sales orders and purchase orders. parcelgate
// holds sales orders only (decisions §37).
const (
	DocumentSalesOrder    = "SalesOrder"
	DocumentPurchaseOrder = "PurchaseOrder"
)

// ParseDocumentType reads a documentType filter value, case-insensitively.
func ParseDocumentType(s string) (string, bool) {
	for _, d := range []string{DocumentSalesOrder, DocumentPurchaseOrder} {
		if strings.EqualFold(strings.TrimSpace(s), d) {
			return d, true
		}
	}
	return "", false
}

// OrderFilterStatuses are the statuses an order list may be filtered by
// (decisions §37): every status parcelgate sets on an order — those of
// OrderStatuses and "Partially delivered", which an order split among
// suppliers takes (decisions §34) — and the other order statuses of the
// provider's status page, which parcelgate never sets, so they select
// nothing. Viewed is read as Submitted (ParseOrderStatus).
var OrderFilterStatuses = orderFilterStatuses()

func orderFilterStatuses() []OrderStatus {
	var out []OrderStatus
	for _, st := range append(append([]OrderStatus{}, OrderStatuses...), OrderPartiallyDelivered,
		"Draft", "Accepted", "orderRouted", "Routed", "Picking", "Packing", "Shipping") {
		if !containsStatus(out, st) {
			out = append(out, st)
		}
	}
	return out
}

// ParseOrderFilterStatus reads one status of a status filter,
// case-insensitively: a name of OrderFilterStatuses, or Viewed (Submitted).
func ParseOrderFilterStatus(s string) (OrderStatus, bool) {
	if st, ok := ParseOrderStatus(s); ok {
		return st, true
	}
	s = strings.TrimSpace(s)
	for _, st := range OrderFilterStatuses {
		if strings.EqualFold(s, string(st)) {
			return st, true
		}
	}
	return "", false
}

// ParseOrderStatusFilter reads the status filter of an order list: one
// status or a comma list (status=Created,Viewed), each of
// OrderFilterStatuses, each kept once. Every name that is none is a
// problem of the field, listed with the names that are.
func ParseOrderStatusFilter(p *Problems, field string, v string) []OrderStatus {
	var out []OrderStatus
	for name := range strings.SplitSeq(v, ",") {
		st, ok := ParseOrderFilterStatus(name)
		switch {
		case !ok:
			p.Add(field, "%q is not an order status (%s; Viewed means Submitted)", strings.TrimSpace(name), orderFilterStatusNames())
		case !containsStatus(out, st):
			out = append(out, st)
		}
	}
	return out
}

func containsStatus(list []OrderStatus, st OrderStatus) bool {
	for _, s := range list {
		if s == st {
			return true
		}
	}
	return false
}

func orderFilterStatusNames() string {
	names := make([]string, len(OrderFilterStatuses))
	for i, st := range OrderFilterStatuses {
		names[i] = string(st)
	}
	return strings.Join(names, ", ")
}

// CheckOrderDates checks the order date window of an order list
// (decisions §37): from (inclusive) must come before to (exclusive).
func CheckOrderDates(p *Problems, from, to time.Time) {
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		p.Add("to", "must be later than from (%s): the window is from inclusive, to exclusive", from.UTC().Format(time.RFC3339Nano))
	}
}

// Selects reports whether the query can select any order: a query for
// purchase orders selects none, since parcelgate holds sales orders only.
func (q OrderQuery) Selects() bool { return q.DocumentType != DocumentPurchaseOrder }
