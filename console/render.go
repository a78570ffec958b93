package console

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// page is one page template, parsed together with the layout.
type page struct {
	t *template.Template
}

// view is what every page template gets: the session (nil on the sign-in
// page), the navigation, and the page's own data in Data.
type view struct {
	Title   string
	Session *session
	Nav     string
	Notice  string
	Data    any
	Asset   string // version query of the static files
	Now     time.Time
	// Live turns on live updates of the page (server-sent events).
	Live bool
	// Origin is the scheme and host the browser reached the server at.
	Origin string
}

var funcs = template.FuncMap{
	"time":      fmtTime,
	"ago":       ago,
	"statusTag": statusTag,
	"query":     func(v url.Values) string { return v.Encode() },
	"join":      strings.Join,
	"path":      url.PathEscape,
	"inc":       func(i int) int { return i + 1 },
	"pager":     newPager,
	"httpTag":   httpTag,
	"deref":     func(f *float64) float64 { return *f },
	"list":      func(s ...string) []string { return s },
	"baseQuery": baseQuery,
	"confirmField": func(form, refused, msg, businessID string) confirmField {
		f := confirmField{Form: form, BusinessID: businessID}
		if form == refused {
			f.Error = msg
		}
		return f
	},
	"curl": curlCommand,
	// count says n things in words: "1 order", "2 orders".
	"count": func(n any, one, many string) string {
		var k int64
		switch x := n.(type) {
		case int:
			k = int64(x)
		case int64:
			k = x
		}
		if k == 1 {
			return "1 " + one
		}
		return strconv.FormatInt(k, 10) + " " + many
	},
	"serviceName": func(code string) string { return parcelgate.ServiceName(code, "en") },
	"origin":      originText,
	"scenarioText": func(scenario string) string {
		switch scenario {
		case parcelgate.ScenarioReturn:
			return "the receiver refuses it; it is back with the sender two days later"
		case parcelgate.ScenarioUncollected:
			return "nobody collects it from its pick-up point: a reminder after 3 days, returned after 7"
		}
		return ""
	},
	"fields": func(specs ...string) []formField {
		out := make([]formField, len(specs))
		for i, sp := range specs {
			out[i].Name, out[i].Label, _ = strings.Cut(sp, ":")
		}
		return out
	},
	"roles": func(rs []parcelgate.Role) string {
		s := make([]string, len(rs))
		for i, r := range rs {
			s[i] = string(r)
		}
		return strings.Join(s, ", ")
	},
}

func (c *Console) loadTemplates() {
	c.pages = map[string]*page{}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n))
		c.pages[name] = &page{t: t}
	}
	h := sha256.New()
	fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := staticFS.ReadFile(p)
			h.Write(b)
		}
		return nil
	})
	c.assetV = hex.EncodeToString(h.Sum(nil))[:12]
}

// render writes page name with data. The page is rendered into a buffer
// first, so a template failure becomes an error page, never half a page.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, s *session, title string, data any) {
	c.renderView(w, r, status, name, &view{Title: title, Session: s, Data: data})
}

