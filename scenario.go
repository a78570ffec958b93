package parcelgate

import (
	"fmt"
	"strings"
)

// Test scenarios: documented magic values that make the test
// environment answer as the real service does in a rare case, as payment
// sandboxes do with test card numbers, so an integrator can see its code
// handle an order the warehouse rejects or a shipment that gets no code.
// They apply only in the test environment: production data never triggers
// them. docs/controls.md lists them.
const (
	// ScenarioOrderError: an order whose externalId ends in it goes to
	// Error when created, with ScenarioErrorReason.
	ScenarioOrderError = ".ERROR"
	// ScenarioOrderCancel: an order whose externalId ends in it is
	// Cancelled when created, with ScenarioCancelReason.
	ScenarioOrderCancel = ".CANCEL"
	// ScenarioOutOfStock: a product whose externalId ends in it never has
	// stock for an order: every order of it is Cancelled for stock, whatever
	// its balance says.
	ScenarioOutOfStock = ".NOSTOCK"
	// ScenarioCodeRefused: a tracking number that ends in it gets the
	// answer that the shipment is not allowed a sending code.
	ScenarioCodeRefused = "NOTALLOWED"
	// ScenarioSplit: an order whose externalId ends in it and a digit N
	// from 2 to 9 (".SPLIT3") is delivered in several parcels: each row
	// in N parcels, at most one per unit of its quantity.
	ScenarioSplit = ".SPLIT"
	// ScenarioReturn: a shipment whose reference (the shipping API's
	// orderNo, a warehouse order's externalId) ends in it is refused by
	// the receiver at delivery (or collection) and goes back to the sender
	// (decisions §30).
	ScenarioReturn = ".RETURN"
	// ScenarioUncollected: a shipment to a pick-up point whose reference
	// ends in it waits there, is not collected, gets a reminder after 3
	// days and goes back to the sender after the 7-day holding period.
	ScenarioUncollected = ".NOPICK"
)

// The reasons the scenarios give.
const (
	ScenarioErrorReason  = "Test scenario " + ScenarioOrderError + ": the warehouse rejected the order (address could not be validated)."
	ScenarioCancelReason = "Test scenario " + ScenarioOrderCancel + ": cancelled for a delivery problem (the carrier does not serve the delivery address)."
)

// OrderScenario decides whether a new order of env with externalID is a
// test scenario, and if so the status and reason it gets instead of being
// allocated.
func OrderScenario(env Environment, externalID string) (status OrderStatus, reason string, ok bool) {
	if env != Test {
		return "", "", false
	}
	id := strings.ToUpper(externalID)
	switch {
	case strings.HasSuffix(id, ScenarioOrderError):
		return OrderError, ScenarioErrorReason, true
	case strings.HasSuffix(id, ScenarioOrderCancel):
		return OrderCancelled, ScenarioCancelReason, true
	}
	return "", "", false
}

// AlwaysOutOfStock reports whether a product of env never has stock for an
// order (ScenarioOutOfStock).
func AlwaysOutOfStock(env Environment, productExternalID string) bool {
	return env == Test && strings.HasSuffix(strings.ToUpper(productExternalID), ScenarioOutOfStock)
}

// SendingCodeScenario refuses a sending code for a tracking number of env
// that ends in ScenarioCodeRefused, with the answer the service gives a
// shipment that may not have one; nil otherwise.
func SendingCodeScenario(env Environment, trackingNumber string) error {
	if env != Test || !strings.HasSuffix(strings.ToUpper(trackingNumber), ScenarioCodeRefused) {
		return nil
	}
	return &Error{Code: EINVALID, Message: fmt.Sprintf("Shipment %s is not allowed for a sending code (test scenario: tracking numbers ending in %s).", trackingNumber, ScenarioCodeRefused),
		Fields: []FieldError{{Field: "trackingNumber", Message: "the shipment is not allowed for a sending code"}}}
}

// DeliveryParcels decides how many parcels each row of an order of env with
// externalID is packed in when it is Delivered, given the rows' quantities.
// The warehouse packs one parcel per row (decisions §7); a test-environment
// order ending in ScenarioSplit and N (2-9) gets N parcels per row, but
// never more parcels than units, so an integrator sees an order delivered
// in several parcels, each with its own tracking code.
func DeliveryParcels(env Environment, externalID string, quantities []Quantity) []int {
	n := 1
	id := strings.ToUpper(externalID)
	if i := len(id) - len(ScenarioSplit) - 1; env == Test && i >= 0 && id[i:len(id)-1] == ScenarioSplit {
		if d := id[len(id)-1]; d >= '2' && d <= '9' {
			n = int(d - '0')
		}
	}
	parcels := make([]int, len(quantities))
	for i, q := range quantities {
		parcels[i] = max(1, min(n, int(min(q, 9))))
	}
	return parcels
}

// TrackingScenario decides the tracking scenario of a shipment of env with
// reference: ScenarioReturn, ScenarioUncollected (only for a parcel to a
// pick-up point, toPoint) or "" for the ordinary journey. Production
// shipments never take one.
func TrackingScenario(env Environment, reference string, toPoint bool) string {
	if env != Test {
		return ""
	}
	ref := strings.ToUpper(reference)
	switch {
	case strings.HasSuffix(ref, ScenarioReturn):
		return ScenarioReturn
	case strings.HasSuffix(ref, ScenarioUncollected) && toPoint:
		return ScenarioUncollected
	}
	return ""
}
