package label_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate/label"
)

// tool returns the path of a command-line tool the test needs; without
// it the test is skipped, unless CI is set, when it fails: CI installs
// poppler-utils and zbar-tools (.ci/run).
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed (Debian: poppler-utils, zbar-tools)", name)
		}
		t.Skipf("%s is not installed (Debian: poppler-utils, zbar-tools); skipping", name)
	}
	return p
}

func sample(tn string) label.Parcel {
	return label.Parcel{
		TrackingNumber: tn, ServiceCode: "2103", ServiceName: "Postipaketti",
		AdditionalServices: []string{"3196"},
		Sender:             label.Party{Name: "Kauppa Oy", Address1: "Mannerheimintie 1", Zipcode: "00100", City: "Helsinki", Country: "FI"},
		Receiver:           label.Party{Name: "Matti Meikäläinen", Address1: "Hämeenkatu 5 B 12", Zipcode: "33100", City: "Tampere", Country: "FI", Phone: "+358401234567"},
		PickupPoint:        &label.Party{Name: "Posti, Tampere Keskusta", Address1: "Rautatienkatu 21", Zipcode: "33100", City: "Tampere", Country: "FI"},
		PickupPointID:      "331003300",
		Weight:             2.5, Dimensions: "30 x 20 x 10 cm", Contents: "Kirjoja", Index: 1, Count: 2,
		SendingCode: "A1B2C3", ErrandCode: "0F9E8D",
		Date: time.Date(2026, 3, 13, 10, 0, 0, 0, time.UTC),
	}
}

// render writes the parcels' labels to a file and returns its path.
func render(t *testing.T, m label.Media, parcels ...label.Parcel) string {
	t.Helper()
	var buf bytes.Buffer
	if err := label.Render(&buf, m, parcels); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
		t.Fatalf("not a PDF: %q", buf.Bytes()[:min(20, buf.Len())])
	}
	path := filepath.Join(t.TempDir(), "label.pdf")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// decode rasterizes the PDF at 200 dpi and returns every barcode zbarimg
