package main

import (
	"strings"
	"testing"
)

// oldNames are the client commands renamed for one name per noun
// (decisions §42), old → new.
var oldNames = map[string]string{
	"pickuppoints":        "gateway-pickup-points",
	"shipments":           "supplier-shipments",
	"set-shipment-status": "set-supplier-shipment-status",
	"confirm-shipment":    "confirm-supplier-shipment",
	"split-shipment":      "split-supplier-shipment",
	"shipment-label":      "supplier-parcel-label",
	"shipment-note":       "supplier-parcel-note",
	"order-shipments":     "order-supplier-shipments",
}

// decisions §42: each renamed command is listed under its new name only;
// its old name still runs it (its help is the same command's) but is in
// neither the list nor completion.
func TestClientCLIOldNamesAreHiddenAliases(t *testing.T) {
	_, help, _ := cliRun("client", "-h")
	_, completed, _ := cliRun("__complete", "client", "")
	for old, now := range oldNames {
		if !strings.Contains(help, "\n  "+now+" ") {
			t.Errorf("client -h does not list %s", now)
		}
		if strings.Contains(help, "\n  "+old+" ") {
			t.Errorf("client -h lists the old name %s", old)
		}
		if !strings.Contains(completed, "\n"+now+"\t") && !strings.HasPrefix(completed, now+"\t") {
			t.Errorf("completion lacks %s:\n%s", now, completed)
		}
		if strings.Contains(completed, "\n"+old+"\t") || strings.HasPrefix(completed, old+"\t") {
			t.Errorf("completion offers the old name %s", old)
		}
		code, oldHelp, _ := cliRun("client", old, "-h")
		_, newHelp, _ := cliRun("client", now, "-h")
		if code != exitOK || !strings.Contains(oldHelp, "Usage:\n  parcelgate client "+old) {
			t.Errorf("client %s -h: status %d\n%s", old, code, oldHelp)
		}
		if flagsOf(oldHelp) != flagsOf(newHelp) {
			t.Errorf("%s and %s take different flags:\n%s\n%s", old, now, oldHelp, newHelp)
		}
	}
}

// flagsOf is the flags section of a help text, but the line of -h, which
// names the command.
func flagsOf(help string) string {
	i := strings.Index(help, "Flags:")
	if i < 0 {
		return ""
	}
	var keep []string
	for line := range strings.SplitSeq(help[i:], "\n") {
		if !strings.Contains(line, "--help") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// decisions §42: a mistyped command gets the nearest name, a swapped pair
// of letters counting as one edit; an old name's typo suggests the new
// name; nothing near, no suggestion. Status 2, one line.
func TestCLISuggestsCommands(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"client", "ordrs"}, `unknown command "ordrs"; did you mean "orders"?`},
		{[]string{"client", "oredrs"}, `did you mean "orders"?`},
		{[]string{"client", "ordr"}, `did you mean "order"?`},
		{[]string{"client", "shipmnts"}, `did you mean "supplier-shipments"?`},
		{[]string{"client", "suplier-shipments"}, `did you mean "supplier-shipments"?`},
		{[]string{"client", "pickup-point"}, `did you mean "pickup-points"?`},
		{[]string{"client", "confirm"}, `did you mean "confirm-supplier-shipment"?`},
		{[]string{"clinet", "orders"}, `unknown command "clinet"; did you mean "client"?`},
		{[]string{"admin", "organisations"}, `did you mean "organizations"?`},
		{[]string{"client", "frobnicate"}, `unknown command "frobnicate" for "parcelgate client" (see "parcelgate client --help")`},
		{[]string{"client", "x"}, `unknown command "x" for`},
	} {
		code, out, errOut := cliRun(tc.args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: status %d, stdout %q, stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

func TestCLIEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"orders", "orders", 0}, {"ordrs", "orders", 1}, {"oredrs", "orders", 1},
		{"clinet", "client", 1}, {"", "abc", 3}, {"abc", "", 3}, {"ca", "abc", 3}, {"order", "orders", 1},
		{"shipmnts", "shipments", 1}, {"kitten", "sitting", 3},
	} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

// decisions §42: missing credentials are a wrong command line that names
// the flags and the environment variables setting them, for the API the
// command calls; credentials given by halves likewise.
func TestClientCLICredentialErrors(t *testing.T) {
	for _, v := range []string{"PARCELGATE_CLIENT_ID", "PARCELGATE_CLIENT_SECRET", "PARCELGATE_USERNAME", "PARCELGATE_PASSWORD"} {
		t.Setenv(v, "")
	}
	t.Setenv("PARCELGATE_URL", "http://127.0.0.1:1") // nothing is called
	gateway := "--client-id/--client-secret or PARCELGATE_CLIENT_ID/PARCELGATE_CLIENT_SECRET"
	ecom := "--username/--password or PARCELGATE_USERNAME/PARCELGATE_PASSWORD"
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"client", "orders"}, []string{"no service account credentials", ecom}},
		{[]string{"client", "track", "JJFI12345678901234567"}, []string{"no service account credentials", ecom}},
		{[]string{"client", "create-sending-code", "JJFI12345678901234567"}, []string{"no gateway credentials", gateway}},
		{[]string{"client", "errand-codes", "P1"}, []string{"no gateway credentials", gateway}},
		{[]string{"client", "token"}, []string{gateway, ecom}},
		{[]string{"client", "--client-id", "x", "orders"}, []string{"half of the gateway credentials", gateway}},
		{[]string{"client", "--password", "x", "orders"}, []string{"half of the service account credentials", ecom}},
	} {
		code, out, errOut := cliRun(tc.args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: status %d, stdout %q, stderr %q", tc.args, code, out, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: %q does not say %q", tc.args, errOut, w)
			}
		}
	}
}
