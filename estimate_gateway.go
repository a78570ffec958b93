package parcelgate

import "time"

// The gateway's estimates (POST /{version}/estimate, and the estimate
// extension of a pick-up point search; decisions §32): the provider's
// estimate object, answered by the estimate model of the estimation API
// (DeliveryEstimator.PlanGatewayEstimate and EstimateDeliveryTime). The
// model promises what it knows: a product of its promise table, from a
// Finnish postal code (given as such, or as the postal code of a pick-up
// point) to a postal code. A place given only by its GLN, a product the
// table lacks, or an origin abroad are no request errors, but nothing the
// model can promise: the estimate's time is null.

// EstimatePlace is an origin or destination of the gateway's estimate:
// a country and one of a postal code, a pick-up point (pupCode; the search
// extension's origin calls it pickuppointId) or a GLN.
type EstimatePlace struct {
	CountryCode, Postcode, PupCode, GLN string
}

// GatewayEstimate is the provider's estimate object.
type GatewayEstimate struct {
	Time                string
	Origin, Destination *EstimatePlace
	ProductCode         string
	AdditionalServices  []string
	// Phase is the context's logisticsPhase.event: PICKED_UP starts the
	// clock at a pick-up from the sender; anything else at a drop-off.
	Phase string
}

// GatewayEstimateTime is how the gateway writes an estimate's time t:
// RFC 3339 in UTC (2026-03-14T16:00:00Z).
func GatewayEstimateTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}
