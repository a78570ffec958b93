package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/jsonin"
)

// Warehouse sales orders (interface §4.3, decisions §7), for service accounts with
// the merchant role.
func (s *Server) orderRoutes() {
	// Each route's service decides who may act, before the input
	// (decisions §57): ask hands it what the handler could not read.
	create := func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.orders.CreateOrder(ctx, c, nil)
		return err
	}
	s.handle("PUT /ecommerce/v3/order", s.ecomReading(create, s.createOrder))
	// The same operation under the path existing integrations use.
	s.handle("POST /ecommerce/v3/orders", s.ecomReading(create, s.createOrder))
	s.handle("GET /ecommerce/v3/orders", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.answers.ListOrderAnswers(ctx, c, parcelgate.OrderQuery{}, parcelgate.PageRequest{}, orderJSON)
		return err
	}, s.listOrders))
	s.handle("GET /ecommerce/v3/orders/{id}", s.ecomService(s.getOrder))
	s.handle("PUT /ecommerce/v3/orders/{id}", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.orders.UpdateOrder(ctx, c, "", nil)
		return err
	}, s.updateOrder))
	s.handle("POST /ecommerce/v3/orders/{id}", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.orders.ReopenOrder(ctx, c, "", nil)
		return err
	}, s.reopenOrder))
	s.handle("DELETE /ecommerce/v3/orders/{id}", s.ecomService(onOrder(s.orders.CancelOrder)))
	s.handle("PATCH /ecommerce/v3/orders/{id}/preferences", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.orders.SetOrderPreferences(ctx, c, "", parcelgate.OrderPreferences{})
		return err
	}, s.setOrderPreferences))
	s.handle("POST /ecommerce/v3/orders/{id}/comments", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, _, err := s.orders.AddOrderComment(ctx, c, "", parcelgate.OrderComment{})
		return err
	}, s.addOrderComment))
	s.handle("DELETE /ecommerce/v3/orders/{id}/comments/{commentId}", s.ecomService(s.deleteOrderComment))
	s.handle("POST /admin/v1/orders/status", s.admin(s.setOrderStatus))
}

