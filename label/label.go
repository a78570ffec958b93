// Package label renders the printed documents of a shipment as PDF: the
// address label of each parcel, for the print media of the provider's
// shipping API (decisions §29), and the delivery note that travels with a
// warehouse or supplier shipment. PDF is written by github.com/go-pdf/fpdf
// and barcodes are encoded by github.com/boombuler/barcode; this package
// only lays them out. It knows nothing of storage or HTTP: callers hand it
// what to print.
package label

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/code128"
	"github.com/go-pdf/fpdf"
)

// Media is a print medium of the shipping API's printConfig.target1Media.
type Media string

// The media labels are rendered for. A laser medium is a sheet with one
// (laser-a5, laser-a4) or two (laser-2a5) labels; a thermo medium is a
// label roll 107 mm wide.
const (
	LaserA5   Media = "laser-a5"
	LaserA4   Media = "laser-a4"
	Laser2A5  Media = "laser-2a5"
	Thermo225 Media = "thermo-225"
	Thermo190 Media = "thermo-190"
)

// Medias lists every medium, in the order the docs give them.
var Medias = []Media{LaserA5, LaserA4, Laser2A5, Thermo225, Thermo190}

// ParseMedia reads a medium name, case-insensitively; false when it is
// none of Medias.
func ParseMedia(s string) (Media, bool) {
	m := Media(strings.ToLower(strings.TrimSpace(s)))
	return m, slices.Contains(Medias, m)
}

// sheet is the page of a medium and where its labels sit on it, in mm.
type sheet struct {
	w, h   float64
	labels [][2]float64 // top-left corner of each label on the page
	lw, lh float64      // label size
}

func (m Media) sheet() sheet {
	switch m {
	case LaserA4:
		return sheet{w: 210, h: 297, labels: [][2]float64{{31, 10}}, lw: 148, lh: 210}
	case Laser2A5:
		return sheet{w: 297, h: 210, labels: [][2]float64{{0, 0}, {148.5, 0}}, lw: 148.5, lh: 210}
	case Thermo225:
		return sheet{w: 107, h: 225, labels: [][2]float64{{0, 0}}, lw: 107, lh: 225}
	case Thermo190:
		return sheet{w: 107, h: 190, labels: [][2]float64{{0, 0}}, lw: 107, lh: 190}
	default: // LaserA5
		return sheet{w: 148, h: 210, labels: [][2]float64{{0, 0}}, lw: 148, lh: 210}
	}
}

// Party is a sender, a receiver or a pick-up point as printed.
type Party struct {
	Name     string
	Address1 string
	Address2 string
	Zipcode  string
	City     string
	Country  string
	Phone    string
	Email    string
}

// Parcel is what one parcel's address label shows.
type Parcel struct {
	// TrackingNumber is printed as a Code 128 barcode and in writing.
	TrackingNumber string
	// ServiceCode and ServiceName name the delivery service ("2103",
	// "Postipaketti").
	ServiceCode string
	ServiceName string
	// AdditionalServices are the codes of the shipment's additional
	// services.
	AdditionalServices []string
	Sender             Party
	Receiver           Party
	// PickupPoint is where the parcel is to be collected; PickupPointID its
	// ID. Both empty when it goes to the receiver's address.
	PickupPoint   *Party
	PickupPointID string
	// Weight in kg, 0 when not given; Dimensions as printed ("30 x 20 x 10
	// cm"), empty when not given.
	Weight     float64
	Dimensions string
	Contents   string
	// Index is the parcel's place in the shipment (1-based) of Count.
	Index, Count int
	// SendingCode and ErrandCode are printed when the parcel has one.
	SendingCode string
	ErrandCode  string
	// Reference is the sender's reference (an order number).
	Reference string
	// Date is the shipment's date; it also dates the PDF, so a label
	// renders to the same bytes every time.
	Date time.Time
}

// Render writes one PDF holding the address label of every parcel, laid
// out for medium m (LaserA5 when empty or unknown to ParseMedia: check the
// medium before). At least one parcel is required.
func Render(w io.Writer, m Media, parcels []Parcel) error {
	if len(parcels) == 0 {
		return fmt.Errorf("label: no parcels to render")
	}
	sh := m.sheet()
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "mm", Size: fpdf.SizeType{Wd: sh.w, Ht: sh.h}})
	pdf.SetCreationDate(parcels[0].Date)
	pdf.SetModificationDate(parcels[0].Date)
	// Uncompressed: a label's page is a few kB of text and rectangles
	// (5 kB instead of 3), and fpdf makes a new 1 MB zlib writer for
	// every compressed page, 13 times the rest of a label's garbage.
	pdf.SetCompression(false)
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetMargins(0, 0, 0)
	pdf.SetTitle("Address labels "+parcels[0].TrackingNumber, true)
	pdf.SetCreator("parcelgate", true)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	for i, p := range parcels {
		slot := i % len(sh.labels)
		if slot == 0 {
			pdf.AddPage()
		}
		at := sh.labels[slot]
		if err := drawLabel(pdf, tr, at[0], at[1], sh.lw, sh.lh, p); err != nil {
			return err
		}
	}
	return pdf.Output(w)
}

