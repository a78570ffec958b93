package httpapi_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/pickup"
)

const reservationsPath = "/tracking/7/reservations/status"

// reservationErr asks reservations/status with a query that must fail
// with status, in the ecom error shape.
func reservationErr(t *testing.T, e *apitest.Env, tok, query string, status int) httpapi.EcomError {
	t.Helper()
	var eb httpapi.EcomError
	e.Do(apitest.Request{Method: "GET", Path: reservationsPath + "?" + query, Bearer: tok}).Expect(status).JSON(&eb)
	if eb.Status != status || eb.Message == "" {
		t.Errorf("%s: %+v", query, eb)
	}
	return eb
}

// reservations asks reservations/status as the organization's service
// account and returns every tracking number of the answer, checking each
// day's count is its numbers'.
func reservations(t *testing.T, e *apitest.Env, env parcelgate.Environment, bid, query string) (httpapi.ReservationStatuses, []string) {
	t.Helper()
	var ans httpapi.ReservationStatuses
	e.Do(apitest.Request{Method: "GET", Path: reservationsPath + "?" + query, Bearer: e.EcomToken(env, bid, parcelgate.RoleMerchant)}).Expect(200).JSON(&ans)
	var all []string
	for _, d := range ans.Reservations {
		if d.Count != len(d.TrackingNumbers) || !d.To.After(d.From) {
			t.Fatalf("%s: reservation %+v", query, d)
		}
		all = append(all, d.TrackingNumbers...)
	}
	return ans, all
}

// window is the reservation query of the postcodes over the next days of
// the environment's clock.
func window(e *apitest.Env, days int, postcodes ...string) url.Values {
	now := e.Clock.Now(parcelgate.Production)
	return url.Values{"from": {now.Add(-time.Hour).Format(time.RFC3339)}, "to": {now.Add(time.Duration(days) * 24 * time.Hour).Format(time.RFC3339)},
		"country": {"FI"}, "postcode": {strings.Join(postcodes, ",")}}
}

