package parcelgate

import (
	"testing"
	"time"
)

// decisions §6 change polling: strictly after the cursor, to the
// microsecond; where writers commit out of stamp order, only changes no
// running stamping writer can still undercut.
func TestPollWindow(t *testing.T) {
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	us := at.UnixMicro()
	const epoch = int64(3) << 32
	for _, tc := range []struct {
		name string
		from time.Time
		w    *Writers
		want ChangeWindow
	}{
		{"SQLite: a stamp as shown, no bound", at.Add(5 * time.Microsecond), nil, ChangeWindow{After: us + 5}},
		{"a client's own clock, finer than stamps", at.Add(5*time.Microsecond + 900*time.Nanosecond), nil, ChangeWindow{After: us + 5}},
		{"nothing running: everything assigned has ended", at, &Writers{Xmin: 900, Xmax: 900}, ChangeWindow{After: us, SettledBelow: 900}},
		{"an unrelated long transaction does not hold polls back", at,
			&Writers{Xmin: 500, Xmax: 900, InProgress: []int64{500}, Running: []uint32{500}}, ChangeWindow{After: us, SettledBelow: 900}},
		{"a stamping writer still running bounds the window", at,
			&Writers{Xmin: 500, Xmax: 900, InProgress: []int64{500, 700}, Running: []uint32{500, 700}, Stamping: []uint32{700}}, ChangeWindow{After: us, SettledBelow: 700}},
		{"a writer that ended after the snapshot may be a stamping one the snapshot does not show", at,
			&Writers{Xmin: 500, Xmax: 900, InProgress: []int64{500, 650}, Running: []uint32{500}}, ChangeWindow{After: us, SettledBelow: 650}},
		{"read after the look: a transaction that ended in between does not hold the poll back", at,
			&Writers{Xmin: 500, Xmax: 900, InProgress: []int64{500, 650}, Running: []uint32{500}, ReadAfter: true}, ChangeWindow{After: us, SettledBelow: 900}},
		{"read after the look: a stamping writer still running bounds the window", at,
			&Writers{Xmin: 500, Xmax: 900, InProgress: []int64{500, 700}, Running: []uint32{500, 700}, Stamping: []uint32{700}, ReadAfter: true}, ChangeWindow{After: us, SettledBelow: 700}},
		{"a stamping writer whose ID came after the snapshot takes its ticket after every change in it", at,
			&Writers{Xmin: 900, Xmax: 900, Running: []uint32{905}, Stamping: []uint32{905}}, ChangeWindow{After: us, SettledBelow: 900}},
		{"IDs across an epoch's wrap", at,
			&Writers{Xmin: epoch + 10, Xmax: epoch + 20, InProgress: []int64{epoch + 10}, Running: []uint32{10, 0xFFFFFFF0}, Stamping: []uint32{0xFFFFFFF0}},
			ChangeWindow{After: us, SettledBelow: epoch - 16}},
		{"a standby: the snapshot's oldest running transaction", at,
			&Writers{Standby: true, Xmin: 500, Xmax: 900, InProgress: []int64{500}}, ChangeWindow{After: us, SettledBelow: 500}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PollWindow(tc.from, tc.w); got != tc.want {
				t.Fatalf("PollWindow = %+v, want %+v", got, tc.want)
			}
		})
	}
}
