package console_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/parcelgate/parcelgate/demo"
)

// The browser tests drive the console in real Chromium (Debian's chromium
// package) with chromedp. Without Chromium they skip, except under CI
// (CI set), where they fail: .ci/run installs it. Each page is saved as a
// screenshot, at a laptop and a phone width, in the directory the test
// prints (console/screenshots, ignored by git) for people to review.

// chromiumPath finds the browser.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("Chromium is not installed; under CI the browser tests must run (apt-get install -y chromium)")
	}
	t.Skip("Chromium is not installed (apt-get install -y chromium); skipping the browser tests")
	return ""
}

// screenshotDir is where screenshots go: console/screenshots.
func screenshotDir(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// newBrowserEnv is a server on SQLite and a browser pointed at it. It
// skips before starting the server when there is no browser.
func newBrowserEnv(t *testing.T) (*env, *chrome) {
	t.Helper()
	chromiumPath(t)
	e := newEnv(t, "sqlite")
	return e, newChrome(t, e.url)
}

type chrome struct {
	t    *testing.T
	root context.Context // the browser
	dir  string
	url  string
}

func newChrome(t *testing.T, baseURL string) *chrome {
	path := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	root, cancelRoot := chromedp.NewContext(alloc)
	t.Cleanup(cancelRoot)
	if err := chromedp.Do(root); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	dir := screenshotDir(t)
	t.Logf("screenshots in %s", dir)
	return &chrome{t: t, root: root, dir: dir, url: baseURL}
}

// tab is one browser context (its own cookies: one person) with one tab.
type tab struct {
	c   *chrome
	ctx context.Context
}

func (c *chrome) person() *tab {
	// Each person gets a browser context of its own, so two people do not
	// share cookies.
	ctx, cancel2 := chromedp.NewContext(c.root, chromedp.WithNewBrowserContext())
	c.t.Cleanup(cancel2)
	// The first run opens the tab; it must not be under a time limit,
	// which would close the tab when it ends.
	if err := chromedp.Do(ctx); err != nil {
		c.t.Fatalf("open a tab: %v", err)
	}
	return &tab{c: c, ctx: ctx}
}

// do runs steps with a time limit, failing the test with what it was
// doing.
func (tb *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	tb.c.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.c.t.Fatalf("%s: %v", what, err)
	}
}

// navigate clicks or goes somewhere and waits for the new page.
func (tb *tab) navigate(what string, steps ...chromedp.Action[chromedp.Void]) {
	tb.c.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.RunResponse(ctx, steps...); err != nil {
		tb.c.t.Fatalf("%s: %v", what, err)
	}
}

func (tb *tab) text(sel string) string {
	tb.c.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		tb.c.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// waitText waits until the element's text contains want.
func (tb *tab) waitText(sel, want string) {
	tb.c.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var got string
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		cancel()
		if got = s; err == nil && strings.Contains(s, want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	tb.c.t.Fatalf("%s reads %q, want it to contain %q", sel, got, want)
}

// shot saves the page at a laptop width; shotPhone also at a phone's.
func (tb *tab) shot(name string)      { tb.c.t.Helper(); tb.screenshots(name, false) }
func (tb *tab) shotPhone(name string) { tb.c.t.Helper(); tb.screenshots(name, true) }

func (tb *tab) screenshots(name string, phone bool) {
	tb.c.t.Helper()
	sizes := []struct {
		suffix string
		w, h   int64
		mobile bool
	}{{"", 1280, 900, false}, {"-phone", 390, 844, true}}
	if !phone {
		sizes = sizes[:1]
	}
	for _, v := range sizes {
		ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
		var opts []chromedp.EmulateViewportOption
		if v.mobile {
			opts = append(opts, chromedp.EmulateScale(2), chromedp.EmulateMobile)
		}
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(v.w, v.h, opts...)); err != nil {
			cancel()
			tb.c.t.Fatalf("viewport: %v", err)
		}
		buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		cancel()
		if err != nil {
			tb.c.t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(tb.c.dir, name+v.suffix+".png"), buf, 0o644); err != nil {
			tb.c.t.Fatal(err)
		}
	}
	tb.do("laptop viewport", chromedp.EmulateViewport(1280, 900))
}

// signIn signs in with the service account form.
func (tb *tab) signIn(username, password string) {
	tb.c.t.Helper()
	tb.do("fill the sign-in form",
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.Clear(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), username),
		chromedp.SendKeys(chromedp.ID("password"), password))
	tb.navigate("submit the sign-in form", chromedp.Click(chromedp.ID("sign-in-account")))
}