// the provider's Tracking API v7 page (Tracking API v7: GET /tracking/7/reservations/status
// ?from&to&country&postcode → {"reservations":[{from,to,count,trackingNumbers}]}),
// decisions §39: the caller's own parcels due at its postcodes in the
// window, one reservation a day: the pick-up point parcels at the point's
// postcode, the home parcel at the receiver's; product filters; the same
// answer once the parcels got there. Another tenant's parcels at the same
// point are never counted or listed, nor the test environment's.
func TestTrackingReservations(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop, other = "1234567-1", "7654321-2"
		point, _ := pickup.Network{}.FindPickupPoint(tampere(t))
		ans, gwTok := shipToTampere(t, e, shop, "SO-6001") // two parcels to the point
		homeBody := shippingBody("PO2104", "", 1)
		homeBody["shipment"].(map[string]any)["receiver"] = party("Matti", "Hervannan valtaväylä 1", "33720", "Tampere", "FI")
		home := createShipping(t, e, gwTok, homeBody, "")
		elsewhere := shippingBody("PO2104", "", 1)
		elsewhere["shipment"].(map[string]any)["receiver"] = party("Liisa", "Kauppakatu 1", "40100", "Jyväskylä", "FI")
		away := createShipping(t, e, gwTok, elsewhere, "")
		theirs, _ := shipToTampere(t, e, other, "SO-6001")
		mine := []string{ans.Parcels[0].ParcelNo, ans.Parcels[1].ParcelNo, home.Parcels[0].ParcelNo}

		if point.PostalCode == "33720" {
			t.Fatal("the point and the home parcel share a postcode")
		}
		q := window(e, 8, point.PostalCode, "33720")
		days, got := reservations(t, e, parcelgate.Production, shop, q.Encode())
		slices.Sort(got)
		want := slices.Clone(mine)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("reservations %v, want %v", got, want)
		}
		if len(days.Reservations) != 9 && len(days.Reservations) != 10 {
			t.Fatalf("%d days for an 8-day window", len(days.Reservations))
		}
		for _, n := range append(theirs.Parcels, away.Parcels[0]) {
			if slices.Contains(got, n.ParcelNo) {
				t.Fatalf("counted %s", n.ParcelNo)
			}
		}
		// The other tenant sees its own two only.
		if _, o := reservations(t, e, parcelgate.Production, other, q.Encode()); len(o) != 2 || !slices.Contains(o, theirs.Parcels[0].ParcelNo) || slices.Contains(o, mine[0]) {
			t.Fatalf("the other tenant's reservations: %v", o)
		}
		// The test environment is another world.
		if _, tst := reservations(t, e, parcelgate.Test, shop, q.Encode()); len(tst) != 0 {
			t.Fatalf("the test environment: %v", tst)
		}
		// Filters: the home parcel's postcode, its product; the provider's
		// product:service form.
		for query, want := range map[string]string{
			"postcode=33720":               home.Parcels[0].ParcelNo,
			"postcode=" + point.PostalCode: ans.Parcels[0].ParcelNo + "," + ans.Parcels[1].ParcelNo,
			"product=2104":                 home.Parcels[0].ParcelNo,
			"product=2103:3101":            "",
			"service=3196":                 "",
			"postcode=40100":               away.Parcels[0].ParcelNo,
			"postcode=40100&product=2103":  "",
			"postcode=40100&country=EE":    "",
		} {
			v := window(e, 8, point.PostalCode, "33720")
			extra, _ := url.ParseQuery(query)
			for k, vs := range extra {
				v[k] = vs
			}
			_, got := reservations(t, e, parcelgate.Production, shop, v.Encode())
			slices.Sort(got)
			w := strings.Split(want, ",")
			slices.Sort(w)
			if strings.Join(got, ",") != strings.Join(w, ",") && !(want == "" && len(got) == 0) {
				t.Errorf("%s: %v, want %s", query, got, want)
			}
		}
		// Ten days on, every parcel got there: the window still counts them.
		e.Clock.Advance(10 * 24 * time.Hour)
		_, after := reservations(t, e, parcelgate.Production, shop, q.Encode())
		slices.Sort(after)
		if !slices.Equal(after, want) {
			t.Fatalf("after delivery: %v, want %v", after, want)
		}
	})
}

// decisions §39: every parameter is checked and a problem named by it
// (400, the ecom shape, as the Tracking API's errors are); a token is
// required.
func TestTrackingReservationsRefusals(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.EcomToken(parcelgate.Production, "1234567-1", parcelgate.RoleMerchant)
		good := window(e, 2, "00100")
		for field, change := range map[string]func(url.Values){
			"from":     func(v url.Values) { v.Del("from") },
			"to":       func(v url.Values) { v.Set("to", "next week") },
			"country":  func(v url.Values) { v.Del("country") },
			"postcode": func(v url.Values) { v.Del("postcode") },
			"product":  func(v url.Values) { v.Set("product", "PO2103") },
			"service":  func(v url.Values) { v.Set("service", "3101,COD") },
		} {
			v := url.Values{}
			for k, vs := range good {
				v[k] = slices.Clone(vs)
			}
			change(v)
			eb := reservationErr(t, e, tok, v.Encode(), 400)
			if len(eb.Errors) != 1 || eb.Errors[0].Field != field || eb.Errors[0].Message == "" {
				t.Errorf("%s: %+v", field, eb.Errors)
			}
		}
		long := window(e, 32, "00100")
		if eb := reservationErr(t, e, tok, long.Encode(), 400); len(eb.Errors) != 1 || eb.Errors[0].Field != "to" {
			t.Errorf("a 32-day window: %+v", eb.Errors)
		}
		e.Do(apitest.Request{Method: "GET", Path: reservationsPath + "?" + good.Encode()}).Expect(401)
	})
}
