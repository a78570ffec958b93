package parcelgate

import (
	"slices"
	"time"
)

// The decisions that read the pick-up point network or the estimate model
// are handed them (PickupPointLookup, DeliveryEstimator); the root's tests
// hand them these small ones. The real network and model are package
// pickup's, tested there and over HTTP.

// testPoint is the one point of testNetwork: a post office in Tampere.
var testPoint = PickupPoint{ExternalID: "331003200", PupCode: "331003200", Name: "Posti, Tampere", Type: PointPostOffice,
	ServiceProvider: DeliveryOperator, StreetAddress: "Hämeenkatu 1", PostalCode: "33100", PostOffice: "TAMPERE", Country: "FI",
	ServiceCodes: []string{"2103", "2102"}, RoutingServiceCode: "3200", RoutingPostcode: "33100"}

// testNetwork is a network of testPoint, which a former 7-digit ID
// (3310001) also names; it is the nearest point of its services to every
// Finnish postal code.
type testNetwork struct{}

func (testNetwork) FindPickupPoint(id string) (PickupPoint, bool) {
	if id == testPoint.ExternalID || id == "3310001" {
		return testPoint, true
	}
	return PickupPoint{}, false
}

func (testNetwork) NearestPickupPoint(postalCode, serviceCode string) (PickupPoint, bool) {
	if IsFinnishPostalCode(postalCode) && slices.Contains(testPoint.ServiceCodes, serviceCode) {
		return testPoint, true
	}
	return PickupPoint{}, false
}

func (testNetwork) HoldsPickupPoints(country string) bool { return country == "FI" }

// testEstimator promises 2103 and 2104 from Finland: delivered at 16:00
// UTC on the second day after the hand-over.
type testEstimator struct{}

var testEstimates DeliveryEstimator = testEstimator{}

func (testEstimator) CheckEstimate(q *EstimateRequest, _ EstimateFields) error {
	if q.FromCountry != "FI" || (q.Product != "2103" && q.Product != "2104") {
		var p Problems
		p.Add("product", "not promised")
		return p.Err()
	}
	return nil
}

func (testEstimator) EstimateDeliveryTime(q EstimateRequest) time.Time {
	d := q.At.UTC().AddDate(0, 0, 2)
	return time.Date(d.Year(), d.Month(), d.Day(), 16, 0, 0, 0, time.UTC)
}

func (testEstimator) PlanGatewayEstimate(GatewayEstimate, string, string, string) (EstimateRequest, bool, error) {
	return EstimateRequest{}, false, nil
}
