package label_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/label"
)

// The longest text the API accepts in an address field, a reference or a
// parcel's contents (maxAddressField in the root): the shipping API refuses
// more, so a label must lay out this much.
const maxField = 200

// long is a text of n bytes of words, with the letters of Finnish and
// Swedish names, as a long company name, street or city is.
func long(n int, words ...string) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[i%len(words)])
	}
	s := b.String()
	for len(s) > n { // cut on a rune boundary
		s = s[:len(s)-1]
	}
	return strings.TrimSpace(strings.ToValidUTF8(s, ""))
}

// unbroken is one word of n bytes: an e-mail address or a phone number
// has no space to wrap at.
func unbroken(n int, suffix string) string {
	return strings.Repeat("w", n-len(suffix)) + suffix
}

func worstParty(country string) label.Party {
	return label.Party{
		Name:     long(maxField, "Pohjois-Pohjanmaan", "Kuljetusliikkeiden", "Yhteistoimintaosuuskunta", "Åström", "WWW"),
		Address1: long(maxField, "Länsi-Uudenmaankatu", "123", "B", "45", "Teollisuusalueen", "Varastorakennus"),
		Address2: "",
		Zipcode:  long(maxField, "WWWWW", "99999"),
		City:     long(maxField, "Mäntyharju", "Hämeenkyrö", "Savitaipale", "Övermark"),
		Country:  country,
		Phone:    unbroken(maxField, "0"),
		Email:    unbroken(maxField, "@example.com"),
	}
}

// worst is a parcel of service code with every field the API takes at the
// longest it accepts: names, streets, cities, phone and e-mail of 200
// bytes, a pick-up point, every additional service any service takes, the
// longest service name in any language, 100 parcels, both codes.
func worst(t *testing.T, code string, allAdditional []string) label.Parcel {
	t.Helper()
	prod, ok := parcelgate.ShippingProductOf(code)
	if !ok {
		t.Fatalf("service %s has no shipping product", code)
	}
	name := ""
	for _, lang := range []string{"fi", "sv", "en"} {
		if n := parcelgate.ServiceName(code, lang); len(n) > len(name) {
			name = n
		}
	}
	country := "FI"
	if !prod.Domestic() {
		country = "SE"
	}
	// A pick-up point's postal code is a real one (the data set's), so
	// the routing barcode is printed too.
	pp := worstParty("FI")
	pp.Zipcode = "99999"
	return label.Parcel{
		TrackingNumber:     parcelgate.NewParcelNumber(prod),
		ServiceCode:        code,
		ServiceName:        name,
		AdditionalServices: allAdditional,
		Sender:             worstParty("FI"),
		Receiver:           worstParty(country),
		PickupPoint:        &pp,
		PickupPointID:      "999993200",
		Weight:             999.999, Dimensions: "1000 x 1000 x 1000 cm",
		Contents:    long(maxField, "Varaosia", "ja", "tarvikkeita", "WWW"),
		Reference:   unbroken(maxField, "1"),
		Index:       100,
		Count:       100,
		SendingCode: "WWWWWW", ErrandCode: "WWWWWWWW",
		Date: time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC),
	}
}

