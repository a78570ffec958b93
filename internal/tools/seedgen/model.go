package seedgen

import (
	"encoding/base32"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/parcelgate/parcelgate"
)

// The distributions, in one place:
//
//   - organization k (from 0) weighs 1/k^0.9 among the others, which share
//     half of everything; organization 0 holds the other half. Orders,
//     shipments, journal entries and products go to organizations by
//     weight, along a low-discrepancy sequence, so each gets its share
//     exactly and spread over the months;
//   - every organization is a merchant with a warehouse catalog WH1
//     (catalog type Posti) stocked with its products;
//   - the first 1% (at least 2) are also suppliers, organization 0 among
//     them; the next 10% are retailers with a dropshipping catalog SHOP
//     open to organization 0 and one other supplier, and organization 0's
//     own SHOP to organization 1. A catalog takes a sample of each of its
//     suppliers' products, PerShop of them for a retailer of the
//     retailers' mean weight and in proportion to its weight otherwise
//     (at most all of them); products are drawn by popularity, a
//     supplier's product of popularity rank k (ranks scattered over its
//     products' IDs) weighing 1/(k+1)^0.9, so a few products are in every
//     catalog and about half in one to three;
//   - a quarter of a retailer's orders (but those in Error) carry a row of
//     its SHOP catalog, a dropshipping shipment of that row's supplier;
//   - the smallest organization (the load's small tenant) became a supplier
//     newSupplierWindow ago, of the first quarter of the retailers (at
//     least one): a row of their SHOP catalogs in an order since then is
//     its with probability ½, so it has a supplier's list of its own in
//     every status (the load compares its list with the big merchant's
//     at equal pages, decisions §75): at full size about 430 shipments,
//     51 Created, where the big merchant supplies 5,500;
//   - a shipment of a Submitted order is in any status of a shipment in
//     progress (Created to Shipping), its rows showing it as Progress
//     does; older orders' are Delivered or Cancelled with their order;
//   - orders of the last 7 days are open (Created, Submitted); older ones
//     are Delivered (88%), Cancelled (7%) or Error (5%), each with the
//     history of its moves; a delivered order has a shipment per parcel;
//   - the other shipments are registered shipment data of 1 to a few
//     parcels (about two a shipment in all), mostly delivered after a week;
//     3% have operator tracking moves, 4% of the undelivered a sending or
//     an errand code.

const (
	warehouseID = "WH1"
	shopID      = "SHOP"
	openWindow  = 7 * 24 * time.Hour
	// newSupplierWindow is how long the smallest organization has been a
	// supplier: long enough for shipments in every status, short enough
	// that it stays a small supplier.
	newSupplierWindow = 30 * 24 * time.Hour
	// stamp kinds: the low two bits of a stamp, so stamps of different
	// tables never meet and each table's are strictly increasing.
	kindOrder, kindBalance, kindSupply, kindProduct = 0, 1, 2, 3
)

type org struct {
	id       int64
	bid      string
	name     string
	weight   float64
	products int
	pFirst   int64 // id of its first product, less one
	shop     int   // index into shops, -1 for none
	supplier bool
	profile  parcelgate.Address
	sender   string // the profile as a shipment's sender, JSON
	o        *parcelgate.Organization
}

type shop struct {
	catalogID int64
	retailer  int
	suppliers []int
	// regular is how many of suppliers an order's row is drawn among; a
	// supplier after them (the new one) takes rows of recent orders only.
	regular  int
	sample   [][]int // each supplier's products in the catalog, by index, ascending
	balFirst []int64 // id of each supplier's first balance there, less one
}

type model struct {
	cfg                 Config
	orgs                []*org
	cum                 []float64 // cumulative weights
	shops               []*shop
	startUS, spanUS     int64
	nowUS               int64
	balances            int64 // balances in all
	addrs               []parcelgate.Address
	addrJSON            []string
	orderCount          []int
	statuses            []map[parcelgate.OrderStatus]int
	supplied            []map[parcelgate.DropshipStatus]int // each organization's dropshipping shipments as the supplier, by status (written by orders)
	shipCount           []int
	ordersShipped       int // shipments of delivered orders
	otherParcelsPerShip float64
	alloc               map[int64]int64 // balance id → allocated by open orders
	supplyRows          [][]any
}

