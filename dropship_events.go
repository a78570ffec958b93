package parcelgate

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// A supplier's events and delivery options of a shipment (decisions §38).
// The provider lists POST /shipments/{id}/events and GET
// /shipments/{id}/options without their bodies: both shapes are INVENTED,
// as small as a well-made service needs.

// DropshipEvent is something a supplier reports about its shipment after
// or beside its status (a hand-over to the carrier, a delay, a parcel
// damaged in packing): kept with the shipment, in the order received, and
// shown to the supplier and to the retailer with it. INVENTED.
type DropshipEvent struct {
	// ID is the platform's, the event's number in its shipment (1, 2, ...).
	ID string `json:"id"`
	// ExternalID is the supplier's own ID of the event, when it gives one:
	// an event sent again with it is answered as it was (a retry).
	ExternalID string `json:"externalId,omitempty"`
	// Code names what happened, in the supplier's own words: 1-50 letters,
	// digits, '_' or '-' (e.g. HANDED_TO_CARRIER).
	Code        string `json:"code"`
	Description string `json:"description,omitempty"`
	// ParcelID names the parcel the event is about; empty: the shipment.
	ParcelID string `json:"parcelId,omitempty"`
	Location string `json:"location,omitempty"`
	// Timestamp is when it happened (the supplier's, else when received);
	// CreatedDate when the platform received it.
	Timestamp   time.Time `json:"timestamp"`
	CreatedDate time.Time `json:"createdDate"`
}

// DropshipEventInput is a supplier's event as posted (zero Timestamp:
// now).
type DropshipEventInput struct {
	ExternalID, Code, Description, ParcelID, Location string
	Timestamp                                         time.Time
}

// MaxShipmentEvents bounds the events of one shipment.
const MaxShipmentEvents = 100

// AddShipmentEvent decides a supplier's event on s at now (decisions §38):
// code is required (1-50 letters, digits, '_' or '-'); description at
// most 500 characters, location at most 100, externalId at most 100;
// parcelId, when given, names a parcel of s; timestamp, when given, is
// not later than now. Each problem is 400 naming its field. A Cancelled or
// Error shipment shipped nothing to report on (409); at most
// MaxShipmentEvents events (409 past it). An event whose externalId s
// already has is a retry: s is answered unchanged. It returns the
// shipment to store (s is not changed) and whether anything changed.
func AddShipmentEvent(s *DropshipShipment, in DropshipEventInput, now time.Time) (*DropshipShipment, bool, error) {
	var p Problems
	in.Code, in.ParcelID, in.ExternalID = strings.TrimSpace(in.Code), strings.TrimSpace(in.ParcelID), strings.TrimSpace(in.ExternalID)
	in.Description, in.Location = strings.TrimSpace(in.Description), strings.TrimSpace(in.Location)
	switch {
	case in.Code == "":
		p.Add("code", "is required: what happened, e.g. HANDED_TO_CARRIER")
	case !validEventCode(in.Code):
		p.Add("code", "must be 1-50 letters, digits, '_' or '-', not %q", in.Code)
	}
	if len(in.Description) > 500 {
		p.Add("description", "must be at most 500 characters")
	}
	if len(in.Location) > 100 {
		p.Add("location", "must be at most 100 characters")
	}
	if len(in.ExternalID) > 100 {
		p.Add("externalId", "must be at most 100 characters")
	}
	if in.ParcelID != "" && !slices.ContainsFunc(s.Consignment.Parcels, func(x ConsignmentParcel) bool { return x.ParcelID == in.ParcelID }) {
		p.Add("parcelId", "the shipment has no parcel %q (its parcels: %s)", in.ParcelID, parcelIDs(s.Consignment.Parcels))
	}
	if in.Timestamp.After(now) {
		p.Add("timestamp", "must not be later than now (%s)", now.Format(time.RFC3339))
	}
	if err := p.Err(); err != nil {
		return nil, false, err
	}
	if in.ExternalID != "" && slices.ContainsFunc(s.Events, func(e DropshipEvent) bool { return e.ExternalID == in.ExternalID }) {
		return s, false, nil
	}
	switch st := s.Status.Value; {
	case st == DropshipCancelled || st == DropshipError:
		return nil, false, Errorf(ECONFLICT, "Shipment %s is %s: it shipped nothing to report events on.", s.ShipmentID, st)
	case len(s.Events) >= MaxShipmentEvents:
		return nil, false, Errorf(ECONFLICT, "Shipment %s has %d events, the most a shipment keeps.", s.ShipmentID, MaxShipmentEvents)
	}
	at := in.Timestamp
	if at.IsZero() {
		at = now
	}
	out := cloneShipment(s)
	out.Events = append(slices.Clip(out.Events), DropshipEvent{ID: fmt.Sprint(len(s.Events) + 1), ExternalID: in.ExternalID, Code: in.Code, Description: in.Description,
		ParcelID: in.ParcelID, Location: in.Location, Timestamp: at.UTC(), CreatedDate: now})
	return out, true, nil
}