// Every service the shipping API takes (as the root lists them, so a
// service added there is checked too), on every medium, with the longest
// inputs the API accepts and with ordinary ones: no text of the rendered
// PDF overlaps another text or a barcode, and every text stays inside its
// label's frame, the page, and the band or box it is printed in. The boxes
// are poppler's (pdftotext -bbox-layout) and the PDF's own rectangles.
// The issue this answers: on laser-a5, 2103's name in the black band ran
// into the date and page number.
func TestLabelLayoutHasNoOverlaps(t *testing.T) {
	pdftotext := tool(t, "pdftotext")
	var allAdditional []string
	for _, code := range parcelgate.ShippingProducts() {
		prod, _ := parcelgate.ShippingProductOf(code)
		for _, a := range prod.Additional {
			if !slices.Contains(allAdditional, a) {
				allAdditional = append(allAdditional, a)
			}
		}
	}
	for _, code := range parcelgate.ShippingProducts() {
		for _, m := range label.Medias {
			t.Run(code+"/"+string(m), func(t *testing.T) {
				typical := sample("JJFI64123450000012345")
				typical.ServiceCode, typical.ServiceName = code, parcelgate.ServiceName(code, "fi")
				typical.Index, typical.Count = 1, 1
				w1, w2 := worst(t, code, allAdditional), worst(t, code, allAdditional)
				// The second has many more additional services than any
				// service takes today.
				w2.Index = 99
				for i := range 40 {
					w2.AdditionalServices = append(w2.AdditionalServices, strconv.Itoa(3100+i))
				}
				for name, parcels := range map[string][]label.Parcel{"typical": {typical}, "worst": {w1, w2}} {
					path := render(t, m, parcels...)
					for _, p := range checkLayout(t, pdftotext, path) {
						t.Errorf("%s: %s", name, p)
					}
					// LABEL_KEEP=dir keeps every PDF rendered here, to look
					// at (pdftoppm -png).
					if os.Getenv("LABEL_KEEP") != "" {
						keep := filepath.Join(os.Getenv("LABEL_KEEP"), code+"-"+string(m)+"-"+name+".pdf")
						if b, err := os.ReadFile(path); err == nil {
							_ = os.WriteFile(keep, b, 0o644)
						}
					}
				}
			})
		}
	}
}

// The check catches what it is for. A page drawn as the band was before
// decisions §41 (the name in a cell of 70% of the width, the date and
// parcel count right-aligned in the rest, neither fitted) fails it, and so
// does a text running out of the frame; and the renderer cuts a service
// name too long even for two lines rather than let it out of the band.
func TestCheckLayoutCatchesOverlap(t *testing.T) {
	pdftotext := tool(t, "pdftotext")
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "mm", Size: fpdf.SizeType{Wd: 148, Ht: 210}})
	pdf.SetCompression(false)
	pdf.SetAutoPageBreak(false, 0)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.Rect(2, 2, 144, 206, "D")
	pdf.SetFillColor(0, 0, 0)
	pdf.Rect(5, 5, 138, 12, "F")
	pdf.SetTextColor(255, 255, 255)
	pdf.SetFont("Helvetica", "B", 14)
	pdf.SetXY(6, 5)
	pdf.CellFormat(138*0.7, 12, tr("2103 "+parcelgate.ServiceName("2103", "fi")), "", 0, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 9)
	pdf.SetXY(5+138*0.7, 5)
	pdf.CellFormat(138*0.3-1, 12, "28.11.2026  1/2", "", 0, "R", false, 0, "")
	pdf.SetTextColor(0, 0, 0)
	pdf.SetFont("Helvetica", "", 12)
	pdf.Text(100, 50, "Hämeenkatu 5 B 12 Tampere")
	path := filepath.Join(t.TempDir(), "old.pdf")
	if err := pdf.OutputFileAndClose(path); err != nil {
		t.Fatal(err)
	}
	probs := strings.Join(checkLayout(t, pdftotext, path), "\n")
	for _, want := range []string{`"28.11.2026" [`, `leaves its label's frame`} {
		if !strings.Contains(probs, want) {
			t.Errorf("the check did not report %s; it said:\n%s", want, probs)
		}
	}
	if !strings.Contains(probs, "overlaps") {
		t.Errorf("the old band's overlap is not reported:\n%s", probs)
	}

	p := sample("JJFI64123450000012345")
	p.ServiceName = strings.Repeat("Postipaketti noutopisteeseen ", 20)
	if probs := checkLayout(t, pdftotext, render(t, label.LaserA5, p)); len(probs) > 0 {
		t.Fatalf("a name too long for the band: %v", probs)
	}
}