// drawLabel lays out one label in the box at (x, y) of size w × h.
func drawLabel(pdf *fpdf.Fpdf, tr func(string) string, x, y, w, h float64, p Parcel) error {
	const pad = 5
	scale := w / 148 // fonts follow the label's width
	if scale < 0.75 {
		scale = 0.75
	}
	pdf.SetLineWidth(0.4)
	pdf.Rect(x+2, y+2, w-4, h-4, "D")
	ix, iw := x+pad, w-2*pad
	cy := y + pad

	// Service band: code and name on the left, date and parcel count right.
	pdf.SetFillColor(0, 0, 0)
	pdf.Rect(ix, cy, iw, 12*scale, "F")
	pdf.SetTextColor(255, 255, 255)
	pdf.SetFont("Helvetica", "B", 14*scale)
	pdf.SetXY(ix+1, cy)
	pdf.CellFormat(iw*0.7, 12*scale, tr(strings.TrimSpace(p.ServiceCode+" "+p.ServiceName)), "", 0, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 9*scale)
	pdf.SetXY(ix+iw*0.7, cy)
	right := p.Date.Format("02.01.2006")
	if p.Count > 0 {
		right += "  " + strconv.Itoa(p.Index) + "/" + strconv.Itoa(p.Count)
	}
	pdf.CellFormat(iw*0.3-1, 12*scale, right, "", 0, "R", false, 0, "")
	pdf.SetTextColor(0, 0, 0)
	cy += 12*scale + 3

	// Sender, small.
	cy = block(pdf, tr, ix, cy, iw, "FROM / LÄHETTÄJÄ", p.Sender, 8*scale, false)
	cy += 2
	// Receiver, large.
	cy = block(pdf, tr, ix, cy, iw, "TO / VASTAANOTTAJA", p.Receiver, 12*scale, true)
	cy += 2
	if p.PickupPoint != nil {
		pp := *p.PickupPoint
		if p.PickupPointID != "" {
			pp.Name = strings.TrimSpace(pp.Name + " (" + p.PickupPointID + ")")
		}
		cy = block(pdf, tr, ix, cy, iw, "PICK-UP POINT / NOUTOPISTE", pp, 9*scale, true)
		cy += 2
	}

	// Parcel facts.
	pdf.SetFont("Helvetica", "", 8*scale)
	var facts []string
	if p.Weight > 0 {
		facts = append(facts, strconv.FormatFloat(p.Weight, 'f', -1, 64)+" kg")
	}
	if p.Dimensions != "" {
		facts = append(facts, p.Dimensions)
	}
	if p.Contents != "" {
		facts = append(facts, p.Contents)
	}
	if len(p.AdditionalServices) > 0 {
		facts = append(facts, "+ "+strings.Join(p.AdditionalServices, ", "))
	}
	if p.Reference != "" {
		facts = append(facts, "Ref. "+p.Reference)
	}
	if len(facts) > 0 {
		pdf.SetXY(ix, cy)
		pdf.MultiCell(iw, 4*scale, tr(strings.Join(facts, " · ")), "", "L", false)
		cy = pdf.GetY() + 2
	}

	// Codes that replace a label at a counter or a locker.
	for _, c := range []struct{ name, code string }{{"SENDING CODE / LÄHETYSTUNNUS", p.SendingCode}, {"ERRAND CODE / ASIOINTITUNNUS", p.ErrandCode}} {
		if c.code == "" {
			continue
		}
		pdf.SetFont("Helvetica", "", 7*scale)
		pdf.SetXY(ix, cy)
		pdf.CellFormat(iw, 4*scale, tr(c.name), "", 2, "L", false, 0, "")
		pdf.SetFont("Courier", "B", 16*scale)
		pdf.CellFormat(iw, 7*scale, c.code, "1", 2, "C", false, 0, "")
		cy = pdf.GetY() + 2
	}

	// The postal code of the destination as GS1-128 (AI 421: ship-to
	// postal code with ISO country), above the tracking number barcode at
	// the foot of the label.
	bottom := y + h - pad - 2
	barH := 22 * scale
	textH := 6 * scale
	trackY := bottom - textH - barH
	if zip := destinationZip(p); zip != "" {
		gs1, err := code128.Encode(string(code128.FNC1) + "421246" + zip)
		if err == nil && trackY-14*scale > cy {
			gy := trackY - 14*scale
			drawBars(pdf, gs1, ix+iw*0.2, gy, iw*0.6, 9*scale)
			pdf.SetFont("Helvetica", "", 7*scale)
			pdf.SetXY(ix, gy+9*scale)
			pdf.CellFormat(iw, 3.5*scale, "(421) 246 "+zip, "", 0, "C", false, 0, "")
		}
	}
	bc, err := code128.Encode(p.TrackingNumber)
	if err != nil {
		return fmt.Errorf("label: tracking number %q: %w", p.TrackingNumber, err)
	}
	drawBars(pdf, bc, ix+4, trackY, iw-8, barH)
	pdf.SetFont("Helvetica", "B", 11*scale)
	pdf.SetXY(ix, trackY+barH)
	pdf.CellFormat(iw, textH, spaced(p.TrackingNumber), "", 0, "C", false, 0, "")
	return pdf.Error()
}

