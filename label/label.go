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
	"regexp"
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

// MediaNames lists the names of Medias as a refusal quotes them:
// "laser-a5, laser-a4, ...", in their order.
func MediaNames() string {
	names := make([]string, len(Medias))
	for i, m := range Medias {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

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

// drawLabel lays out one label in the box at (x, y) of size w × h: the
// service band at the top, the barcodes at the foot, and between them the
// sender, the receiver, the pick-up point, the parcel's facts and its
// codes. Every text is fitted to its place (wrapped onto the lines it may
// take, made smaller down to a floor, and cut with "…" only when even
// that does not hold it), and the middle is set smaller as a whole until
// it fits above the barcodes, so no text ever runs into another, into a
// barcode or out of the label, whatever the lengths the API accepts
// (decisions §41; label/layout_test.go checks it on the rendered PDF).
func drawLabel(pdf *fpdf.Fpdf, tr func(string) string, x, y, w, h float64, p Parcel) error {
	const pad = 5
	scale := w / 148 // fonts follow the label's width
	if scale < 0.75 {
		scale = 0.75
	}
	pdf.SetLineWidth(0.4)
	pdf.Rect(x+2, y+2, w-4, h-4, "D")
	ix, iw := x+pad, w-2*pad

	// The foot, laid out first so the middle knows where to stop: the
	// parcel number as Code 128 with the number written under it, and
	// above it the destination postal code as GS1-128 (AI 421:
	// ship-to postal code with ISO country).
	bottom := y + h - pad - 2
	barH := 22 * scale
	textH := 6 * scale
	trackY := bottom - textH - barH
	bc, err := code128.Encode(p.TrackingNumber)
	if err != nil {
		return fmt.Errorf("label: tracking number %q: %w", p.TrackingNumber, err)
	}
	drawBars(pdf, bc, ix+4, trackY, iw-8, barH)
	pdf.SetTextColor(0, 0, 0)
	line(pdf, fitLine(pdf, tr, spaced(p.TrackingNumber), "B", 11*scale, 7, iw), ix, trackY+barH, iw, textH, "C")
	footTop := trackY
	if zip := destinationZip(p); zip != "" {
		if gs1, err := code128.Encode(string(code128.FNC1) + "421246" + zip); err == nil {
			gy := trackY - 14*scale
			drawBars(pdf, gs1, ix+iw*0.2, gy, iw*0.6, 9*scale)
			line(pdf, fitLine(pdf, tr, "(421) 246 "+zip, "", 7*scale, 5, iw), ix, gy+9*scale, iw, 3.5*scale, "C")
			footTop = gy
		}
	}

	// Service band: code and name on the left (on two lines and smaller
	// when long), date and parcel count on the right, neither reaching
	// the other.
	top := y + pad
	bandH := 12 * scale
	pdf.SetFillColor(0, 0, 0)
	pdf.Rect(ix, top, iw, bandH, "F")
	pdf.SetTextColor(255, 255, 255)
	right := p.Date.Format("02.01.2006")
	if p.Count > 0 {
		right += "  " + strconv.Itoa(p.Index) + "/" + strconv.Itoa(p.Count)
	}
	rf := fitLine(pdf, tr, right, "", 9*scale, 6, iw/2)
	rw := rf.width(pdf)
	line(pdf, rf, ix+iw-1.5-rw, top, rw, bandH, "R")
	nameW := iw - 1.5 - rw - 4 - 1.5
	svc := strings.TrimSpace(p.ServiceCode + " " + p.ServiceName)
	nf := fitBlock(pdf, tr, svc, "B", 14*scale, 7, nameW, 2, bandH-1, 0.42)
	nh := float64(len(nf.lines)) * nf.lh
	for i := range nf.lines {
		line(pdf, nf.one(i), ix+1.5, top+(bandH-nh)/2+float64(i)*nf.lh, nameW, nf.lh, "L")
	}
	pdf.SetTextColor(0, 0, 0)

	// The middle: set at the largest size at which it fits above the
	// foot; at the smallest, what still does not fit is left off from
	// the end, the codes excepted (body.layout). Only a label of
	// 200-character fields comes near that.
	mid := body{x: ix, w: iw, top: top + bandH + 3*scale, limit: footTop - 2}
	for k := 1.0; ; k -= 0.05 {
		if k < 0.6 || mid.layout(pdf, tr, p, scale*k, false) {
			mid.layout(pdf, tr, p, scale*max(k, 0.6), true)
			break
		}
	}
	return pdf.Error()
}

// body lays out the middle of a label, from top down to limit.
type body struct {
	x, w, top, limit float64

	y       float64
	reserve float64 // kept free above limit for what comes last
	draw    bool
	full    bool // something did not fit above limit
}

// layout sets the middle at scale s, drawing it when draw is set, and
// reports whether it all fits above the limit.
func (b *body) layout(pdf *fpdf.Fpdf, tr func(string) string, p Parcel, s float64, draw bool) bool {
	b.y, b.draw, b.full = b.top, draw, false
	// The codes come last but are never the ones left off: what comes
	// before them stops short of their room.
	var codes []struct{ name, code string }
	for _, c := range []struct{ name, code string }{{"SENDING CODE / LÄHETYSTUNNUS", p.SendingCode}, {"ERRAND CODE / ASIOINTITUNNUS", p.ErrandCode}} {
		if c.code != "" {
			codes = append(codes, c)
		}
	}
	b.reserve = float64(len(codes)) * (7*s*0.55 + 7*s + 2*s)
	b.party(pdf, tr, "FROM / LÄHETTÄJÄ", p.Sender, 8*s, false)
	b.y += 2 * s
	b.party(pdf, tr, "TO / VASTAANOTTAJA", p.Receiver, 12*s, true)
	b.y += 2 * s
	if p.PickupPoint != nil {
		// The point's ID goes in the heading, where a long name cannot
		// cut it off.
		head := "PICK-UP POINT / NOUTOPISTE"
		if p.PickupPointID != "" {
			head += "  " + p.PickupPointID
		}
		b.party(pdf, tr, head, *p.PickupPoint, 9*s, true)
		b.y += 2 * s
	}

	// Parcel facts: weight, size and additional services on their own
	// line, what the parcel holds and the reference after them.
	var facts []string
	if p.Weight > 0 {
		facts = append(facts, strconv.FormatFloat(p.Weight, 'f', -1, 64)+" kg")
	}
	if p.Dimensions != "" {
		facts = append(facts, p.Dimensions)
	}
	if len(p.AdditionalServices) > 0 {
		facts = append(facts, "+ "+strings.Join(p.AdditionalServices, ", "))
	}
	if len(facts) > 0 {
		b.text(pdf, fitBlock(pdf, tr, strings.Join(facts, " · "), "", 8*s, 6, b.w, 2, 0, 0.45))
	}
	if p.Contents != "" {
		b.text(pdf, fitBlock(pdf, tr, p.Contents, "", 8*s, 6, b.w, 2, 0, 0.45))
	}
	if p.Reference != "" {
		b.text(pdf, fitBlock(pdf, tr, "Ref. "+p.Reference, "", 8*s, 6, b.w, 1, 0, 0.45))
	}
	if len(facts) > 0 || p.Contents != "" || p.Reference != "" {
		b.y += 2 * s
	}

	// Codes that replace a label at a counter or a locker, each in a box
	// under its name.
	b.reserve = 0
	for _, c := range codes {
		head := fitBlock(pdf, tr, c.name, "", 7*s, 5, b.w, 1, 0, 0.55)
		boxH := 7 * s
		if b.y+head.lh+boxH > b.limit {
			b.full = true
			continue
		}
		b.text(pdf, head)
		if b.draw {
			pdf.Rect(b.x, b.y, b.w, boxH, "D")
			f := fitLineFamily(pdf, fitted{family: "Courier", style: "B", size: 16 * s, lines: []string{tr(c.code)}}, b.w-4)
			line(pdf, f, b.x+2, b.y, b.w-4, boxH, "C")
		}
		b.y += boxH + 2*s
	}
	return !b.full
}

// party sets a headed address block: the name (on up to two lines, bold
// when bold), the street (two lines), postal code and city, a country
// other than Finland, phone and e-mail (a line each).
func (b *body) party(pdf *fpdf.Fpdf, tr func(string) string, head string, a Party, size float64, bold bool) {
	b.text(pdf, fitBlock(pdf, tr, head, "", 6.5*size/8, 5, b.w, 1, 0, 0.55))
	style := ""
	if bold {
		style = "B"
	}
	// A long name or street is made smaller only down to three quarters
	// of its size, then cut: a receiver's name must stay readable.
	small := max(size*0.85, 6)
	floor := func(sz float64) float64 { return max(sz*0.75, 6) }
	b.text(pdf, fitBlock(pdf, tr, a.Name, style, size, floor(size), b.w, 2, 0, 0.45))
	b.text(pdf, fitBlock(pdf, tr, strings.TrimSpace(a.Address1+" "+a.Address2), "", small, floor(small), b.w, 2, 0, 0.45))
	b.text(pdf, fitBlock(pdf, tr, strings.TrimSpace(a.Zipcode+" "+strings.ToUpper(a.City)), "", small, floor(small), b.w, 1, 0, 0.45))
	if c := strings.ToUpper(strings.TrimSpace(a.Country)); c != "" && c != "FI" {
		b.text(pdf, fitBlock(pdf, tr, c, "", small, floor(small), b.w, 1, 0, 0.45))
	}
	for _, v := range []string{a.Phone, a.Email} {
		b.text(pdf, fitBlock(pdf, tr, v, "", small, floor(small), b.w, 1, 0, 0.45))
	}
}

// text sets the lines of f at the current y, each only when it fits above
// the limit; the next text goes below them.
func (b *body) text(pdf *fpdf.Fpdf, f fitted) {
	for i := range f.lines {
		if b.y+f.lh > b.limit-b.reserve {
			b.full = true
			return
		}
		if b.draw {
			line(pdf, f.one(i), b.x, b.y, b.w, f.lh, "L")
		}
		b.y += f.lh
	}
}

// fitted is a text set to fit a width: its font, lines and line height.
type fitted struct {
	family, style string
	size, lh      float64 // pt, mm
	lines         []string
}

func (f fitted) one(i int) fitted { f.lines = f.lines[i : i+1]; return f }

func (f fitted) width(pdf *fpdf.Fpdf) float64 {
	pdf.SetFont(f.family, f.style, f.size)
	w := 0.0
	for _, l := range f.lines {
		w = max(w, pdf.GetStringWidth(l))
	}
	return w
}

// ptMM is one typographic point in mm.
const ptMM = 25.4 / 72

// fitBlock sets text (UTF-8; "" sets nothing) in Helvetica of style in at
// most maxLines lines of width w, each lead×size high (in mm per pt): at
// size if it fits, else smaller in half points down to minSize, where
// what still does not fit is cut with "…". With maxH > 0 the lines must
// also fit in that height.
func fitBlock(pdf *fpdf.Fpdf, tr func(string) string, text, style string, size, minSize, w float64, maxLines int, maxH, lead float64) fitted {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return fitted{}
	}
	s := tr(text)
	minSize = min(minSize, size)
	for sz := size; ; sz -= 0.5 {
		if sz < minSize {
			sz = minSize
		}
		f := fitted{family: "Helvetica", style: style, size: sz, lh: sz * lead}
		if maxH > 0 && f.lh*float64(maxLines) > maxH {
			f.lh = maxH / float64(maxLines)
		}
		pdf.SetFont(f.family, style, sz)
		f.lines = wrap(pdf, s, w)
		tall := maxH > 0 && float64(len(f.lines))*f.lh > maxH
		if (len(f.lines) <= maxLines && !tall) || sz <= minSize {
			if len(f.lines) > maxLines {
				rest := strings.Join(f.lines[maxLines-1:], " ")
				f.lines = append(f.lines[:maxLines-1], cut(pdf, rest, w))
			}
			if maxH > 0 && f.lh < sz*ptMM*1.02 {
				f.lh = sz * ptMM * 1.02 // never closer than the font is high
			}
			return f
		}
	}
}

// fitLine is a one-line fitBlock: a text that keeps its line, smaller if
// need be, and cut only below minSize.
func fitLine(pdf *fpdf.Fpdf, tr func(string) string, text, style string, size, minSize, w float64) fitted {
	return fitBlock(pdf, tr, text, style, size, minSize, w, 1, 0, 0.45)
}

// fitLineFamily refits a one-line f set in another font family.
func fitLineFamily(pdf *fpdf.Fpdf, f fitted, w float64) fitted {
	if len(f.lines) == 0 {
		return f
	}
	for f.size > 6 {
		pdf.SetFont(f.family, f.style, f.size)
		if pdf.GetStringWidth(f.lines[0]) <= w {
			return f
		}
		f.size -= 0.5
	}
	pdf.SetFont(f.family, f.style, f.size)
	f.lines[0] = cut(pdf, f.lines[0], w)
	return f
}

// wrap breaks s (in the font's single-byte encoding) into lines of width
// w at the current font, at spaces, and inside a word only when the word
// alone is wider than w.
func wrap(pdf *fpdf.Fpdf, s string, w float64) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Split(s, " ") {
		if cur != "" && pdf.GetStringWidth(cur+" "+word) <= w {
			cur += " " + word
			continue
		}
		if cur != "" {
			lines = append(lines, cur)
		}
		cur = word
		for pdf.GetStringWidth(cur) > w && len(cur) > 1 {
			n := len(cur) - 1
			for n > 1 && pdf.GetStringWidth(cur[:n]) > w {
				n--
			}
			lines = append(lines, cur[:n])
			cur = cur[n:]
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// ellipsis is "…" in the core fonts' encoding (cp1252).
const ellipsis = "\x85"

// cut shortens s to width w at the current font, ending it with "…".
func cut(pdf *fpdf.Fpdf, s string, w float64) string {
	if pdf.GetStringWidth(s) <= w {
		return s
	}
	for len(s) > 0 && pdf.GetStringWidth(s+ellipsis) > w {
		s = s[:len(s)-1]
	}
	return strings.TrimRight(s, " ") + ellipsis
}

// line writes the first line of f in the box at (x, y) of width w and
// height lh, aligned L, C or R, its baseline placed so that the letters
// sit in the middle of the box.
func line(pdf *fpdf.Fpdf, f fitted, x, y, w, lh float64, align string) {
	if len(f.lines) == 0 {
		return
	}
	pdf.SetFont(f.family, f.style, f.size)
	s := f.lines[0]
	tw := pdf.GetStringWidth(s)
	switch align {
	case "C":
		x += (w - tw) / 2
	case "R":
		x += w - tw
	}
	// Cap height and descender of Helvetica are about 0.72 and 0.21 of the
	// size: the baseline sits so both stay in the box.
	pdf.Text(x, y+lh/2+0.3*f.size*ptMM, s)
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

// s10 is a UPU S10 item number: two letters, eight digits and a check
// digit, the country.
var s10 = regexp.MustCompile(`^[A-Z]{2}[0-9]{9}[A-Z]{2}$`)

// spaced writes a tracking number as labels print it: a UPU S10 number
// as its parts with the digits in threes ("CP 945 652 695 FI"), any other
// in fours ("JJFI 6412 3450 …").
func spaced(s string) string {
	if s10.MatchString(s) {
		return s[:2] + " " + s[2:5] + " " + s[5:8] + " " + s[8:11] + " " + s[11:]
	}
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
