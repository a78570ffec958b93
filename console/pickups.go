package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// Pick-up points in the console (decisions §40): a search by postal code
// or town, and a point's page, through the finder the API holds
// (parcelgate.PickupPointFinder's search and lookup). The points are the
// provider's network, the same for every tenant, so there is no tenant to
// scope; the pages are open to whoever may look them up on the API
// (ActionReadLocations) and to the operator.
//
// What a point shows is read from the point's own JSON, the shape the
// API answers it in, not from its Go fields: a page lists what the point
// carries, whatever it carries, and the console follows a change of the
// point's shape without a change of its own.

// pickupResults is how many points a console search shows.
const pickupResults = 25

type pickupsData struct {
	Form     url.Values
	Postcode string
	City     string
	Errors   map[string]string
	Points   []pointView
	Searched bool
}

var consolePostcode = regexp.MustCompile(`^[0-9]{5}$`)

func (c *Console) mayReadPickups(w http.ResponseWriter, r *http.Request, s *session) bool {
	if c.pickups == nil {
		c.errorPage(w, r, s, http.StatusNotFound, "This server does not serve pick-up points.")
		return false
	}
	return c.may(w, r, s, parcelgate.ActionReadLocations)
}

// pickupPointsPage searches the points near a Finnish postal code or in a
// town, nearest first, as the gateway's search does for the same place.
func (c *Console) pickupPointsPage(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.mayReadPickups(w, r, s) {
		return
	}
	q := r.URL.Query()
	d := &pickupsData{Form: q, Postcode: strings.TrimSpace(q.Get("postcode")), City: strings.TrimSpace(q.Get("city")), Errors: map[string]string{}}
	status := http.StatusOK
	if d.Postcode != "" || d.City != "" {
		d.Searched = true
		if d.Postcode != "" && !consolePostcode.MatchString(d.Postcode) {
			d.Errors["postcode"] = "Enter a Finnish postal code of 5 digits, such as 00100."
		}
		if n := len([]rune(d.City)); n > 100 {
			d.Errors["city"] = fmt.Sprintf("At most 100 characters, not %d.", n)
		}
		search := parcelgate.PickupSearch{Postcode: d.Postcode, City: d.City, Limit: pickupResults}
		if len(d.Errors) == 0 {
			if err := search.Validate(); err != nil {
				// The search's problems are named by the gateway body's
				// paths; the console's fields are their last part.
				for _, fe := range parcelgate.ErrorFields(err) {
					name := fe.Field[strings.LastIndex(fe.Field, ".")+1:]
					if name != "postcode" && name != "city" {
						name = "city"
					}
					d.Errors[name] = fe.Message
				}
			}
		}
		if len(d.Errors) > 0 {
			status = http.StatusBadRequest
		} else {
			for _, p := range c.pickups.SearchPickupPoints(search) {
				d.Points = append(d.Points, newPointView(p))
			}
		}
	}
	c.renderView(w, r, status, "pickup-points", &view{Title: "Pick-up points", Session: s, Nav: "pickups", Data: d})
}

// pickupPointPage shows one point: its address, hours and capabilities,
// and every other thing it carries.
func (c *Console) pickupPointPage(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.mayReadPickups(w, r, s) {
		return
	}
	id := strings.TrimSpace(r.PathValue("id"))
	var p parcelgate.PickupPoint
	ok := false
	if len(id) <= 20 && !strings.ContainsFunc(id, func(r rune) bool { return r < '0' || r > '9' }) {
		p, ok = c.pickups.FindPickupPoint(id)
	}
	if !ok {
		c.errorPage(w, r, s, http.StatusNotFound, "There is no pick-up point with this ID.")
		return
	}
	v := newPointView(p)
	c.renderView(w, r, http.StatusOK, "pickup-point", &view{Title: v.Name, Session: s, Nav: "pickups", Data: v})
}

// pointView is a pick-up point as the console shows it, read from its
// JSON: the fields every page names (ID, name, address, distance), its
// hours and capabilities when it has them, and the rest as they are.
type pointView struct {
	ID, Name, Type, Address string
	Distance                string
	Capabilities            []string
	// Hours are the opening hours as a table when each entry is a flat
	// object (HoursHead its columns), else as they are (Hours).
	HoursHead []string
	HoursRows [][]string
	Hours     []node
	Rest      []node
}

// hoursColumns are the names of an opening-hours entry the table shows
// first, in this order; others follow by name.
var hoursColumns = []string{"day", "weekday", "dayOfWeek", "date", "opens", "from", "open", "start", "closes", "to", "close", "end"}