// The console's browser flow: an integrator signs in, finds the demo order;
// the operator moves it to Submitted and Delivered; the integrator's open
// page follows live, and both see the tracking code and the stock it took.
func TestBrowserOrderFromCreatedToDelivered(t *testing.T) {
	e, c := newBrowserEnv(t)

	integrator := c.person()
	integrator.navigate("open the console", chromedp.Navigate(e.url+"/console/"))
	if h := integrator.text("h1"); !strings.Contains(h, "Sign in") {
		t.Fatalf("an unauthenticated visit shows %q, want the sign-in page", h)
	}
	integrator.shotPhone("01-sign-in")
	integrator.signIn(prod.Username, prod.Password)
	integrator.waitText("#order-counts", "Created")
	integrator.shotPhone("02-overview-integrator")

	// Find the order by its SO reference.
	integrator.navigate("open Orders", chromedp.Click(chromedp.CSS(`nav a[href="/console/orders"]`)))
	integrator.do("type the reference", chromedp.SendKeys(chromedp.ID("ref"), "DEMO-1"))
	integrator.navigate("filter", chromedp.Click(chromedp.ID("filter-orders")))
	integrator.waitText("#orders tbody", demo.SampleOrder)
	integrator.shotPhone("03-orders")
	integrator.navigate("open the order", chromedp.Click(chromedp.CSS(`#orders tbody a`)))
	integrator.waitText("#order-status", "Created")
	if got := integrator.text(`[data-balance="1234567-1-TSHIRT-M"]`); got != "118" {
		t.Fatalf("T-shirt stock on the order page: %q, want 118 (120 less the 2 allocated)", got)
	}
	integrator.shot("04-order-created")

	// The operator, in a browser of their own.
	op := c.person()
	op.navigate("open the console", chromedp.Navigate(e.url+"/console/sign-in"))
	op.do("fill the admin token", chromedp.SendKeys(chromedp.ID("token"), adminToken))
	op.navigate("sign in as operator", chromedp.Click(chromedp.ID("sign-in-operator")))
	op.waitText("h1", "Overview")
	op.shot("05-overview-operator")
	op.navigate("open the demo organization", chromedp.Click(chromedp.CSS(`button[aria-label^="Open Demo Shop Oy (1234567-1, production)"]`)))
	op.waitText(".notice", "looking at this organization")
	op.navigate("open the order", chromedp.Navigate(e.url+"/console/orders/"+demo.SampleOrder))
	op.navigate("move to Submitted", chromedp.Click(chromedp.ID("move-Submitted")))
	op.waitText("#order-status", "Submitted")
	// The integrator's open page follows by itself (server-sent events).
	integrator.waitText("#order-status", "Submitted")
	op.navigate("move to Delivered", chromedp.Click(chromedp.ID("move-Delivered")))
	op.waitText("#order-status", "Delivered")
	op.shot("06-order-delivered-operator")

	integrator.waitText("#order-status", "Delivered")
	o := e.order("production", prod.BusinessID, demo.SampleOrder)
	tracking := o.Rows[0].TrackingCodes[0]
	integrator.waitText("#rows", tracking)
	integrator.waitText("#timeline", "by operator")
	integrator.shotPhone("07-order-delivered-integrator")

	// The stock it took: the product page's warehouse balance.
	integrator.navigate("open the T-shirt", chromedp.Click(chromedp.CSS(`#rows a[href^="/console/products/"]`)))
	integrator.waitText(`[data-quantity="WH1"]`, "118")
	integrator.shot("08-product")
	integrator.navigate("open Products", chromedp.Click(chromedp.CSS(`nav a[href="/console/products"]`)))
	integrator.shot("09-products")

	// The operator's other pages.
	op.navigate("open the shipment", chromedp.Click(chromedp.CSS(`#rows a.tracking`)))
	op.waitText("h1", tracking)
	op.shot("10-shipment")
	op.navigate("open Shipments", chromedp.Click(chromedp.CSS(`nav a[href="/console/shipments"]`)))
	op.do("look up a parcel", chromedp.SendKeys(chromedp.ID("q"), prod.Shipment))
	op.navigate("look up", chromedp.Click(chromedp.ID("lookup")))
	op.waitText("#parcels", "XL")
	op.shot("11-shipment-lookup")
	op.navigate("open Shipments", chromedp.Click(chromedp.CSS(`nav a[href="/console/shipments"]`)))
	op.shot("12-shipments")
	op.navigate("open Credentials", chromedp.Click(chromedp.CSS(`nav a[href="/console/credentials"]`)))
	op.waitText("#service-accounts", prod.Username)
	op.shotPhone("13-credentials")
	op.navigate("create a gateway client", chromedp.Click(chromedp.ID("create-client")))
	op.waitText(".secret", "client_secret")
	op.shot("14-credentials-secret-once")

	// Sign-out ends the session: the console sends the browser to sign in.
	integrator.navigate("sign out", chromedp.Click(chromedp.CSS(`form[action="/console/sign-out"] button`)))
	integrator.navigate("open the overview", chromedp.Navigate(e.url+"/console/"))
	if h := integrator.text("h1"); !strings.Contains(h, "Sign in") {
		t.Fatalf("after sign-out the console shows %q", h)
	}
}

// interface §5.2 rule 5 in the browser: five wrong passwords, then the right one
// is refused too, with the message next to the password field.
func TestBrowserSignInLockout(t *testing.T) {
	e, c := newBrowserEnv(t)
	p := c.person()
	p.navigate("open the console", chromedp.Navigate(e.url+"/console/"))
	for range 5 {
		p.signIn(prod.Username, "wrong-password")
		p.waitText("#password-error", "Wrong username or password")
	}
	p.signIn(prod.Username, prod.Password)
	p.waitText("#password-error", "locked")
	if h := p.text("h1"); !strings.Contains(h, "Sign in") {
		t.Fatalf("a locked account got in: %q", h)
	}
	p.shot("15-sign-in-locked")
}
