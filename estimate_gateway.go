package parcelgate

import (
	"regexp"
	"strings"
	"time"
)

// The gateway's estimates (POST /{version}/estimate, and the estimate
// extension of a pick-up point search; decisions §32): the provider's
// estimate object, answered by the estimate model of the estimation API
// (EstimateDeliveryTime). The model promises what it knows: a product of
// its promise table, from a Finnish postal code (given as such, or as the
// postal code of a pick-up point) to a postal code. A place given only by
// its GLN, a product the table lacks, or an origin abroad are no request
// errors, but nothing the model can promise: the estimate's time is null.

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

var (
	glnPattern         = regexp.MustCompile(`^[0-9]{13}$`)
	productCodePattern = regexp.MustCompile(`^[0-9A-Z]{2,10}$`)
	serviceCodePattern = regexp.MustCompile(`^[0-9A-Z]{2,10}$`)
)

// Plan checks e and makes it the model's request. prefix is the JSON path
// of the estimate object ("estimate." in POST /estimate,
// "extensions.estimate." in a search). pointPostcode, when not "", is the
// destination (the point a search extension estimates for). promise is
// false when the model cannot promise (see above); err holds every
// problem of the request, each named by its JSON path.
func (e GatewayEstimate) Plan(prefix, pointPostcode string, pupField string) (q EstimateRequest, promise bool, err error) {
	var p Problems
	at, ok := ParseEstimateTime(strings.TrimSpace(e.Time))
	switch {
	case strings.TrimSpace(e.Time) == "":
		p.Add(prefix+"time", "is required: when the parcel is handed over, as an ISO 8601 time with its offset")
	case !ok:
		p.Add(prefix+"time", "must be an ISO 8601 time with its offset, such as 2026-03-13T10:00:00Z, not %q", e.Time)
	}
	code := strings.ToUpper(strings.TrimSpace(e.ProductCode))
	switch {
	case code == "":
		p.Add(prefix+"product.code", "is required")
	case !productCodePattern.MatchString(code):
		p.Add(prefix+"product.code", "must be a product code such as 2103, not %q", e.ProductCode)
	}
	var services []string
	for _, s := range e.AdditionalServices {
		s = strings.ToUpper(strings.TrimSpace(s))
		if !serviceCodePattern.MatchString(s) {
			p.Add(prefix+"product.additionalServicesCodes", "%q is not an additional service code such as 3106", s)
		} else if s == SaturdayService() {
			// The one additional service the model counts.
			services = append(services, s)
		}
	}
	from, fromOK := resolvePlace(&p, prefix+"origin", e.Origin, pupField)
	to, toOK := EstimatePlace{CountryCode: "FI", Postcode: pointPostcode}, true
	if pointPostcode == "" {
		to, toOK = resolvePlace(&p, prefix+"destination", e.Destination, "pupCode")
	}
	if err := p.Err(); err != nil {
		return EstimateRequest{}, false, err
	}
	phase := PhaseDroppedOff
	if strings.EqualFold(strings.TrimSpace(e.Phase), PhasePickedUp) {
		phase = PhasePickedUp
	}
	q = EstimateRequest{FromPostcode: from.Postcode, FromCountry: from.CountryCode, ToPostcode: to.Postcode, ToCountry: to.CountryCode,
		Product: code, At: at, Phase: phase, Services: services}
	if _, known := Promise(code); !known || !fromOK || !toOK || q.FromCountry != "FI" {
		return q, false, nil
	}
	names := EstimateFields{FromPostcode: prefix + "origin.postcode", FromCountry: prefix + "origin.countryCode",
		ToPostcode: prefix + "destination.postcode", ToCountry: prefix + "destination.countryCode", Product: prefix + "product.code",
		Phase: prefix + "context.logisticsPhase.event", Services: prefix + "product.additionalServicesCodes"}
	if err := q.Validate(names); err != nil {
		return EstimateRequest{}, false, err
	}
	return q, true, nil
}

// resolvePlace checks a place (required; a country and exactly one of
// postcode, pupCode or gln) and returns it with a pick-up point read as
// its postal code. ok is false for a place given by GLN only: the model
// knows no GLNs.
func resolvePlace(p *Problems, field string, pl *EstimatePlace, pupField string) (EstimatePlace, bool) {
	if pl == nil {
		p.Add(field, "is required: countryCode and one of postcode, %s or gln", pupField)
		return EstimatePlace{}, false
	}
	out := EstimatePlace{CountryCode: strings.ToUpper(strings.TrimSpace(pl.CountryCode)), Postcode: strings.ToUpper(strings.TrimSpace(pl.Postcode)),
		PupCode: strings.TrimSpace(pl.PupCode), GLN: strings.TrimSpace(pl.GLN)}
	if !countryPattern.MatchString(out.CountryCode) {
		p.Add(field+".countryCode", "is required: a two-letter country code (ISO 3166), not %q", pl.CountryCode)
	}
	given := 0
	for _, v := range []string{out.Postcode, out.PupCode, out.GLN} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		p.Add(field, "give exactly one of postcode, %s or gln", pupField)
		return out, false
	}
	switch {
	case out.Postcode != "" && out.CountryCode == "FI" && !finnishPostalCode.MatchString(out.Postcode):
		p.Add(field+".postcode", "must be a Finnish postal code of 5 digits, not %q", out.Postcode)
	case out.Postcode != "" && !estimatePostcode.MatchString(out.Postcode):
		p.Add(field+".postcode", "must be a postal code of 2-10 letters, digits, spaces and dashes, not %q", out.Postcode)
	case out.PupCode != "":
		pt, ok := FindPickupPoint(out.PupCode)
		if !ok || pt.Country != out.CountryCode {
			p.Add(field+"."+pupField, "no pick-up point %q in %s", out.PupCode, out.CountryCode)
			return out, false
		}
		out.Postcode = pt.PostalCode
	case out.GLN != "":
		if !glnPattern.MatchString(out.GLN) {
			p.Add(field+".gln", "must be a GLN of 13 digits, not %q", out.GLN)
		}
		return out, false
	}
	return out, true
}

// GatewayEstimateTime is the answer's time of q: RFC 3339 in UTC, as the
// provider's gateway writes it (2026-03-14T16:00:00Z).
func GatewayEstimateTime(q EstimateRequest) string {
	return EstimateDeliveryTime(q).UTC().Format(time.RFC3339)
}
