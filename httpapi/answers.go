package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/parcelgate/parcelgate"
)

// getOrder answers GET /orders/{id} (interface §4.3) with the caller's order.
// The store hands back the encoded answer, encoded once per stored
// version of the order (see OrderAnswers): the most frequent
// read of the API writes out bytes instead of decoding and encoding the
// order each time.
func (s *Server) getOrder(w http.ResponseWriter, r *http.Request) error {
	body, err := s.answers.FindOrderAnswer(r.Context(), caller(r), r.PathValue("id"), orderJSON)
	if err != nil {
		return err
	}
	writeAnswer(w, http.StatusOK, body)
	return nil
}

// renderOrder is an order's answer, as GET /orders/{id} writes it and as
// an order list holds it (less the newline).
func renderOrder(o *parcelgate.Order) ([]byte, error) { return encodeJSON(o) }

// orderJSON is renderOrder as the encoding the store keeps answers of.
var orderJSON = parcelgate.OrderEncoding{Name: "httpapi.order.json", Encode: renderOrder}

// rawItems is a page of answers rendered by renderOrder, as the page's
// items: each without encodeJSON's newline, the bytes the page's encoder
// would write for the order (TestOrderListIsItsOrders).
func rawItems(res parcelgate.Page[[]byte]) parcelgate.Page[json.RawMessage] {
	out := parcelgate.Page[json.RawMessage]{Total: res.Total, Next: res.Next}
	if res.Items != nil {
		out.Items = make([]json.RawMessage, len(res.Items))
	}
	for i, b := range res.Items {
		out.Items[i] = bytes.TrimSuffix(b, []byte("\n"))
	}
	return out
}