func (s *Server) createOrder(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	req, err := decodeOrderRequest(body, caller(r).BusinessID, s.pickups)
	if err != nil {
		return err
	}
	o, err := s.orders.CreateOrder(r.Context(), caller(r), req)
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

// updateOrder is PUT /orders/{id}: a status of Cancelled cancels the order;
// a body with rows sends new content for it, under the rules of a re-send
// (decisions §7).
func (s *Server) updateOrder(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var ob jsonin.Object[orderBody]
	if err := jsonin.DecodeLenient(body, &ob); err != nil {
		return err
	}
	// A status asked for, and rows (new content): a body that is no
	// object has neither, and orderRequest reports it.
	hasStatus, hasRows := ob.V.Status.asked, ob.V.Rows.Sent()
	var o *parcelgate.Order
	switch st, _ := parcelgate.ParseOrderStatus(ob.V.Status.value); {
	case hasStatus && st == parcelgate.OrderCancelled:
		o, err = s.orders.CancelOrder(r.Context(), caller(r), r.PathValue("id"))
	case hasStatus && !hasRows:
		return &parcelgate.Error{Code: parcelgate.EINVALID, Message: "Validation failed: status.value: a client can only cancel an order.",
			Fields: []parcelgate.FieldError{{Field: "status.value", Message: "must be Cancelled: the warehouse sets every other status"}}}
	default:
		req, perr := orderRequest(&ob, caller(r).BusinessID, s.pickups)
		if perr != nil {
			return perr
		}
		o, err = s.orders.UpdateOrder(r.Context(), caller(r), r.PathValue("id"), req)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

// reopenOrder is POST /orders/{id}: an order in Error or Cancelled is sent
// again (the warehouse plugin re-sends a cancelled shop order so), with
// the content of the body when it has rows, else as it was stored.
func (s *Server) reopenOrder(w http.ResponseWriter, r *http.Request) error {
	body, present, err := readOptionalBody(r)
	if err != nil {
		return err
	}
	var req *parcelgate.OrderRequest
	if present {
		var ob jsonin.Object[orderBody]
		if err := jsonin.DecodeLenient(body, &ob); err != nil {
			return err
		}
		if !ob.Set || ob.V.Rows.Sent() {
			if req, err = orderRequest(&ob, caller(r).BusinessID, s.pickups); err != nil {
				return err
			}
		}
	}
	o, err := s.orders.ReopenOrder(r.Context(), caller(r), r.PathValue("id"), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

// addOrderComment is POST /orders/{id}/comments: a note for the
// warehouse. A new comment is 201; one that replaces the comment with its
// externalId is 200. Either answers the comment as stored.
func (s *Server) addOrderComment(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	in, err := decodeOrderComment(body)
	if err != nil {
		return err
	}
	c, added, err := s.orders.AddOrderComment(r.Context(), caller(r), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if added {
		status = http.StatusCreated
	}
	writeJSON(w, status, c)
	return nil
}

// deleteOrderComment is DELETE /orders/{id}/comments/{commentId}, by the
// comment's ID or the client's externalId of it: 204.
func (s *Server) deleteOrderComment(w http.ResponseWriter, r *http.Request) error {
	if err := s.orders.DeleteOrderComment(r.Context(), caller(r), r.PathValue("id"), r.PathValue("commentId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) setOrderPreferences(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	auto, err := decodeOrderPreferences(body)
	if err != nil {
		return err
	}
	o, err := s.orders.SetOrderPreferences(r.Context(), caller(r), r.PathValue("id"), parcelgate.OrderPreferences{AutoSubmit: auto})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

// listOrders answers GET /orders (interface §4.3) with the page envelope.
// Every filter of the provider's Orders V3 is applied or refused, never
// ignored (decisions §37): a value that is none of its parameter's is 400
// naming the parameter, and so is a filter given twice.
func (s *Server) listOrders(w http.ResponseWriter, r *http.Request) error {
	pr, perr := parsePage(r, parcelgate.DefaultOrderPageSize)
	var p parcelgate.Problems
	if perr != nil {
		p.AddFields(parcelgate.ErrorFields(perr)...)
	}
	q, qv := parcelgate.OrderQuery{}, r.URL.Query()
	for _, name := range []string{"updatedFrom", "modifiedFromDate", "updatedTo", "from", "to", "refName", "refValue", "warehouseExternalId", "documentType"} {
		if len(qv[name]) > 1 {
			p.Add(name, "is given %d times; give it once", len(qv[name]))
		}
	}
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
	// The provider's from and to: the order date (decisions §37).
	q.OrderedFrom, _ = parseTime(qv, "from", &p)
	q.OrderedTo, _ = parseTime(qv, "to", &p)
	parcelgate.CheckOrderDates(&p, q.OrderedFrom, q.OrderedTo)
	if v := qv["documentType"]; len(v) > 0 && v[0] != "" {
		var ok bool
		if q.DocumentType, ok = parcelgate.ParseDocumentType(v[0]); !ok {
			p.Add("documentType", "must be SalesOrder or PurchaseOrder, not %q", v[0])
		}
	}
	q.RefName, q.RefValue = strings.TrimSpace(qv.Get("refName")), qv.Get("refValue")
	switch {
	case q.RefName != "" && q.RefValue == "":
		p.Add("refValue", "is required with refName")
	case q.RefName == "" && q.RefValue != "":
		q.RefName = parcelgate.RefSO // interface §4.3: the own reference is SO
	}
	q.Warehouse = strings.TrimSpace(qv.Get("warehouseExternalId"))
	// status=Created,Viewed, or status repeated: one list either way.
	if v := strings.Join(qv["status"], ","); v != "" {
		q.Statuses = parcelgate.ParseOrderStatusFilter(&p, "status", v)
	}
	if err := p.Err(); err != nil {
		return err
	}
	res, err := s.answers.ListOrderAnswers(r.Context(), caller(r), q, pr, orderJSON)
	if err != nil {
		return err
	}
	writePage(w, newPage(s, r, pr, rawItems(res)))
	return nil
}

type setOrderStatusRequest struct {
	Environment string `json:"environment"`
	BusinessID  string `json:"businessId"`
	ExternalID  string `json:"externalId"`
	Value       string `json:"value"`
	Reason      string `json:"reason"`
}

// setOrderStatus is the operator's hand on the warehouse (decisions §9): the
// only way orders move under --fulfillment manual.
func (s *Server) setOrderStatus(w http.ResponseWriter, r *http.Request) error {
	var req setOrderStatusRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	var p parcelgate.Problems
	env := operatorTarget(&p, req.Environment, req.BusinessID, "externalId", req.ExternalID)
	// The console reads its move form with the same ParseOrderMove.
	to, reason, err := parcelgate.ParseOrderMove(req.Value, req.Reason)
	p.AddFields(parcelgate.ErrorFields(err)...)
	if err := p.Err(); err != nil {
		return err
	}
	org, err := s.orgs.FindOrganization(r.Context(), parcelgate.EnvironmentOperator(env), req.BusinessID)
	if err != nil {
		return err
	}
	o, err := s.orders.SetOrderStatus(r.Context(), parcelgate.OperatorCaller(org), req.ExternalID, to, reason)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}