var places = []struct{ postal, city string }{
	{"00100", "Helsinki"}, {"02100", "Espoo"}, {"33100", "Tampere"}, {"20100", "Turku"}, {"90100", "Oulu"},
	{"40100", "Jyväskylä"}, {"15100", "Lahti"}, {"70100", "Kuopio"}, {"28100", "Pori"}, {"65100", "Vaasa"},
	{"01510", "Vantaa"}, {"53100", "Lappeenranta"}, {"13100", "Hämeenlinna"}, {"80100", "Joensuu"}, {"96100", "Rovaniemi"},
}

var firstNames = []string{"Maija", "Matti", "Aino", "Juha", "Liisa", "Mikko", "Sanna", "Antti", "Laura", "Timo", "Emma", "Jukka"}
var lastNames = []string{"Meikäläinen", "Virtanen", "Korhonen", "Nieminen", "Mäkinen", "Hämäläinen", "Laine", "Heikkinen", "Koskinen", "Järvinen"}

func newModel(cfg Config) *model {
	s := cfg.Sizes
	g := &model{cfg: cfg, nowUS: micros(cfg.Now), spanUS: cfg.Span.Microseconds(), alloc: map[int64]int64{}}
	g.startUS = g.nowUS - g.spanUS
	// Organizations and their weights.
	h := 0.0
	for k := 1; k < s.Orgs; k++ {
		h += math.Pow(float64(k), -0.9)
	}
	bidNum := 2000000
	for k := range s.Orgs {
		w := 0.5
		if k > 0 {
			w = 0.5 * math.Pow(float64(k), -0.9) / h
		}
		var bid string
		for {
			bidNum++
			if d, ok := checkDigit(bidNum); ok {
				bid = fmt.Sprintf("%07d-%d", bidNum, d)
				break
			}
		}
		o := &org{id: int64(k + 1), bid: bid, weight: w, shop: -1, name: fmt.Sprintf("Seed Merchant %d Oy", k+1)}
		if k == 0 {
			o.name = "Seed Big Merchant Oy"
		}
		p := places[k%len(places)]
		o.profile = parcelgate.Address{ExternalID: bid, Name: o.name, StreetAddress: fmt.Sprintf("Teollisuuskatu %d", k%90+1), PostalCode: p.postal, PostOffice: p.city, Country: "FI", Telephone: "+358401234567", Email: fmt.Sprintf("shop%d@example.com", k+1)}
		o.products = max(5, int(math.Round(w*float64(s.Products))))
		o.o = &parcelgate.Organization{ID: o.id, Environment: parcelgate.Production, BusinessID: bid, Name: o.name, Address: &o.profile}
		sender := o.profile
		sender.ExternalID = ""
		b, _ := json.Marshal(sender)
		o.sender = string(b)
		g.orgs = append(g.orgs, o)
	}
	var pid int64
	g.cum = make([]float64, len(g.orgs))
	acc := 0.0
	for k, o := range g.orgs {
		o.pFirst = pid
		pid += int64(o.products)
		acc += o.weight
		g.cum[k] = acc
	}
	g.balances = pid // WH1 balances share their products' ids
	// Suppliers and dropshipping catalogs.
	suppliers := max(2, s.Orgs/100)
	retailers := max(2, s.Orgs/10)
	for k := range suppliers {
		g.orgs[k].supplier = true
	}
	var wr float64 // retailers' weight in all
	for r := suppliers; r < min(len(g.orgs)-1, suppliers+retailers); r++ {
		wr += g.orgs[r].weight
	}
	mean := wr / float64(max(1, min(len(g.orgs)-1, suppliers+retailers)-suppliers))
	pop := map[int][]float64{} // each supplier's products' shares of its popularity
	addShop := func(r int, sup []int, regular int) {
		sh := &shop{catalogID: int64(len(g.orgs) + len(g.shops) + 1), retailer: r, suppliers: sup, regular: regular}
		for _, t := range sup {
			if pop[t] == nil {
				pop[t] = popularity(g.orgs[t].products)
			}
			want := float64(s.PerShop) * g.orgs[r].weight / mean
			sample := g.sampleProducts(r, t, pop[t], want)
			sh.sample = append(sh.sample, sample)
			sh.balFirst = append(sh.balFirst, g.balances)
			g.balances += int64(len(sample))
		}
		g.orgs[r].shop = len(g.shops)
		g.shops = append(g.shops, sh)
	}
	addShop(0, []int{1}, 1)
	small := len(g.orgs) - 1
	for r := suppliers; r < min(len(g.orgs)-1, suppliers+retailers); r++ {
		sup := []int{0}
		if other := 1 + r%(suppliers-1); other != r {
			sup = append(sup, other)
		}
		regular := len(sup)
		if r < suppliers+max(1, retailers/4) {
			sup = append(sup, small)
			g.orgs[small].supplier = true
		}
		addShop(r, sup, regular)
	}
	// Delivery addresses.
	for i := range 512 {
		p := places[(i*7)%len(places)]
		a := parcelgate.Address{Name: firstNames[i%len(firstNames)] + " " + lastNames[(i/len(firstNames))%len(lastNames)],
			StreetAddress: fmt.Sprintf("Kotikatu %d", i%120+1), PostalCode: p.postal, PostOffice: p.city, Country: "FI",
			Telephone: fmt.Sprintf("+35840%07d", 1000000+i), Email: fmt.Sprintf("buyer%d@example.com", i)}
		b, _ := json.Marshal(a)
		g.addrs = append(g.addrs, a)
		g.addrJSON = append(g.addrJSON, string(b))
	}
	// What the passes need from every order beforehand: each
	// organization's counts, the shipments of delivered orders and the
	// stock open orders hold.
	g.orderCount = make([]int, len(g.orgs))
	g.shipCount = make([]int, len(g.orgs))
	g.statuses = make([]map[parcelgate.OrderStatus]int, len(g.orgs))
	g.supplied = make([]map[parcelgate.DropshipStatus]int, len(g.orgs))
	for k := range g.statuses {
		g.statuses[k] = map[parcelgate.OrderStatus]int{}
		g.supplied[k] = map[parcelgate.DropshipStatus]int{}
	}
	for i := range s.Orders {
		p := g.order(i)
		g.orderCount[p.org]++
		g.statuses[p.org][p.status]++
		if p.status == parcelgate.OrderDelivered {
			g.ordersShipped += len(p.parcels())
			g.shipCount[p.org] += len(p.parcels())
		}
		if p.allocated() {
			for _, r := range p.rows {
				g.alloc[r.balance] += r.qty
			}
		}
		for _, r := range p.rows {
			if r.shop {
				g.supplied[r.supplier][g.supplyStatus(p)]++
			}
		}
	}
	others := max(0, s.Shipments-g.ordersShipped)
	if others > 0 {
		g.otherParcelsPerShip = min(6, max(1, float64(2*s.Shipments-g.ordersShipped)/float64(others)))
	}
	for j := range others {
		g.shipCount[g.pick(j, phiShip)]++
	}
	return g
}

