package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// interfaceGroups are the names the index cites the rule lists of
// interface §4.4 by, keyed by their bold heading in the interface.
var interfaceGroups = map[string]string{
	"PUT /inventory":             "PUT /inventory",
	"PUT /inventory/balances":    "PUT balances",
	"DELETE /inventory/balances": "DELETE balances",
	"GET":                        "GET",
}

// notYetIndexed are numbered rules of the interface the index has no row
// for yet, each with the reason. A rule listed here that the index cites
// fails the test: take it off the list.
var notYetIndexed = map[string]string{
	"§4.4 GET rule 3": "modifiedFromDate polling is decided in sqlstore today; its root function and row come with the change-polling work",
}

// ruleCitation is one citation of numbered rules in an index row:
// §4.4 PUT balances rules 1-4, §7 rule 1.
var ruleCitation = regexp.MustCompile(`§([0-9]+(?:\.[0-9]+)?)(?: (PUT /inventory|PUT balances|DELETE balances|GET))? rules? ([0-9]+)(?:-([0-9]+))?`)

// TestIndexCoversEveryNumberedRule: every numbered rule of
// docs/interface.md (§2 onward; §1 describes the services) is cited by a
// row of the index, so each has a function that decides it.
func TestIndexCoversEveryNumberedRule(t *testing.T) {
	cited := map[string]bool{}
	for _, r := range indexRows(t) {
		for _, m := range ruleCitation.FindAllStringSubmatch(r.rule, -1) {
			from, _ := strconv.Atoi(m[3])
			to := from
			if m[4] != "" {
				to, _ = strconv.Atoi(m[4])
			}
			for n := from; n <= to; n++ {
				cited[ruleName(m[1], m[2], n)] = true
			}
		}
	}
	rules := interfaceRules(t)
	if len(rules) < 40 {
		t.Fatalf("found %d numbered rules in docs/interface.md; the parser no longer reads it", len(rules))
	}
	for _, rule := range rules {
		switch why, skipped := notYetIndexed[rule]; {
		case skipped && cited[rule]:
			t.Errorf("%s is cited by the index now; take it off notYetIndexed (%s)", rule, why)
		case !skipped && !cited[rule]:
			t.Errorf("no row of docs/architecture.md's index cites interface %s", rule)
		}
	}
}

func ruleName(section, group string, n int) string {
	name := "§" + section
	if group != "" {
		name += " " + group
	}
	return name + " rule " + strconv.Itoa(n)
}

var (
	sectionHeading = regexp.MustCompile(`^#{2,3} ([0-9]+(?:\.[0-9]+)?)[. ]`)
	groupHeading   = regexp.MustCompile(`^\*\*(.+?)\*\* rules`)
	numberedRule   = regexp.MustCompile(`^([0-9]+)\. `)
)

// interfaceRules lists the numbered rules of docs/interface.md by the name
// the index cites them with.
func interfaceRules(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", "interface.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	section, group := "", ""
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "#") {
			section, group = "", ""
			if m := sectionHeading.FindStringSubmatch(line); m != nil {
				section = m[1]
			}
			continue
		}
		if m := groupHeading.FindStringSubmatch(line); m != nil {
			g, ok := interfaceGroups[m[1]]
			if !ok {
				t.Fatalf("interface.md has a rule list %q that interfaceGroups does not name", m[1])
			}
			group = g
			continue
		}
		if m := numberedRule.FindStringSubmatch(line); m != nil && section != "" && section != "1" {
			n, _ := strconv.Atoi(m[1])
			out = append(out, ruleName(section, group, n))
		}
	}
	return out
}