func (c *Console) renderView(w http.ResponseWriter, r *http.Request, status int, name string, v *view) {
	p := c.pages[name]
	v.Asset = c.assetV
	v.Origin = origin(r)
	v.Now = c.serverNow(v.Session)
	if v.Notice == "" {
		v.Notice = notices[r.URL.Query().Get("done")]
	}
	var buf bytes.Buffer
	if err := p.t.Execute(&buf, v); err != nil {
		c.cfg.Log.ErrorContext(r.Context(), "console template", "page", name, "err", err)
		http.Error(w, "The page could not be shown; the error has been logged.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// notices are the confirmations shown after an action redirects back.
var notices = map[string]string{
	"cancelled":          "The order was cancelled and its stock returned.",
	"moved":              "The order was moved.",
	"parcel-moved":       "The parcel was moved: its journey is yours from now on.",
	"revoked":            "The credential was revoked: it gets no new tokens.",
	"unlocked":           "The account was unlocked.",
	"clock":              "The environment clock moved forward.",
	"reset":              "The organization's data was reset.",
	"snapshot":           "The snapshot was saved.",
	"job-started":        "The job is still running; this page follows its progress.",
	"restored":           "The snapshot was restored.",
	"snapshot-deleted":   "The snapshot was deleted.",
	"fault":              "The fault was added; the API applies it within a second.",
	"fault-deleted":      "The fault was deleted.",
	"tenant":             "You are now looking at this organization.",
	"created":            "The order was created, as the API would have created it.",
	"saved":              "The product was saved, as the API would have saved it.",
	"stock":              "The stock was set.",
	"demo":               "The demo data is back as it was seeded.",
	"shipment-moved":     "The shipment was moved, as your integration's PATCH would have moved it.",
	"shipment-confirmed": "The shipment was confirmed delivered; the retailer's order shows it.",
	"shipment-split":     "The shipment's parcels were replaced, as your integration's PUT would have replaced them.",
	"shipment-delivered": "The shipment was delivered and its codes freed; its parcels' journeys end here.",
	"shipment-returned":  "The receiver refused the shipment: its parcels are on their way back to the sender.",
}

// originText says in words how a shipment came to be (decisions §29).
func originText(origin string) string {
	switch parcelgate.ShipmentOrigin(origin) {
	case parcelgate.OriginShipping:
		return "Shipping API"
	case parcelgate.OriginOrder:
		return "Warehouse order"
	case parcelgate.OriginEDI:
		return "Shipment data (/shipments)"
	}
	return origin
}

// formField is an input of a form, by name, with its label.
type formField struct{ Name, Label string }

// confirmField is the typed confirmation of one reset or restore form.
type confirmField struct{ Form, BusinessID, Error string }

type errorData struct {
	Status  int
	Message string
	// Link, when set, is a page that says more (LinkText).
	Link, LinkText string
}

func (c *Console) errorPage(w http.ResponseWriter, r *http.Request, s *session, status int, msg string) {
	if s == nil {
		s, _ = r.Context().Value(sessionKey{}).(*session)
	}
	c.render(w, r, status, "error", s, http.StatusText(status), &errorData{Status: status, Message: msg})
}

func randomToken() string {
	var b [32]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

// ago says how long before now t was, roughly, for people.
func ago(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		s = "less than a minute"
	case d < time.Hour:
		s = plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		s = plural(int(d/time.Hour), "hour")
	default:
		s = plural(int(d/(24*time.Hour)), "day")
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// statusTag is the CSS class of a status badge.
func statusTag(s string) string {
	switch s {
	case "Created", "ACTIVE", "active":
		return "tag tag-new"
	case "Submitted", "Viewed", "Picking", "Packing", "Shipping", "Partially delivered":
		return "tag tag-progress"
	case "Delivered", "DELIVERED":
		return "tag tag-done"
	case "Error", "EOS", "expired", "RETURNED_TO_SENDER", "RETURN_IN_TRANSPORT", "RETURN_WAITING", "RETURN_READY_FOR_PICKUP", "RETURN_DELIVERED":
		return "tag tag-bad"
	case "RECEIVED", "IN_TRANSPORT", "READY_FOR_PICKUP", "OUT_FOR_DELIVERY", "CUSTOMS":
		return "tag tag-progress"
	case "WAITING":
		return "tag tag-new"
	default:
		return "tag"
	}
}

// pagerData is the Newer/Older links of a table. Base is the page's query
// without its page cursor, ending in '&' when not empty.
type pagerData struct {
	Newer, Older string
	Base         template.URL
}

func newPager(newer, older, base string) pagerData {
	if base != "" && !strings.HasSuffix(base, "&") {
		base += "&"
	}
	return pagerData{newer, older, template.URL(base)}
}

// baseQuery is a page's query without its cursor and notice, for pager
// links that keep the filters.
func baseQuery(form url.Values) string {
	v := url.Values{}
	for k, vs := range form {
		if k != "page" && k != "done" {
			v[k] = vs
		}
	}
	return v.Encode()
}