// popularity is the share of a supplier's n products each has of the
// retailers' choices: the product of rank k weighs 1/(k+1)^0.9, and the
// ranks are scattered over the products' IDs (a multiplicative
// permutation), so a page of a supplier's products, in ID order, holds
// popular and unpopular ones alike.
func popularity(n int) []float64 {
	step := 7919
	for gcd(step, n) != 1 {
		step++
	}
	p := make([]float64, n)
	var sum float64
	for j := range n {
		k := (j * step) % n
		p[j] = math.Pow(float64(k+1), -0.9)
		sum += p[j]
	}
	for j := range p {
		p[j] /= sum
	}
	return p
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// sampleProducts draws retailer r's sample of supplier t's products,
// about want of them: product j is in it with probability
// min(1, want × its share), so a popular product is in most catalogs
// and an unpopular one in few. At least one product, so every catalog
// has something of each of its suppliers.
func (g *model) sampleProducts(r, t int, share []float64, want float64) []int {
	rng := g.rng(5, uint64(r)<<20|uint64(t))
	var sample []int
	best := 0
	for j, p := range share {
		if p > share[best] {
			best = j
		}
		if rng.Float64() < want*p {
			sample = append(sample, j)
		}
	}
	if len(sample) == 0 {
		sample = append(sample, best)
	}
	return sample
}

// checkDigit is the Finnish business ID check digit of the seven digits
// n, false when the number is never issued (remainder 1).
func checkDigit(n int) (int, bool) {
	weights := [7]int{7, 9, 10, 5, 8, 4, 2}
	sum := 0
	for i := 6; i >= 0; i-- {
		sum += (n % 10) * weights[i]
		n /= 10
	}
	switch r := sum % 11; r {
	case 0:
		return 0, true
	case 1:
		return 0, false
	default:
		return 11 - r, true
	}
}

// Steps of the low-discrepancy sequences that hand objects to
// organizations: irrational, a different one per kind of object.
const (
	phiOrder   = 0.6180339887498949
	phiShip    = 0.4142135623730951
	phiJournal = 0.7320508075688772
)

// pick is the organization of object i of a kind: the weights'
// inverse at the i-th point of the kind's sequence.
func (g *model) pick(i int, phi float64) int {
	u := math.Mod(float64(i+1)*phi, 1)
	k, _ := slices.BinarySearch(g.cum, u)
	return min(k, len(g.orgs)-1)
}

// stamp is the change stamp of object idx of n of a kind: spread over
// the span, strictly increasing with idx, never equal to another kind's.
func (g *model) stamp(kind int64, idx, n int) int64 {
	step := g.spanUS / int64(n)
	return g.startUS&^3 + (int64(idx)*step)&^3 + kind
}

func (g *model) rng(kind, i uint64) *rand.Rand {
	return rand.New(rand.NewPCG(g.cfg.Seed^kind*0x9E3779B97F4A7C15, i))
}

type planRow struct {
	supplier int // organization whose product it is
	product  int // index among that organization's products
	qty      int64
	balance  int64
	shop     bool
}

// orderPlan is order i as decided, before any document is built.
type orderPlan struct {
	i        int
	org      int
	status   parcelgate.OrderStatus
	stampUS  int64 // updated_at and status_at
	insertUS int64
	addr     int
	service  string
	rows     []planRow
}

var services = []string{"2103", "2103", "2103", "2104", "2102"}

func (g *model) order(i int) *orderPlan {
	r := g.rng(1, uint64(i))
	k := g.pick(i, phiOrder)
	p := &orderPlan{i: i, org: k, stampUS: g.stamp(kindOrder, i, g.cfg.Sizes.Orders), addr: r.IntN(len(g.addrs)), service: services[r.IntN(len(services))]}
	if age := g.nowUS - p.stampUS; age < openWindow.Microseconds() {
		p.status = parcelgate.OrderCreated
		p.insertUS = p.stampUS
		if r.IntN(3) > 0 && age > 2*time.Hour.Microseconds() {
			p.status = parcelgate.OrderSubmitted
			p.insertUS = p.stampUS - r.Int64N(2*time.Hour.Microseconds())
		}
	} else {
		switch x := r.IntN(100); {
		case x < 88:
			p.status = parcelgate.OrderDelivered
		case x < 95:
			p.status = parcelgate.OrderCancelled
		default:
			p.status = parcelgate.OrderError
		}
		p.insertUS = p.stampUS - time.Hour.Microseconds() - r.Int64N(72*time.Hour.Microseconds())
	}
	o := g.orgs[k]
	for range 1 + r.IntN(3) {
		u := r.Float64()
		j := int(float64(o.products) * u * u) // a few products sell most
		p.rows = append(p.rows, planRow{supplier: k, product: j, qty: 1 + r.Int64N(3), balance: o.pFirst + int64(j) + 1})
	}
	// An order the operator moved to Error was allocated, and split, as
	// any; its dropshipping shipments would be the suppliers' to end, so
	// the seed keeps Error to warehouse orders.
	if o.shop >= 0 && r.IntN(4) == 0 && p.status != parcelgate.OrderError {
		sh := g.shops[o.shop]
		t := r.IntN(sh.regular)
		i := r.IntN(len(sh.sample[t]))
		qty := 1 + r.Int64N(2)
		// The new supplier's share, drawn apart so every other row stays
		// as it was.
		if n := g.rng(6, uint64(p.i)); len(sh.suppliers) > sh.regular && g.nowUS-p.stampUS < newSupplierWindow.Microseconds() && n.IntN(2) == 0 {
			t = sh.regular
			i = n.IntN(len(sh.sample[t]))
		}
		p.rows = append(p.rows, planRow{supplier: sh.suppliers[t], product: sh.sample[t][i], qty: qty, balance: sh.balFirst[t] + int64(i) + 1, shop: true})
	}
	return p
}

// supplyStatus is the status of order p's dropshipping shipments: those
// of a Submitted order in any status of a shipment in progress (drawn
// apart from the order, so the rest of it is drawn as before), the others
// in their order's (Error is kept to warehouse orders).
func (g *model) supplyStatus(p *orderPlan) parcelgate.DropshipStatus {
	switch p.status {
	case parcelgate.OrderSubmitted:
		return parcelgate.DropshipStatuses[g.rng(7, uint64(p.i)).IntN(6)]
	case parcelgate.OrderDelivered:
		return parcelgate.DropshipDelivered
	case parcelgate.OrderCancelled:
		return parcelgate.DropshipCancelled
	}
	return parcelgate.DropshipCreated
}

// allocated reports whether the order holds stock: open orders do.
func (p *orderPlan) allocated() bool {
	return p.status == parcelgate.OrderCreated || p.status == parcelgate.OrderSubmitted
}

// split reports whether the order has dropshipping rows, which became
// shipments when it was allocated.
func (p *orderPlan) split() bool {
	return slices.ContainsFunc(p.rows, func(r planRow) bool { return r.shop })
}

// parcels are the parcel counts of the warehouse rows of a delivered
// order, as the warehouse decides them.
func (p *orderPlan) parcels() []int {
	var q []parcelgate.Quantity
	for _, r := range p.rows {
		if !r.shop {
			q = append(q, parcelgate.Quantity(r.qty))
		}
	}
	return parcelgate.DeliveryParcels(parcelgate.Production, "", q)
}

func (g *model) externalID(p *orderPlan) string {
	return fmt.Sprintf("%s-W%d", g.orgs[p.org].bid, p.i+1)
}

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// serviceID is a 16- or 20-character ID of A-Z and 2-7, as the store
// makes them at random: here a bijective mix of n, so unique.
func serviceID(n uint64, kind byte, length int) string {
	var b [15]byte
	binary.BigEndian.PutUint64(b[:], mix(n))
	b[8] = kind
	return b32.EncodeToString(b[:])[:length]
}

// mix is splitmix64's finalizer: a bijection of uint64.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// number is a parcel or shipment number of the provider's form (JJFI and
// 17 digits), unique for n below 10^15 within each base.
func number(base, n int64) string {
	return fmt.Sprintf("JJFI%017d", base+(n*7919)%1_000_000_000_000_000)
}

const (
	baseShipment    = 30_000_000_000_000_000 // registered shipments
	baseOrderParcel = 50_000_000_000_000_000 // delivered orders' shipments (one parcel each)
	baseParcel      = 70_000_000_000_000_000 // parcels of registered shipments
)

func productID(j int) string { return fmt.Sprintf("P%06d", j) }

func price(pid int64) string { return fmt.Sprintf("%d.%02d", 1+pid%97, pid%100) }

func priceFloat(pid int64) float64 { return float64(1+pid%97) + float64(pid%100)/100 }