func validEventCode(s string) bool {
	if len(s) > 50 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}

// DropshipOptions is what GET /shipments/{id}/options answers: the
// delivery methods the supplier may give the shipment's parcels when it
// confirms (serviceCode with deliveryOperator) or splits. INVENTED.
type DropshipOptions struct {
	ShipmentID string `json:"shipmentId"`
	// DeliveryCountry is the country the shipment goes to (FI when its
	// address names none).
	DeliveryCountry string `json:"deliveryCountry"`
	// Open: the shipment is in progress; a shipment in a final status
	// changes method no more, and has no options.
	Open    bool             `json:"open"`
	Options []DeliveryOption `json:"options"`
}

// DeliveryOption is one delivery method of DropshipOptions.
type DeliveryOption struct {
	ServiceCode      string            `json:"serviceCode"`
	DeliveryOperator string            `json:"deliveryOperator"`
	Name             map[string]string `json:"name"`
	// PickupPoint: a parcel of it names its pick-up point (pickupPointId).
	PickupPoint        bool     `json:"pickupPoint"`
	AdditionalServices []string `json:"additionalServices"`
	// Parcels are the shipment's parcels that have this method now.
	Parcels []string `json:"parcels"`
}

// OptionsOf decides the delivery options of s (decisions §38): while it is
// in progress, every parcel service the provider carries to its delivery
// country (domestic services for Finland, international ones abroad), in
// code order, each directly (deliveryOperator Posti, serviceCode 2103) and
// via Unifaun (PO2103), with the parcels that have it now; none once s is
// final.
func OptionsOf(s *DropshipShipment) DropshipOptions {
	country := strings.ToUpper(strings.TrimSpace(s.Consignment.DeliveryAddress.Country))
	if country == "" {
		country = "FI"
	}
	out := DropshipOptions{ShipmentID: s.ShipmentID, DeliveryCountry: country, Open: !s.Status.Value.Final(), Options: []DeliveryOption{}}
	if !out.Open {
		return out
	}
	for _, operator := range []string{DeliveryOperator, "Unifaun"} {
		for _, code := range ShippingProducts() {
			prod, _ := ShippingProductOf(code)
			// The services the root's table says go to the delivery
			// country (decisions §39); a return goes the other way.
			if prod.Return || !prod.Goes(country) {
				continue
			}
			o := DeliveryOption{ServiceCode: code, DeliveryOperator: operator, PickupPoint: prod.PickupPoint, Parcels: []string{},
				Name:               map[string]string{"en": ServiceName(code, "en"), "fi": ServiceName(code, "fi"), "sv": ServiceName(code, "sv")},
				AdditionalServices: append([]string{}, prod.Additional...)}
			if operator != DeliveryOperator {
				o.ServiceCode = "PO" + code
			}
			for _, p := range s.Consignment.Parcels {
				if p.ServiceCode == o.ServiceCode && strings.EqualFold(p.DeliveryOperator, operator) {
					o.Parcels = append(o.Parcels, p.ParcelID)
				}
			}
			out.Options = append(out.Options, o)
		}
	}
	return out
}
