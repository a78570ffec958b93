package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// Warehouse sales orders (spec 4.3, DESIGN §7), for service accounts with
// the merchant role.
func (s *Server) orderRoutes() {
	place, read := parcelgate.ActionPlaceOrders, parcelgate.ActionReadOrders
	s.handle("PUT /ecommerce/v3/order", s.ecom(place, s.createOrder))
	// The same operation under the path existing integrations use.
	s.handle("POST /ecommerce/v3/orders", s.ecom(place, s.createOrder))
	s.handle("GET /ecommerce/v3/orders", s.ecom(read, s.listOrders))
	s.handle("GET /ecommerce/v3/orders/{id}", s.ecom(read, onOrder(s.store.FindOrder)))
	s.handle("PUT /ecommerce/v3/orders/{id}", s.ecom(place, s.updateOrder))
	s.handle("POST /ecommerce/v3/orders/{id}", s.ecom(place, s.reopenOrder))
	s.handle("DELETE /ecommerce/v3/orders/{id}", s.ecom(place, onOrder(s.store.CancelOrder)))
	s.handle("PATCH /ecommerce/v3/orders/{id}/preferences", s.ecom(place, s.setOrderPreferences))
	s.handle("POST /admin/v1/orders/status", s.admin(s.setOrderStatus))
}

// readOrderRequest reads and checks an order body for the caller.
func readOrderRequest(r *http.Request, raw []byte) (*parcelgate.OrderRequest, error) {
	return parcelgate.ParseOrderRequest(raw, caller(r).BusinessID)
}