type box struct {
	x0, y0, x1, y1 float64
	text           string
}

func (b box) w() float64 { return b.x1 - b.x0 }
func (b box) h() float64 { return b.y1 - b.y0 }

// eps is how far, in points, a box may touch another: poppler's word boxes
// are the font's full height, so lines set close may meet at an edge.
const eps = 0.25

func (b box) intersects(o box) bool {
	return b.x0 < o.x1-eps && o.x0 < b.x1-eps && b.y0 < o.y1-eps && o.y0 < b.y1-eps
}

func (b box) inside(o box) bool {
	return b.x0 >= o.x0-eps && b.x1 <= o.x1+eps && b.y0 >= o.y0-eps && b.y1 <= o.y1+eps
}

func (b box) String() string {
	return fmt.Sprintf("%q [%.1f,%.1f–%.1f,%.1f]", b.text, b.x0, b.y0, b.x1, b.y1)
}

// page is what a rendered page holds: its words (poppler's boxes), its
// stroked frames, its filled bands (wide filled rectangles) and its
// barcodes (runs of narrow filled rectangles of one height).
type page struct {
	w, h     float64
	words    []box
	frames   []box
	bands    []box
	barcodes []box
}

// checkLayout reads the PDF at path and returns every flaw of its layout.
func checkLayout(t *testing.T, pdftotext, path string) []string {
	t.Helper()
	pages := readPages(t, pdftotext, path)
	var probs []string
	for i, pg := range pages {
		at := func(f string, a ...any) { probs = append(probs, fmt.Sprintf("page %d: ", i+1)+fmt.Sprintf(f, a...)) }
		if len(pg.words) == 0 {
			at("no text")
		}
		pageBox := box{x0: 0, y0: 0, x1: pg.w, y1: pg.h}
		// The label frames are the largest stroked rectangles; the
		// others (a code's box) sit inside one.
		var labels []box
		for _, f := range pg.frames {
			if f.w() > pg.w/3 && f.h() > pg.h/3 {
				labels = append(labels, f)
			}
		}
		if len(labels) == 0 {
			at("no label frame")
			continue
		}
		for _, wd := range pg.words {
			if !wd.inside(pageBox) {
				at("%s leaves the page", wd)
			}
			in := false
			for _, l := range labels {
				in = in || wd.inside(l)
			}
			if !in {
				at("%s leaves its label's frame", wd)
			}
			for _, f := range append(slices.Clone(pg.bands), pg.frames...) {
				if slices.Contains(labels, f) {
					continue
				}
				if wd.intersects(f) && !wd.inside(f) {
					at("%s runs out of the box %s it is printed in", wd, f)
				}
			}
		}
		for _, bc := range pg.barcodes {
			in := false
			for _, l := range labels {
				in = in || bc.inside(l)
			}
			if !in {
				at("barcode %s leaves its label's frame", bc)
			}
		}
		for _, p := range overlaps(pg.words, pg.barcodes) {
			at("%s", p)
		}
	}
	return probs
}

// overlaps reports every two words that overlap, every word on a barcode,
// and every two barcodes that overlap.
func overlaps(words, barcodes []box) []string {
	var probs []string
	for i, a := range words {
		for _, b := range words[i+1:] {
			if a.intersects(b) {
				probs = append(probs, fmt.Sprintf("%s overlaps %s", a, b))
			}
		}
		for _, bc := range barcodes {
			if a.intersects(bc) {
				probs = append(probs, fmt.Sprintf("%s overlaps the barcode %s", a, bc))
			}
		}
	}
	for i, a := range barcodes {
		for _, b := range barcodes[i+1:] {
			if a.intersects(b) {
				probs = append(probs, fmt.Sprintf("barcode %s overlaps barcode %s", a, b))
			}
		}
	}
	return probs
}