// hoursTable lays entries out as a table when each is an object of plain
// values; ok is false otherwise.
func hoursTable(entries []node) (head []string, rows [][]string, ok bool) {
	seen := map[string]bool{}
	for _, e := range entries {
		if len(e.Items) == 0 {
			return nil, nil, false
		}
		for _, it := range e.Items {
			if it.Name == "" || len(it.Items) > 0 {
				return nil, nil, false
			}
			seen[it.Name] = true
		}
	}
	for _, n := range hoursColumns {
		if seen[n] {
			head = append(head, n)
			delete(seen, n)
		}
	}
	rest := make([]string, 0, len(seen))
	for n := range seen {
		rest = append(rest, n)
	}
	slices.Sort(rest)
	head = append(head, rest...)
	for _, e := range entries {
		row := make([]string, len(head))
		for _, it := range e.Items {
			row[slices.Index(head, it.Name)] = it.Text
		}
		rows = append(rows, row)
	}
	return head, rows, len(rows) > 0
}

// node is a JSON value laid out for a page: a text, or a list of named
// (objects) or unnamed (arrays) nodes.
type node struct {
	Name  string
	Text  string
	Items []node
}

// The JSON names the console looks for first, in order; the first present
// wins.
var (
	pointIDNames      = []string{"externalId", "pupCode", "id", "pickupPointId"}
	pointNameNames    = []string{"name", "publicName", "label"}
	pointTypeNames    = []string{"type", "pointType", "locationType"}
	pointStreetNames  = []string{"streetAddress", "address", "street"}
	pointPostalNames  = []string{"postalCode", "postcode", "zipcode"}
	pointCityNames    = []string{"postOffice", "city", "municipality"}
	pointHoursNames   = []string{"openingHours", "hours", "availabilityTime"}
	pointCapabilities = []string{"capabilities", "services", "serviceCodes"}
	pointHidden       = []string{"latitude", "longitude", "estimation"}
)

func newPointView(p parcelgate.PickupPoint) pointView {
	var m map[string]any
	raw, err := json.Marshal(p)
	if err == nil {
		err = json.Unmarshal(raw, &m)
	}
	if err != nil || m == nil {
		return pointView{Name: "Pick-up point"}
	}
	used := map[string]bool{}
	take := func(names []string) any {
		for _, n := range names {
			if v, ok := m[n]; ok && v != nil && v != "" {
				used[n] = true
				return v
			}
		}
		return nil
	}
	text := func(names []string) string {
		if v := take(names); v != nil {
			return jsonText(v)
		}
		return ""
	}
	v := pointView{ID: text(pointIDNames), Name: text(pointNameNames), Type: text(pointTypeNames)}
	parts := []string{text(pointStreetNames), strings.TrimSpace(text(pointPostalNames) + " " + text(pointCityNames))}
	v.Address = strings.Trim(strings.Join(parts, ", "), ", ")
	if d, ok := m["distance"].(float64); ok {
		used["distance"] = true
		if d >= 1000 {
			v.Distance = strconv.FormatFloat(d/1000, 'f', 1, 64) + " km"
		} else {
			v.Distance = strconv.FormatFloat(d, 'f', 0, 64) + " m"
		}
	}
	if caps, ok := take(pointCapabilities).([]any); ok {
		for _, c := range caps {
			v.Capabilities = append(v.Capabilities, jsonText(c))
		}
	}
	if h := take(pointHoursNames); h != nil {
		v.Hours = toNode("", h).Items
		if len(v.Hours) == 0 {
			v.Hours = []node{toNode("", h)}
		}
		if head, rows, ok := hoursTable(v.Hours); ok {
			v.HoursHead, v.HoursRows, v.Hours = head, rows, nil
		}
	}
	for _, n := range pointHidden {
		used[n] = true
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !used[k] && m[k] != nil && m[k] != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		v.Rest = append(v.Rest, toNode(k, m[k]))
	}
	if v.Name == "" {
		v.Name = "Pick-up point " + v.ID
	}
	return v
}

// toNode lays a JSON value out.
func toNode(name string, v any) node {
	n := node{Name: name}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if x[k] != nil && x[k] != "" {
				n.Items = append(n.Items, toNode(k, x[k]))
			}
		}
	case []any:
		for _, e := range x {
			n.Items = append(n.Items, toNode("", e))
		}
		if len(x) == 0 {
			n.Text = "—"
		}
	default:
		n.Text = jsonText(v)
	}
	return n
}

// jsonText is a JSON scalar as text.
func jsonText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