// readOptionalBody reads a lenient ecom JSON body whole; empty is allowed.
func readOptionalBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, jsonError(err)
	}
	b = bytes.TrimSpace(b)
	if len(b) > 0 {
		if err := requireJSON(r, false); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (s *Server) createOrder(w http.ResponseWriter, r *http.Request) error {
	raw, err := readBody(r)
	if err != nil {
		return err
	}
	req, err := readOrderRequest(r, raw)
	if err != nil {
		return err
	}
	o, err := s.store.CreateOrder(r.Context(), caller(r), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

// onOrder answers act on the caller's order of the path with the order.
func onOrder(act func(context.Context, *parcelgate.Caller, string) (*parcelgate.Order, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		o, err := act(r.Context(), caller(r), r.PathValue("id"))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, o)
		return nil
	}
}

// orderStatusChange is the part of a PUT /orders/{id} body that asks for a
// status: {"status":{"value":"Cancelled"}}, or "status":"Cancelled".
type orderStatusChange struct {
	Status json.RawMessage `json:"status"`
	Rows   json.RawMessage `json:"rows"`
}

func (c orderStatusChange) value() (string, bool) {
	if len(c.Status) == 0 || string(c.Status) == "null" {
		return "", false
	}
	var v struct {
		Value string `json:"value"`
	}
	if json.Unmarshal(c.Status, &v) == nil {
		return v.Value, true
	}
	var str string
	if json.Unmarshal(c.Status, &str) == nil {
		return str, true
	}
	return "", true
}

// updateOrder is PUT /orders/{id}: a status of Cancelled cancels the order;
// a body with rows sends new content for it, under the rules of a re-send
// (DESIGN §7).
func (s *Server) updateOrder(w http.ResponseWriter, r *http.Request) error {
	var raw json.RawMessage
	if err := decodeJSON(r, &raw, false); err != nil {
		return err
	}
	var change orderStatusChange
	json.Unmarshal(raw, &change) // a body that is no object is reported by ParseOrderRequest
	value, hasStatus := change.value()
	var o *parcelgate.Order
	var err error
	switch st, _ := parcelgate.ParseOrderStatus(value); {
	case hasStatus && st == parcelgate.OrderCancelled:
		o, err = s.store.CancelOrder(r.Context(), caller(r), r.PathValue("id"))
	case hasStatus && len(change.Rows) == 0:
		return &parcelgate.Error{Code: parcelgate.EINVALID, Message: "Validation failed: status.value: a client can only cancel an order.",
			Fields: []parcelgate.FieldError{{Field: "status.value", Message: "must be Cancelled: the warehouse sets every other status"}}}
	default:
		req, perr := readOrderRequest(r, raw)
		if perr != nil {
			return perr
		}
		o, err = s.store.UpdateOrder(r.Context(), caller(r), r.PathValue("id"), req)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

// reopenOrder is POST /orders/{id}: an order in Error is sent again, with
// the content of the body when it has rows, else as it was stored.
func (s *Server) reopenOrder(w http.ResponseWriter, r *http.Request) error {
	raw, err := readOptionalBody(r)
	if err != nil {
		return err
	}
	var req *parcelgate.OrderRequest
	var probe orderStatusChange
	if len(raw) > 0 && (json.Unmarshal(raw, &probe) != nil || len(probe.Rows) > 0) {
		if req, err = readOrderRequest(r, raw); err != nil {
			return err
		}
	}
	o, err := s.store.ReopenOrder(r.Context(), caller(r), r.PathValue("id"), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

func (s *Server) setOrderPreferences(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		AutoSubmit *bool `json:"autoSubmit"`
	}
	if err := decodeJSON(r, &body, false); err != nil {
		return err
	}
	if body.AutoSubmit == nil {
		return &parcelgate.Error{Code: parcelgate.EINVALID, Message: "Validation failed: autoSubmit is required.",
			Fields: []parcelgate.FieldError{{Field: "autoSubmit", Message: "is required (true or false)"}}}
	}
	o, err := s.store.SetOrderPreferences(r.Context(), caller(r), r.PathValue("id"), parcelgate.OrderPreferences{AutoSubmit: *body.AutoSubmit})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

// listOrders answers GET /orders (spec 4.3) with the page envelope.
func (s *Server) listOrders(w http.ResponseWriter, r *http.Request) error {
	pr, perr := parsePage(r, parcelgate.DefaultOrderPageSize)
	var p parcelgate.Problems
	if perr != nil {
		p.AddFields(parcelgate.ErrorFields(perr)...)
	}
	q, qv := parcelgate.OrderQuery{}, r.URL.Query()
	from, hasFrom := parseTime(qv, "updatedFrom", &p)
	mod, hasMod := parseTime(qv, "modifiedFromDate", &p)
	switch {
	case hasFrom && hasMod && !from.Equal(mod):
		p.Add("modifiedFromDate", "is another name of updatedFrom; give one of them")
	case hasFrom:
		q.UpdatedFrom = from
	case hasMod:
		q.UpdatedFrom = mod
	}
	q.UpdatedTo, _ = parseTime(qv, "updatedTo", &p)
	q.RefName, q.RefValue = strings.TrimSpace(qv.Get("refName")), qv.Get("refValue")
	switch {
	case q.RefName != "" && q.RefValue == "":
		p.Add("refValue", "is required with refName")
	case q.RefName == "" && q.RefValue != "":
		q.RefName = parcelgate.RefSO // spec 4.3: the own reference is SO
	}
	q.Warehouse = strings.TrimSpace(qv.Get("warehouseExternalId"))
	if v := qv.Get("status"); v != "" {
		for name := range strings.SplitSeq(v, ",") {
			st, ok := parcelgate.ParseOrderStatus(name)
			if !ok {
				p.Add("status", "%q is not an order status (Created, Submitted or Viewed, Delivered, Error, Cancelled)", strings.TrimSpace(name))
				continue
			}
			q.Statuses = append(q.Statuses, st)
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	res, err := s.store.ListOrders(r.Context(), caller(r), q, pr)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newPage(s, r, pr, res))
	return nil
}

type setOrderStatusRequest struct {
	Environment string `json:"environment"`
	BusinessID  string `json:"businessId"`
	ExternalID  string `json:"externalId"`
	Value       string `json:"value"`
	Reason      string `json:"reason"`
}

// setOrderStatus is the operator's hand on the warehouse (DESIGN §9): the
// only way orders move under --fulfillment manual.
func (s *Server) setOrderStatus(w http.ResponseWriter, r *http.Request) error {
	var req setOrderStatusRequest
	if err := decodeJSON(r, &req, true); err != nil {
		return err
	}
	var p parcelgate.Problems
	env := operatorTarget(&p, req.Environment, req.BusinessID, "externalId", req.ExternalID)
	to, ok := parcelgate.ParseOrderStatus(req.Value)
	switch {
	case req.Value == "":
		p.Add("value", "is required")
	case !ok:
		p.Add("value", "%q is not an order status", req.Value)
	case to == parcelgate.OrderCreated:
		p.Add("value", "must be Submitted, Delivered, Cancelled or Error: orders become Created only by being sent")
	}
	if len(req.Reason) > 500 {
		p.Add("reason", "must be at most 500 characters")
	}
	if err := p.Err(); err != nil {
		return err
	}
	o, err := s.store.SetOrderStatus(r.Context(), env, req.BusinessID, req.ExternalID, to, strings.TrimSpace(req.Reason))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}
