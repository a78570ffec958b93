package seedgen

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// write fills every table, in foreign-key order.
func (g *model) write(ctx context.Context, out sink, rep *Report) error {
	steps := []struct {
		table string
		cols  []string
		rows  func(emit func(...any) error) error
	}{
		{"organizations", []string{"id", "environment", "business_id", "name", "contract_number", "address", "created_at"}, g.organizations},
		{"catalogs", []string{"id", "environment", "retailer_org_id", "external_id", "name", "catalog_type", "created_at"}, g.catalogs},
		{"catalog_suppliers", []string{"catalog_id", "supplier_org_id"}, g.catalogSuppliers},
		{"products", []string{"id", "environment", "supplier_org_id", "external_id", "ean_code", "status", "document", "deleted_at", "created_at", "modified_at"}, g.products},
		{"balances", []string{"id", "product_id", "catalog_id", "supplier_org_id", "retailer_org_id", "product_external_id", "quantity", "allocated", "wholesale_price", "currency", "eos_at", "modified_at"}, g.balanceRows},
		{"orders", []string{"id", "order_id", "environment", "org_id", "external_id", "own_id", "status", "status_at", "reason", "auto_submit", "allocated", "content_hash", "doc", "inserted_at", "updated_at", "ready_at", "order_date", "warehouse_status"}, g.orders},
		{"order_rows", []string{"order_pk", "line", "product_external_id", "warehouse_external_id", "quantity", "balance_id"}, g.orderRows},
		{"order_refs", []string{"org_id", "name", "value", "order_pk"}, g.orderRefs},
		{"order_history", []string{"order_pk", "status", "reason", "actor", "at"}, g.orderHistory},
		{"supplier_shipments", []string{"id", "shipment_id", "environment", "supplier_org_id", "retailer_org_id", "order_pk", "status", "doc", "inserted_at", "updated_at", "ready_at"}, g.supplierShipments},
		{"shipments", []string{"id", "org_id", "environment", "tracking_number", "service_code", "sender", "receiver", "status", "created_at", "delivered_at", "origin", "pickup_point", "additional_services", "contract_number", "reference", "print_media"}, g.shipments},
		{"parcels", []string{"shipment_id", "position", "org_id", "parcel_id", "package_code", "weight", "length", "width", "height", "locker_size", "contents"}, g.parcels},
		{"tracking_moves", []string{"id", "org_id", "environment", "shipment_id", "parcel_id", "status", "at"}, g.trackingMoves},
		{"codes", []string{"id", "environment", "code", "org_id", "tracking_number", "parcel_id", "created_at", "expires_at"}, g.codes},
		{"request_journal", []string{"id", "environment", "org_id", "business_id", "request_id", "at", "method", "path", "query", "route", "status", "latency_us", "request_body", "response_body"}, g.journal},
	}
	// The secondary indexes are built once the rows are in, not kept up
	// row by row while they go in: on PostgreSQL most of a COPY's time
	// into an indexed table is its indexes'. Whatever the migrations
	// made is found in the catalog, so a new index is treated the same;
	// triggers are not touched, so a counter they maintain stays exact.
	idx, err := out.secondaryIndexes(ctx)
	if err != nil {
		return fmt.Errorf("seed: indexes: %w", err)
	}
	for _, x := range idx {
		if err := out.exec(ctx, `DROP INDEX `+x.name); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	for _, s := range steps {
		t0 := time.Now()
		n, err := out.fill(ctx, s.table, s.cols, s.rows)
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		rep.Tables = append(rep.Tables, TableRows{Table: s.table, Rows: n, Took: time.Since(t0)})
		fmt.Fprintf(g.cfg.Log, "seed: %-20s %10d rows in %s\n", s.table, n, time.Since(t0).Round(time.Millisecond))
	}
	t0 := time.Now()
	for _, x := range idx {
		if err := out.exec(ctx, x.def); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	rep.Tables = append(rep.Tables, TableRows{Table: fmt.Sprintf("(%d indexes)", len(idx)), Took: time.Since(t0)})
	fmt.Fprintf(g.cfg.Log, "seed: %d secondary indexes built in %s\n", len(idx), time.Since(t0).Round(time.Millisecond))
	return nil
}

const env = string(parcelgate.Production)

func (g *model) organizations(emit func(...any) error) error {
	for _, o := range g.orgs {
		addr, _ := json.Marshal(o.profile)
		if err := emit(o.id, env, o.bid, o.name, fmt.Sprintf("C%06d", o.id), string(addr), g.startUS-int64(o.id)); err != nil {
			return err
		}
	}
	return nil
}

func (g *model) catalogs(emit func(...any) error) error {
	for _, o := range g.orgs {
		if err := emit(o.id, env, o.id, warehouseID, o.name+" warehouse", string(parcelgate.CatalogPosti), g.startUS); err != nil {
			return err
		}
	}
	for _, s := range g.shops {
		if err := emit(s.catalogID, env, g.orgs[s.retailer].id, shopID, g.orgs[s.retailer].name+" web shop", string(parcelgate.CatalogDropship), g.startUS); err != nil {
			return err
		}
	}
	return nil
}

func (g *model) catalogSuppliers(emit func(...any) error) error {
	for _, o := range g.orgs {
		if err := emit(o.id, o.id); err != nil {
			return err
		}
	}
	for _, s := range g.shops {
		for _, t := range s.suppliers {
			if err := emit(s.catalogID, g.orgs[t].id); err != nil {
				return err
			}
		}
	}
	return nil
}

var productNames = []string{"T-shirt", "Coffee mug", "Desk lamp", "Poster", "Notebook", "Backpack", "Water bottle", "Scarf", "Candle", "Phone case", "Socks", "Tea towel"}

func (g *model) products(emit func(...any) error) error {
	n := int(g.balances)
	for _, o := range g.orgs {
		for j := range o.products {
			pid := o.pFirst + int64(j) + 1
			ext, ean := productID(j), fmt.Sprintf("64%011d", pid)
			name := fmt.Sprintf("%s %d", productNames[pid%int64(len(productNames))], j+1)
			doc, _ := json.Marshal(map[string]any{
				"externalId": ext, "eanCode": ean, "unitOfMeasure": "PCS", "isFragile": pid%17 == 0,
				"measurements": map[string]any{"weight": 0.1 + float64(pid%40)/10, "length": 20 + pid%30, "width": 10 + pid%20, "height": 2 + pid%15},
				"descriptions": map[string]any{"en": map[string]any{"name": name}, "fi": map[string]any{"name": name}},
			})
			st := g.stamp(kindProduct, int(pid-1), n)
			if err := emit(pid, env, o.id, ext, ean, "ACTIVE", string(doc), int64(0), st, st); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *model) balanceRows(emit func(...any) error) error {
	n := int(g.balances)
	row := func(id, pid, catalog int64, supplier, retailer *org, ext string) error {
		r := g.rng(2, uint64(id))
		return emit(id, pid, catalog, supplier.id, retailer.id, ext, 5+r.Int64N(500), g.alloc[id], price(pid), "EUR", int64(0), g.stamp(kindBalance, int(id-1), n))
	}
	for _, o := range g.orgs {
		for j := range o.products {
			pid := o.pFirst + int64(j) + 1
			if err := row(pid, pid, o.id, o, o, productID(j)); err != nil {
				return err
			}
		}
	}
	for _, s := range g.shops {
		for t, sup := range s.suppliers {
			so := g.orgs[sup]
			for i, j := range s.sample[t] {
				if err := row(s.balFirst[t]+int64(i)+1, so.pFirst+int64(j)+1, s.catalogID, so, g.orgs[s.retailer], productID(j)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// orderDoc is the store's document of an order (sqlstore/order.go): the
// order as answered and the client's own services.
type orderDoc struct {
	*parcelgate.Order
	RequestedServices []parcelgate.AdditionalService `json:"requestedServices,omitempty"`
	WarehouseStatus   parcelgate.OrderStatus         `json:"warehouseStatus,omitempty"`
}

// shipmentDoc is the store's document of a dropshipping shipment
// (sqlstore/supplier_shipment.go).
type shipmentDoc struct {
	*parcelgate.DropshipShipment
	Lines []int `json:"lines"`
}

var reasons = map[parcelgate.OrderStatus]string{
	parcelgate.OrderCancelled: "Cancelled by the client",
	parcelgate.OrderError:     "Address could not be verified",
}

// orders writes the orders' rows, building each order's document as the
// store does (NewOrder, the allocation's prices, the dropshipping split,
// the delivery's tracking codes), and keeps the dropshipping shipments
// for their own table.
func (g *model) orders(emit func(...any) error) error {
	var shipments int
	for i := range g.cfg.Sizes.Orders {
		p := g.order(i)
		o := g.orgs[p.org]
		ext := g.externalID(p)
		req := &parcelgate.OrderRequest{ExternalID: ext, References: []parcelgate.OrderReference{{Name: parcelgate.RefSO, Value: fmt.Sprintf("SO-%d", i+1)}},
			DeliveryAddress: g.addrs[p.addr], ServiceCode: p.service, ClientSoftware: "seedgen"}
		for x, r := range p.rows {
			wh := warehouseID
			if r.shop {
				wh = shopID
			}
			req.Rows = append(req.Rows, parcelgate.OrderRowRequest{ExternalID: fmt.Sprint(x + 1), ExternalProductID: productID(r.product), ExternalWarehouseID: wh, Quantity: r.qty})
		}
		inserted := time.UnixMicro(p.insertUS).UTC()
		at := time.UnixMicro(p.stampUS).UTC()
		ord := parcelgate.NewOrder(o.o, req, inserted)
		ord.ID = serviceID(uint64(i), 'O', 16)
		var total float64
		for x, r := range p.rows {
			pid := g.orgs[r.supplier].pFirst + int64(r.product) + 1
			ord.Rows[x].WholesalePrice = priceFloat(pid)
			total += float64(r.qty) * priceFloat(pid)
		}
		ord.TotalWholeSalePrice = total
		ord.AdditionalServices = append([]parcelgate.AdditionalService{}, ord.RequestedServices...)
		if p.split() {
			supply := make([]parcelgate.OrderRowSupply, len(p.rows))
			svc := make([][]string, len(p.rows))
			for x, r := range p.rows {
				if r.shop {
					supply[x] = parcelgate.OrderRowSupply{SupplierOrg: g.orgs[r.supplier].id, SupplierID: g.orgs[r.supplier].bid}
					// The rows split are those that carry their supplier
					// (decisions §38), as Order.Apply sets it.
					ord.Rows[x].SupplierID = g.orgs[r.supplier].bid
				}
			}
			parts := parcelgate.SplitOrder(ord, o.o, supply, svc, func() string { shipments++; return serviceID(uint64(shipments), 'S', 20) }, inserted)
			// A shipment still Created or Submitted reads as Submitted
			// once its order has moved, the others as themselves
			// (Progress).
			sstatus := g.supplyStatus(p)
			rstatus := parcelgate.OrderStatus(sstatus)
			switch {
			case sstatus == parcelgate.DropshipCreated && p.status == parcelgate.OrderCreated:
				rstatus = parcelgate.OrderCreated
			case sstatus == parcelgate.DropshipCreated || sstatus == parcelgate.DropshipSubmitted:
				rstatus = parcelgate.OrderSubmitted
			}
			for _, part := range parts {
				for _, line := range part.Lines {
					ord.Rows[line].SupplierID = part.Shipment.ClientID
					ord.Rows[line].Status = parcelgate.OrderState{Value: rstatus, Timestamp: at}
				}
				part.Shipment.Status = parcelgate.DropshipState{Value: sstatus, Timestamp: at}
				doc, err := json.Marshal(shipmentDoc{DropshipShipment: part.Shipment, Lines: part.Lines})
				if err != nil {
					return err
				}
				g.supplyRows = append(g.supplyRows, []any{int64(len(g.supplyRows) + 1), part.Shipment.ShipmentID, env, part.SupplierOrg, o.id, int64(i + 1),
					string(sstatus), string(doc), p.insertUS, g.stamp(kindSupply, i, g.cfg.Sizes.Orders), p.insertUS})
			}
		}
		if p.status == parcelgate.OrderDelivered {
			ord.TrackingCodes = []string{}
			ord.DeliveryOperator = parcelgate.DeliveryOperator
			counts := p.parcels()
			k, w := 0, 0
			for x, r := range p.rows {
				if r.shop {
					continue
				}
				for range counts[w] {
					code := number(baseOrderParcel, int64(i)*8+int64(k))
					k++
					ord.Rows[x].TrackingCodes = append(ord.Rows[x].TrackingCodes, code)
					ord.TrackingCodes = append(ord.TrackingCodes, code)
				}
				w++
			}
		}
		// An order of warehouse and supplier rows has a warehouse part
		// (decisions §38), in the order's status here (Error is kept to
		// warehouse orders): its rows show it, and the engine's sweep
		// reads it from warehouse_status.
		var part parcelgate.OrderStatus
		if ord.MixedSupply() {
			part = p.status
			for x := range ord.Rows {
				if ord.Rows[x].SupplierID == "" {
					ord.Rows[x].Status = parcelgate.OrderState{Value: p.status, Timestamp: at}
				}
			}
		}
		ord.Status = parcelgate.OrderState{Value: p.status, Timestamp: at, Reason: reasons[p.status]}
		doc, err := json.Marshal(orderDoc{Order: ord, RequestedServices: ord.RequestedServices, WarehouseStatus: part})
		if err != nil {
			return err
		}
		allocated := 0
		if p.allocated() {
			allocated = 1
		}
		own := strings.TrimPrefix(ext, o.bid+"-")
		if err := emit(int64(i+1), ord.ID, env, o.id, ext, own, string(p.status), p.stampUS, reasons[p.status], 0, allocated, req.ContentHash(), string(doc), p.insertUS, p.stampUS, p.stampUS, ord.OrderDate.UnixMicro(), string(part)); err != nil {
			return err
		}
	}
	return nil
}

func (g *model) orderRows(emit func(...any) error) error {
	for i := range g.cfg.Sizes.Orders {
		p := g.order(i)
		for x, r := range p.rows {
			wh := warehouseID
			if r.shop {
				wh = shopID
			}
			if err := emit(int64(i+1), x, productID(r.product), wh, r.qty, r.balance); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *model) orderRefs(emit func(...any) error) error {
	for i := range g.cfg.Sizes.Orders {
		p := g.order(i)
		if err := emit(g.orgs[p.org].id, parcelgate.RefSO, fmt.Sprintf("SO-%d", i+1), int64(i+1)); err != nil {
			return err
		}
	}
	return nil
}

// orderHistory writes each order's moves: created (and allocated) by the
// client, then what the warehouse engine, the client or the operator (to
// Error, with a reason) did.
func (g *model) orderHistory(emit func(...any) error) error {
	for i := range g.cfg.Sizes.Orders {
		p := g.order(i)
		pk := int64(i + 1)
		if p.status == parcelgate.OrderError {
			if err := emit(pk, string(parcelgate.OrderCreated), "", "client", p.insertUS); err != nil {
				return err
			}
			if err := emit(pk, string(p.status), reasons[p.status], "operator", p.stampUS); err != nil {
				return err
			}
			continue
		}
		if err := emit(pk, string(parcelgate.OrderCreated), "", "client", p.insertUS); err != nil {
			return err
		}
		switch p.status {
		case parcelgate.OrderSubmitted:
			if err := emit(pk, string(p.status), "", "engine", p.stampUS); err != nil {
				return err
			}
		case parcelgate.OrderDelivered:
			if err := emit(pk, string(parcelgate.OrderSubmitted), "", "engine", (p.insertUS+p.stampUS)/2); err != nil {
				return err
			}
			if err := emit(pk, string(p.status), "", "engine", p.stampUS); err != nil {
				return err
			}
		case parcelgate.OrderCancelled:
			if err := emit(pk, string(p.status), reasons[p.status], "client", p.stampUS); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *model) supplierShipments(emit func(...any) error) error {
	for _, r := range g.supplyRows {
		if err := emit(r...); err != nil {
			return err
		}
	}
	g.supplyRows = nil
	return nil
}

// shipRec is a shipment with its parcels, as the shipment passes see it.
type shipRec struct {
	id        int64
	org       int
	other     int // index among the registered shipments, -1 for an order's
	tracking  string
	service   string
	receiver  string
	status    parcelgate.ShipmentStatus
	createdUS int64
	delivered int64
	origin    parcelgate.ShipmentOrigin
	reference string
	parcels   []parcelgate.Parcel
}

// eachShipment hands every shipment in the order of its id, which is the
// order of time: the shipments of delivered orders (one a parcel, made
// when the order was delivered) merged with the registered ones.
func (g *model) eachShipment(fn func(s *shipRec) error) error {
	others := max(0, g.cfg.Sizes.Shipments-g.ordersShipped)
	var pending []*shipRec
	i := 0
	nextOrder := func() {
		for pending == nil && i < g.cfg.Sizes.Orders {
			p := g.order(i)
			i++
			if p.status != parcelgate.OrderDelivered {
				continue
			}
			n := 0
			for _, c := range p.parcels() {
				n += c
			}
			for k := range n {
				code := number(baseOrderParcel, int64(p.i)*8+int64(k))
				s := &shipRec{org: p.org, other: -1, tracking: code, service: p.service, receiver: g.addrJSON[p.addr],
					status: parcelgate.ShipmentCreated, createdUS: p.stampUS, origin: parcelgate.OriginOrder, reference: g.externalID(p),
					parcels: []parcelgate.Parcel{{ParcelID: code}}}
				// Delivered a day to three after the warehouse sent it, as
				// nine in ten are once a week has passed; the rest stay
				// on their way (lost, held, returned: the long tail).
				if h := mix(uint64(p.i)*8 + uint64(k)); g.nowUS-p.stampUS > openWindow.Microseconds() && h%10 < 9 {
					s.status, s.delivered = parcelgate.ShipmentDelivered, p.stampUS+(24*time.Hour).Microseconds()+int64(h>>8)%(2*(24*time.Hour).Microseconds())
				}
				pending = append(pending, s)
			}
		}
	}
	var id int64
	j := 0
	for {
		nextOrder()
		var s *shipRec
		var otherAt int64
		if j < others {
			otherAt = g.startUS + int64(j)*(g.spanUS/int64(others))
		}
		switch {
		case len(pending) > 0 && (j >= others || pending[0].createdUS <= otherAt):
			s, pending = pending[0], pending[1:]
			if len(pending) == 0 {
				pending = nil
			}
		case j < others:
			s = g.registered(j, otherAt)
			j++
		default:
			return nil
		}
		id++
		s.id = id
		if err := fn(s); err != nil {
			return err
		}
	}
}

// registered is registered shipment j, made at createdUS.
func (g *model) registered(j int, createdUS int64) *shipRec {
	r := g.rng(3, uint64(j))
	s := &shipRec{org: g.pick(j, phiShip), other: j, tracking: number(baseShipment, int64(j)), service: services[r.IntN(len(services))],
		receiver: g.addrJSON[r.IntN(len(g.addrJSON))], status: parcelgate.ShipmentCreated, createdUS: createdUS, origin: parcelgate.OriginEDI,
		reference: fmt.Sprintf("REF-%d", j+1)}
	if g.nowUS-createdUS > openWindow.Microseconds() && r.IntN(10) < 8 {
		s.status, s.delivered = parcelgate.ShipmentDelivered, createdUS+(24*time.Hour).Microseconds()+r.Int64N(2*(24*time.Hour).Microseconds())
	}
	n := int(g.otherParcelsPerShip)
	if r.Float64() < g.otherParcelsPerShip-float64(n) {
		n++
	}
	for k := range max(1, n) {
		w := 0.2 + float64(r.IntN(200))/10
		p := parcelgate.Parcel{ParcelID: number(baseParcel, int64(j)*8+int64(k)), PackageCode: "PC", Weight: &w}
		if size, err := p.FitLocker(); err == nil {
			p.LockerSize = size
		}
		s.parcels = append(s.parcels, p)
	}
	return s
}

func nullable(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func (g *model) shipments(emit func(...any) error) error {
	return g.eachShipment(func(s *shipRec) error {
		o := g.orgs[s.org]
		return emit(s.id, o.id, env, s.tracking, s.service, o.sender, s.receiver, string(s.status), s.createdUS, s.delivered, string(s.origin), "", "", "", s.reference, "")
	})
}

func (g *model) parcels(emit func(...any) error) error {
	return g.eachShipment(func(s *shipRec) error {
		for k, p := range s.parcels {
			if err := emit(s.id, k, g.orgs[s.org].id, p.ParcelID, p.PackageCode, nullable(p.Weight), nullable(p.Length), nullable(p.Width), nullable(p.Height), string(p.LockerSize), ""); err != nil {
				return err
			}
		}
		return nil
	})
}

// trackingMoves: 3% of registered shipments had their first parcel moved
// by the operator, received and then in transport.
func (g *model) trackingMoves(emit func(...any) error) error {
	var id int64
	return g.eachShipment(func(s *shipRec) error {
		if s.other < 0 || mix(uint64(s.other))%33 != 0 {
			return nil
		}
		for k, st := range []parcelgate.ParcelStatus{parcelgate.StatusReceived, parcelgate.StatusInTransport} {
			at := s.createdUS + int64(k+1)*3*time.Hour.Microseconds()
			if at >= g.nowUS {
				break
			}
			id++
			if err := emit(id, g.orgs[s.org].id, env, s.id, s.parcels[0].ParcelID, string(st), at); err != nil {
				return err
			}
		}
		return nil
	})
}

// codes: a sending code (or, for about half, an errand code of the first
// parcel) for 4% of the undelivered registered shipments, held for 30
// days (the older ones expired, as the allocator finds them).
func (g *model) codes(emit func(...any) error) error {
	var id int64
	return g.eachShipment(func(s *shipRec) error {
		if s.other < 0 || s.status != parcelgate.ShipmentCreated || mix(uint64(s.other))%25 != 1 {
			return nil
		}
		if id >= parcelgate.CodeSpace/2 {
			return nil
		}
		code := fmt.Sprintf("%06X", (id*2654435761+12345)%parcelgate.CodeSpace)
		id++
		parcel := "" // a sending code names the shipment; an errand code a parcel
		if mix(uint64(s.other))%2 == 0 {
			parcel = s.parcels[0].ParcelID
		}
		return emit(id, env, code, g.orgs[s.org].id, s.tracking, parcel, s.createdUS, s.createdUS+parcelgate.DefaultCodeRetention.Microseconds())
	})
}

var journalRoutes = []struct {
	method, path, route string
	status              int
	body                string
}{
	{"GET", "/ecommerce/v3/orders", "/ecommerce/v3/orders", 200, ""},
	{"PUT", "/ecommerce/v3/order", "/ecommerce/v3/order", 200, `{"externalId":"W1","rows":[]}`},
	{"GET", "/ecommerce/v3/orders/W%d", "/ecommerce/v3/orders/{id}", 200, ""},
	{"GET", "/ecommerce/v3/orders/X%d", "/ecommerce/v3/orders/{id}", 404, ""},
	{"PUT", "/ecommerce/v3/inventory", "/ecommerce/v3/inventory", 400, `[{"product":{}}]`},
	{"GET", "/ecommerce/v3/inventory", "/ecommerce/v3/inventory", 200, ""},
	{"POST", "/api/v1/token", "/api/v1/token", 200, ""},
	{"GET", "/tracking/api/v1/trackingnumber/JJFI%d", "/tracking/api/v1/trackingnumber/{number}", 200, ""},
	{"GET", "/ecommerce/v3/shipments", "/ecommerce/v3/shipments", 503, ""},
}

// journal writes request journal entries, at most JournalPerTenant an
// organization (what the journal keeps: the newest calls of each), spread
// over the span; about 1% of them answered 5xx.
func (g *model) journal(emit func(...any) error) error {
	n := g.cfg.Sizes.Journal
	keep := make([]bool, n)
	held := make([]int, len(g.orgs))
	for x := n - 1; x >= 0; x-- {
		if k := g.pick(x, phiJournal); held[k] < parcelgate.JournalPerTenant {
			held[k]++
			keep[x] = true
		}
	}
	var id int64
	for x := range n {
		if !keep[x] {
			continue
		}
		o := g.orgs[g.pick(x, phiJournal)]
		r := g.rng(4, uint64(x))
		jr := journalRoutes[r.IntN(len(journalRoutes)-1)]
		if r.IntN(100) == 0 {
			jr = journalRoutes[len(journalRoutes)-1]
		}
		path := jr.path
		if strings.Contains(path, "%d") {
			path = fmt.Sprintf(path, r.IntN(1000)+1)
		}
		resp := `{"ok":true}`
		if jr.status >= 400 {
			resp = fmt.Sprintf(`{"status":%d,"message":"seeded failure"}`, jr.status)
		}
		at := g.startUS + int64(x)*(g.spanUS/int64(n))
		id++
		if err := emit(id, env, o.id, o.bid, fmt.Sprintf("seed-%016x", mix(uint64(x))), at, jr.method, path, "", jr.route, jr.status, 1000+r.Int64N(50_000), jr.body, resp); err != nil {
			return err
		}
	}
	return nil
}