// reads on its pages, as "CODE-128:content" lines.
func decode(t *testing.T, path string) []string {
	t.Helper()
	pdftoppm, zbarimg := tool(t, "pdftoppm"), tool(t, "zbarimg")
	dir := t.TempDir()
	if out, err := exec.Command(pdftoppm, "-r", "200", "-gray", "-png", path, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
	if len(pages) == 0 {
		t.Fatal("pdftoppm wrote no pages")
	}
	var codes []string
	for _, p := range pages {
		out, err := exec.Command(zbarimg, "-q", "--raw", "-Sdisable", "-Scode128.enable", p).Output()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 4 {
			continue // zbarimg: no barcode on this page
		}
		if err != nil {
			t.Fatalf("zbarimg %s: %v", filepath.Base(p), err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l != "" {
				codes = append(codes, l)
			}
		}
	}
	return codes
}

// The label opens in a standard reader, with the medium's page size, and
// its barcode reads back as the tracking number (a parcel label's one job).
func TestLabelOpensAndBarcodeDecodes(t *testing.T) {
	pdfinfo := tool(t, "pdfinfo")
	for _, tc := range []struct {
		media label.Media
		size  string // pdfinfo's "Page size" in pt
		pages string
	}{
		{label.LaserA5, "419.53 x 595.28 pts", "2"},
		{label.LaserA4, "595.28 x 841.89 pts", "2"},
		{label.Laser2A5, "841.89 x 595.28 pts", "1"},
		{label.Thermo225, "303.31 x 637.8 pts", "2"},
		{label.Thermo190, "303.31 x 538.58 pts", "2"},
	} {
		t.Run(string(tc.media), func(t *testing.T) {
			a, b := sample("JJFI64123450000012345"), sample("JJFI64123450000012346")
			b.Index = 2
			path := render(t, tc.media, a, b)
			out, err := exec.Command(pdfinfo, path).CombinedOutput()
			if err != nil {
				t.Fatalf("pdfinfo: %v\n%s", err, out)
			}
			info := string(out)
			if field(info, "Pages") != tc.pages || !strings.HasPrefix(field(info, "Page size"), tc.size) {
				t.Fatalf("pdfinfo:\n%s\nwant %s pages of %s", info, tc.pages, tc.size)
			}
			codes := decode(t, path)
			for _, want := range []string{a.TrackingNumber, b.TrackingNumber} {
				if !contains(codes, want) {
					t.Errorf("barcodes read %q, want %s among them", codes, want)
				}
			}
		})
	}
}

// The GS1-128 routing barcode carries AI 421 (ship-to postal code with
// ISO 3166 numeric country 246) of the pick-up point.
func TestLabelRoutingBarcode(t *testing.T) {
	codes := decode(t, render(t, label.LaserA5, sample("JJFI64123450000012345")))
	// zbar reads FNC1 as the GS1 flag and gives the element string.
	if !containsSuffix(codes, "42124633100") {
		t.Fatalf("barcodes read %q, want the (421) 246 33100 routing code", codes)
	}
}

// A tracking number Code 128 cannot hold is an error, not a blank label.
func TestLabelRefusesUnencodable(t *testing.T) {
	var buf bytes.Buffer
	p := sample("JJFI\u00e9")
	if err := label.Render(&buf, label.LaserA5, []label.Parcel{p}); err == nil {
		t.Fatal("rendered a label whose tracking number Code 128 cannot encode")
	}
	if err := label.Render(&buf, label.LaserA5, nil); err == nil {
		t.Fatal("rendered a PDF of no labels")
	}
}

func TestParseMedia(t *testing.T) {
	for in, want := range map[string]label.Media{"laser-a5": label.LaserA5, " THERMO-225 ": label.Thermo225, "laser-2a5": label.Laser2A5} {
		if m, ok := label.ParseMedia(in); !ok || m != want {
			t.Errorf("ParseMedia(%q) = %q, %v", in, m, ok)
		}
	}
	if _, ok := label.ParseMedia("laser-a3"); ok {
		t.Error("laser-a3 accepted")
	}
}

// The delivery note opens, and its order number barcode reads back.
func TestDeliveryNote(t *testing.T) {
	pdfinfo := tool(t, "pdfinfo")
	n := label.Note{
		OrderNumber: "SO-2026-0042", ShipmentID: "12345",
		Sender:      label.Party{Name: "Toimittaja Oy", Zipcode: "20100", City: "Turku"},
		Receiver:    label.Party{Name: "Matti Meikäläinen", Address1: "Hämeenkatu 5", Zipcode: "33100", City: "Tampere"},
		ServiceCode: "2103", ServiceName: "Postipaketti", TrackingNumbers: []string{"JJFI64123450000012345"},
		Date: time.Date(2026, 3, 13, 10, 0, 0, 0, time.UTC),
	}
	for i := range 60 { // more than a page of rows
		n.Rows = append(n.Rows, label.NoteRow{ItemID: "0109357-9-50" + string(rune('0'+i%10)), EAN: "6412345678901", Description: "Pitkä tuotekuvaus joka ei mahdu sarakkeeseen kokonaan", Ordered: 2, Delivered: 1})
	}
	var buf bytes.Buffer
	if err := label.DeliveryNote(&buf, n); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "note.pdf")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pdfinfo, path).CombinedOutput()
	if err != nil || field(string(out), "Pages") != "2" {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	if codes := decode(t, path); !contains(codes, "SO-2026-0042") {
		t.Fatalf("barcodes read %q, want the order number", codes)
	}
}

// field is the value of one "Name: value" line of pdfinfo's output.
func field(info, name string) string {
	for _, l := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && k == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func contains(codes []string, want string) bool {
	for _, c := range codes {
		if c == want {
			return true
		}
	}
	return false
}

func containsSuffix(codes []string, want string) bool {
	for _, c := range codes {
		if strings.HasSuffix(c, want) {
			return true
		}
	}
	return false
}

func BenchmarkRender(b *testing.B) {
	p := []label.Parcel{sample("JJFI64123450000012345")}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := label.Render(&buf, label.LaserA5, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/label")
}

// A shipment of ten parcels in one PDF: the per-label cost once the
// document's fixed cost (fonts, catalog) is shared.
func BenchmarkRender10(b *testing.B) {
	var ps []label.Parcel
	for i := range 10 {
		p := sample("JJFI6412345000001234" + string(rune('0'+i)))
		p.Index, p.Count = i+1, 10
		ps = append(ps, p)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := label.Render(&buf, label.LaserA5, ps); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10/1e3, "µs/label")
}

// A parcel number is written under its barcode in groups: a UPU S10
// number by its parts, digits in threes; a JJFI number in fours.
func TestTrackingNumberWritten(t *testing.T) {
	pdftotext := tool(t, "pdftotext")
	for tn, want := range map[string]string{
		"CP945652695FI":         "CP 945 652 695 FI",
		"JJFI64123450000012345": "JJFI 6412 3450 0000 1234 5",
	} {
		out, err := exec.Command(pdftotext, render(t, label.Thermo190, sample(tn)), "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), want) {
			t.Errorf("%s is not written as %q:\n%s", tn, want, out)
		}
	}
}
