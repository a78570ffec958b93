package httpapi

import (
	"net/http"

	"github.com/parcelgate/parcelgate"
)

// getOrder answers GET /orders/{id} (spec 4.3) with the caller's order.
// The store hands back the encoded answer, rendered once per stored
// version of the order (see sqlstore.FindOrderAnswer): the most frequent
// read of the API writes out bytes instead of decoding and encoding the
// order each time.
func (s *Server) getOrder(w http.ResponseWriter, r *http.Request) error {
	body, err := s.store.FindOrderAnswer(r.Context(), caller(r), r.PathValue("id"), func(o *parcelgate.Order) ([]byte, error) {
		return encodeJSON(o)
	})
	if err != nil {
		return err
	}
	writeBody(w, http.StatusOK, body)
	return nil
}