// readPages takes the words of each page from pdftotext -bbox-layout and
// the rectangles from the PDF's page contents, which the label package
// writes uncompressed (Render: SetCompression(false)), one content stream
// per page in page order.
func readPages(t *testing.T, pdftotext, path string) []page {
	t.Helper()
	out, err := exec.Command(pdftotext, "-bbox-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	var doc struct {
		Pages []struct {
			W     float64 `xml:"width,attr"`
			H     float64 `xml:"height,attr"`
			Words []struct {
				X0   float64 `xml:"xMin,attr"`
				Y0   float64 `xml:"yMin,attr"`
				X1   float64 `xml:"xMax,attr"`
				Y1   float64 `xml:"yMax,attr"`
				Text string  `xml:",chardata"`
			} `xml:"flow>block>line>word"`
		} `xml:"body>doc>page"`
	}
	dec := xml.NewDecoder(bytes.NewReader(out))
	dec.Strict = false
	dec.AutoClose = xml.HTMLAutoClose
	dec.Entity = xml.HTMLEntity
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("pdftotext output: %v\n%s", err, out[:min(len(out), 500)])
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	streams := contentStreams(raw)
	if len(streams) != len(doc.Pages) {
		t.Fatalf("%d content streams for %d pages", len(streams), len(doc.Pages))
	}
	pages := make([]page, len(doc.Pages))
	for i, dp := range doc.Pages {
		pg := page{w: dp.W, h: dp.H}
		for _, w := range dp.Words {
			pg.words = append(pg.words, box{x0: w.X0, y0: w.Y0, x1: w.X1, y1: w.Y1, text: w.Text})
		}
		var bars []box
		for _, r := range rects(streams[i], dp.H) {
			switch {
			case r.text == "S" || r.text == "B":
				pg.frames = append(pg.frames, r)
			case r.w() < 10: // a bar: a run of at most four modules
				bars = append(bars, r)
			default:
				pg.bands = append(pg.bands, r)
			}
		}
		pg.barcodes = groupBars(bars)
		pages[i] = pg
	}
	return pages
}

var streamRE = regexp.MustCompile(`(?s)stream\r?\n(.*?)endstream`)

func contentStreams(pdf []byte) [][]byte {
	var out [][]byte
	for _, m := range streamRE.FindAllSubmatch(pdf, -1) {
		if bytes.Contains(m[1], []byte(" re ")) || bytes.Contains(m[1], []byte("BT")) {
			out = append(out, m[1])
		}
	}
	return out
}

var rectRE = regexp.MustCompile(`(?m)^(-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) re ([fSB])\s*$`)

// rects are the rectangles of a content stream in pdftotext's
// coordinates (points, y down); text is the paint operator.
func rects(stream []byte, pageH float64) []box {
	var out []box
	for _, m := range rectRE.FindAllSubmatch(stream, -1) {
		var v [4]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(string(m[i+1]), 64)
		}
		x0, x1 := math.Min(v[0], v[0]+v[2]), math.Max(v[0], v[0]+v[2])
		ya, yb := pageH-v[1], pageH-(v[1]+v[3])
		out = append(out, box{x0: x0, x1: x1, y0: math.Min(ya, yb), y1: math.Max(ya, yb), text: string(m[5])})
	}
	return out
}

// groupBars joins bars of the same top and height that follow each other
// closely into one barcode's box.
func groupBars(bars []box) []box {
	var out []box
	for _, b := range bars {
		joined := false
		for i, g := range out {
			if math.Abs(g.y0-b.y0) < 0.01 && math.Abs(g.y1-b.y1) < 0.01 && b.x0 <= g.x1+20 && b.x1 >= g.x0-20 {
				out[i].x0, out[i].x1 = math.Min(g.x0, b.x0), math.Max(g.x1, b.x1)
				joined = true
				break
			}
		}
		if !joined {
			b.text = "barcode"
			out = append(out, b)
		}
	}
	return out
}
