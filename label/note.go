package label

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/boombuler/barcode/code128"
	"github.com/go-pdf/fpdf"
)

// Note is a delivery note (packing slip): what a shipment holds, for the
// receiver to check against the order.
type Note struct {
	// Title heads the note; "Delivery note / Lähetyslista" when empty.
	Title string
	// OrderNumber is the buyer's order reference, printed and barcoded.
	OrderNumber string
	// ShipmentID is the shipment's number at the sender, if any.
	ShipmentID string
	Sender     Party
	Receiver   Party
	// DeliveryAddress is where the goods go when not the receiver's
	// address (a pick-up point, another address); nil otherwise.
	DeliveryAddress *Party
	ServiceCode     string
	ServiceName     string
	// TrackingNumbers are the tracking numbers of the shipment's parcels.
	TrackingNumbers []string
	Rows            []NoteRow
	Date            time.Time
}

// NoteRow is one product line of a delivery note.
type NoteRow struct {
	ItemID      string
	EAN         string
	Description string
	Ordered     float64
	Delivered   float64
}

// DeliveryNote writes n as a one- or multi-page A4 PDF.
func DeliveryNote(w io.Writer, n Note) error {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(n.Date)
	pdf.SetModificationDate(n.Date)
	pdf.SetCompression(false) // as Render: no 1 MB zlib writer a page
	pdf.SetMargins(15, 15, 15)
	pdf.SetAutoPageBreak(true, 15)
	pdf.SetCreator("parcelgate", true)
	title := n.Title
	if title == "" {
		title = "Delivery note / Lähetyslista"
	}
	pdf.SetTitle(title, true)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.AddPage()

	pdf.SetFont("Helvetica", "B", 16)
	pdf.CellFormat(110, 9, tr(title), "", 0, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 9)
	pdf.CellFormat(70, 9, n.Date.Format("02.01.2006"), "", 1, "R", false, 0, "")
	if n.OrderNumber != "" {
		if bc, err := code128.Encode(n.OrderNumber); err == nil {
			drawBars(pdf, bc, 125, pdf.GetY(), 70, 12)
		}
		pdf.SetFont("Helvetica", "", 10)
		pdf.CellFormat(110, 6, tr("Order / Tilaus: "+n.OrderNumber), "", 1, "L", false, 0, "")
	}
	if n.ShipmentID != "" {
		pdf.SetFont("Helvetica", "", 10)
		pdf.CellFormat(110, 6, tr("Shipment / Lähetys: "+n.ShipmentID), "", 1, "L", false, 0, "")
	}
	pdf.Ln(8)

	y := pdf.GetY()
	endL := block(pdf, tr, 15, y, 85, "FROM / LÄHETTÄJÄ", n.Sender, 10, true)
	endR := block(pdf, tr, 110, y, 85, "TO / VASTAANOTTAJA", n.Receiver, 10, true)
	pdf.SetY(max(endL, endR) + 4)
	if n.DeliveryAddress != nil {
		pdf.SetY(block(pdf, tr, 15, pdf.GetY(), 180, "DELIVERED TO / TOIMITUSOSOITE", *n.DeliveryAddress, 10, false) + 4)
	}
	pdf.SetFont("Helvetica", "", 10)
	if svc := strings.TrimSpace(n.ServiceCode + " " + n.ServiceName); svc != "" {
		pdf.CellFormat(180, 6, tr("Service / Palvelu: "+svc), "", 1, "L", false, 0, "")
	}
	if len(n.TrackingNumbers) > 0 {
		pdf.MultiCell(180, 6, tr("Tracking / Seuranta: "+strings.Join(n.TrackingNumbers, ", ")), "", "L", false)
	}
	pdf.Ln(4)

	cols := []struct {
		head  string
		w     float64
		align string
	}{{"Item", 35, "L"}, {"EAN", 32, "L"}, {"Description / Kuvaus", 73, "L"}, {"Ordered", 20, "R"}, {"Delivered", 20, "R"}}
	header := func() {
		pdf.SetFont("Helvetica", "B", 9)
		pdf.SetFillColor(230, 230, 230)
		for _, c := range cols {
			pdf.CellFormat(c.w, 7, tr(c.head), "1", 0, c.align, true, 0, "")
		}
		pdf.Ln(-1)
	}
	header()
	pdf.SetFont("Helvetica", "", 9)
	var ordered, delivered float64
	for _, r := range n.Rows {
		if pdf.GetY() > 270 {
			pdf.AddPage()
			header()
			pdf.SetFont("Helvetica", "", 9)
		}
		vals := []string{r.ItemID, r.EAN, r.Description, qty(r.Ordered), qty(r.Delivered)}
		for i, c := range cols {
			pdf.CellFormat(c.w, 6, fit(pdf, tr(vals[i]), c.w-2), "1", 0, c.align, false, 0, "")
		}
		pdf.Ln(-1)
		ordered += r.Ordered
		delivered += r.Delivered
	}
	pdf.SetFont("Helvetica", "B", 9)
	pdf.CellFormat(140, 7, tr("Total / Yhteensä"), "1", 0, "R", false, 0, "")
	pdf.CellFormat(20, 7, qty(ordered), "1", 0, "R", false, 0, "")
	pdf.CellFormat(20, 7, qty(delivered), "1", 1, "R", false, 0, "")
	if err := pdf.Error(); err != nil {
		return fmt.Errorf("label: delivery note: %w", err)
	}
	return pdf.Output(w)
}

func qty(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// fit cuts s, already in the font's single-byte encoding, to what fits
// width w at the current font, marking the cut with "..".
func fit(pdf *fpdf.Fpdf, s string, w float64) string {
	if pdf.GetStringWidth(s) <= w {
		return s
	}
	for len(s) > 0 && pdf.GetStringWidth(s+"..") > w {
		s = s[:len(s)-1]
	}
	return s + ".."
}