// destinationZip is the postal code the parcel is routed to: the pick-up
// point's, else the receiver's; only Finnish five-digit codes, the ones
// the GS1 barcode is read for here.
func destinationZip(p Parcel) string {
	zip, country := p.Receiver.Zipcode, p.Receiver.Country
	if p.PickupPoint != nil && p.PickupPoint.Zipcode != "" {
		zip, country = p.PickupPoint.Zipcode, p.PickupPoint.Country
	}
	if (country != "" && !strings.EqualFold(country, "FI")) || len(zip) != 5 {
		return ""
	}
	for _, r := range zip {
		if r < '0' || r > '9' {
			return ""
		}
	}
	return zip
}

// block prints a headed address block and returns the y below it.
func block(pdf *fpdf.Fpdf, tr func(string) string, x, y, w float64, head string, a Party, size float64, bold bool) float64 {
	pdf.SetFont("Helvetica", "", 6.5*size/8)
	pdf.SetXY(x, y)
	pdf.CellFormat(w, size*0.45, tr(head), "", 2, "L", false, 0, "")
	style := ""
	if bold {
		style = "B"
	}
	lh := size * 0.45
	for i, line := range partyLines(a) {
		if i == 0 {
			pdf.SetFont("Helvetica", style, size)
		} else {
			pdf.SetFont("Helvetica", "", size*0.85)
		}
		pdf.SetX(x)
		pdf.CellFormat(w, lh, tr(line), "", 2, "L", false, 0, "")
	}
	return pdf.GetY()
}

func partyLines(a Party) []string {
	var lines []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, s)
		}
	}
	add(a.Name)
	add(a.Address1)
	add(a.Address2)
	add(strings.TrimSpace(a.Zipcode + " " + strings.ToUpper(a.City)))
	if c := strings.ToUpper(strings.TrimSpace(a.Country)); c != "" && c != "FI" {
		add(c)
	}
	add(strings.TrimSpace(strings.Join(nonEmpty(a.Phone, a.Email), "  ")))
	return lines
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// spaced groups a tracking number in fours, as labels print it.
func spaced(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// drawBars draws a one-dimensional barcode as filled rectangles, one per
// run of dark modules, scaled to fit width w (keeping each module the same
// width) and centred in it: vector bars stay sharp at any printer
// resolution. Quiet zones of ten modules are left on either side.
func drawBars(pdf *fpdf.Fpdf, bc barcode.Barcode, x, y, w, h float64) {
	b := bc.Bounds()
	n := b.Dx()
	module := w / float64(n+20)
	if module > 0.6 {
		module = 0.6
	}
	left := x + (w-module*float64(n))/2
	pdf.SetFillColor(0, 0, 0)
	for i := 0; i < n; {
		if !dark(bc, b.Min.X+i, b.Min.Y) {
			i++
			continue
		}
		j := i
		for j < n && dark(bc, b.Min.X+j, b.Min.Y) {
			j++
		}
		pdf.Rect(left+module*float64(i), y, module*float64(j-i), h, "F")
		i = j
	}
}

func dark(bc barcode.Barcode, x, y int) bool {
	r, g, b, _ := bc.At(x, y).RGBA()
	return r+g+b < 3*0x8000
}
