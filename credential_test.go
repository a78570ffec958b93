package parcelgate

import (
	"testing"
	"time"
)

// interface §5.2 rule 5, interface §8 ("Account lock: 1 hour after 5 invalid logins"):
// the lockout decision for each kind of attempt and state.
func TestDecideLogin(t *testing.T) {
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	lockEnds := now.Add(LockoutDuration)
	for _, c := range []struct {
		name       string
		state      LoginState
		passwordOK bool
		want       LoginDecision
	}{
		{"right password, fresh account: accepted", LoginState{}, true,
			LoginDecision{Accept: true}},
		{"right password after 4 failures: accepted, the count starts again", LoginState{Failures: 4}, true,
			LoginDecision{Accept: true}},
		{"first failure: counted", LoginState{}, false,
			LoginDecision{Next: LoginState{Failures: 1}}},
		{"fourth failure: counted, not locked", LoginState{Failures: 3}, false,
			LoginDecision{Next: LoginState{Failures: 4}}},
		{"fifth failure: locked for an hour from now", LoginState{Failures: 4}, false,
			LoginDecision{Next: LoginState{Failures: 5, LockedUntil: lockEnds}}},
		{"right password while locked: refused, nothing changes", LoginState{Failures: 5, LockedUntil: now.Add(time.Minute)}, true,
			LoginDecision{Next: LoginState{Failures: 5, LockedUntil: now.Add(time.Minute)}}},
		{"failure while locked: refused, neither counted nor extending the lock", LoginState{Failures: 5, LockedUntil: now.Add(time.Minute)}, false,
			LoginDecision{Next: LoginState{Failures: 5, LockedUntil: now.Add(time.Minute)}}},
		{"right password the instant the hour ends: accepted", LoginState{Failures: 5, LockedUntil: now}, true,
			LoginDecision{Accept: true}},
		{"failure after the lock ran out: a new count from 1", LoginState{Failures: 5, LockedUntil: now.Add(-time.Second)}, false,
			LoginDecision{Next: LoginState{Failures: 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := DecideLogin(c.state, c.passwordOK, now)
			if got.Accept != c.want.Accept || got.Next.Failures != c.want.Next.Failures || !got.Next.LockedUntil.Equal(c.want.Next.LockedUntil) {
				t.Errorf("DecideLogin(%+v, %v) = %+v, want %+v", c.state, c.passwordOK, got, c.want)
			}
		})
	}
}

// interface §5.2 rule 5: five consecutive failures lock; the right password is
// refused for the hour and accepted after it.
func TestDecideLoginSequence(t *testing.T) {
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	var s LoginState
	for i := range MaxFailedLogins {
		d := DecideLogin(s, false, now)
		if d.Accept || d.Next.Locked(now) != (i == MaxFailedLogins-1) {
			t.Fatalf("failure %d: %+v", i+1, d)
		}
		s = d.Next
	}
	if DecideLogin(s, true, now.Add(LockoutDuration-time.Microsecond)).Accept {
		t.Fatal("accepted before the hour ended")
	}
	if !DecideLogin(s, true, now.Add(LockoutDuration)).Accept {
		t.Fatal("refused after the hour")
	}
}
