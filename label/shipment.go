package label

import (
	"strconv"

	"github.com/parcelgate/parcelgate"
)

// FromShipment is what each parcel's address label of shipment data sh
// shows: its parties, service (named in Finnish, as labels print it),
// pick-up point (point, nil for none: the caller finds it), the parcel's
// facts and the codes it holds now.
func FromShipment(sh *parcelgate.Shipment, codes parcelgate.ShipmentCodes, point *parcelgate.PickupPoint) []Parcel {
	party := func(a parcelgate.Address) Party {
		return Party{Name: a.Name, Address1: a.StreetAddress, Zipcode: a.PostalCode, City: a.PostOffice, Country: a.Country, Phone: a.Telephone, Email: a.Email}
	}
	var pickup *Party
	if pt := point; pt != nil {
		pickup = &Party{Name: pt.Name, Address1: pt.StreetAddress, Zipcode: pt.PostalCode, City: pt.PostOffice, Country: pt.Country}
	}
	out := make([]Parcel, len(sh.Parcels))
	for i, p := range sh.Parcels {
		lp := Parcel{
			TrackingNumber: p.ParcelID, ServiceCode: sh.ServiceCode, ServiceName: parcelgate.ServiceName(sh.ServiceCode, "fi"),
			AdditionalServices: sh.AdditionalServices, Sender: party(sh.Sender), Receiver: party(sh.Receiver),
			PickupPoint: pickup, Contents: p.Contents, Index: i + 1, Count: len(sh.Parcels),
			ErrandCode: codes.ErrandCodes[p.ParcelID], Reference: sh.Reference, Date: sh.CreatedAt,
		}
		if pickup != nil {
			lp.PickupPointID = sh.PickupPointID
		}
		if i == 0 {
			lp.SendingCode = codes.SendingCode
		}
		if p.Weight != nil {
			lp.Weight = *p.Weight
		}
		if p.Length != nil && p.Width != nil && p.Height != nil {
			f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
			lp.Dimensions = f(*p.Length) + " x " + f(*p.Width) + " x " + f(*p.Height) + " cm"
		}
		out[i] = lp
	}
	return out
}
