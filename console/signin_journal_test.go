package console_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
)

// A console sign-in, successful or failed, is journaled under
// the organization of the account it named, the password redacted; one
// naming no account is journaled under no organization.
func TestSignInJournaled(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		if p := b.signIn(prod.Username, "not-the-password"); p.status != http.StatusUnauthorized {
			t.Fatalf("wrong password: %d", p.status)
		}
		if p := b.signIn("no-such-user-anywhere", "whatever-it-is"); p.status != http.StatusUnauthorized {
			t.Fatalf("unknown user: %d", p.status)
		}
		if p := b.signIn(prod.Username, prod.Password); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.status)
		}
		var got []*parcelgate.JournalEntry
		deadline := time.Now().Add(5 * time.Second)
		for len(got) < 2 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			page, _ := e.store.Journal.Journal(context.Background(), parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.JournalQuery{BusinessID: prod.BusinessID}, parcelgate.PageRequest{Size: 10})
			got = page.Items
		}
		if len(got) != 2 || got[0].Status != http.StatusSeeOther || got[1].Status != http.StatusUnauthorized {
			t.Fatalf("sign-ins journaled: %+v", got)
		}
		for _, entry := range got {
			matches, err := e.store.Journal.JournalEntries(context.Background(), parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.JournalQuery{BusinessID: prod.BusinessID}, entry.RequestID)
			if err != nil {
				t.Fatal(err)
			}
			full := matches[0]
			if strings.Contains(full.RequestBody, "not-the-password") || strings.Contains(full.RequestBody, prod.Password) || !strings.Contains(full.RequestBody, "password=%5Bredacted%5D") {
				t.Errorf("sign-in body as journaled: %q", full.RequestBody)
			}
		}
		for _, env := range parcelgate.Environments {
			all, _ := e.store.Journal.Journal(context.Background(), parcelgate.EnvironmentOperator(env), parcelgate.JournalQuery{}, parcelgate.PageRequest{Size: 100})
			for _, entry := range all.Items {
				matches, _ := e.store.Journal.JournalEntries(context.Background(), parcelgate.EnvironmentOperator(env), parcelgate.JournalQuery{}, entry.RequestID)
				if len(matches) > 0 && strings.Contains(matches[0].RequestBody, "no-such-user-anywhere") {
					t.Errorf("a sign-in naming no account was journaled under %s", entry.BusinessID)
				}
			}
		}
	})
}
