package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// aliasOf marks a hidden command kept under an old name: its value is the
// command's name now, which a suggestion names instead.
const aliasOf = "parcelgate-alias-of"

// suggest returns the names of c's commands nearest to typed: those at the
// smallest edit distance (at most 2, and less than half the typed word, so
// "x" suggests nothing), else those typed begins (at least 3 letters). A
// hidden old name that is near suggests the command's name now. cobra's own
// SuggestionsFor is plain Levenshtein, lists every candidate within reach
// unsorted, and skips hidden commands; a swapped pair of letters ("oredrs")
// is one edit here.
func suggest(c *cobra.Command, typed string) []string {
	typed = strings.ToLower(typed)
	best, bestD := []string(nil), 3
	var prefixed []string
	for _, sub := range c.Commands() {
		name := sub.Name()
		if sub.Hidden {
			if sub.Annotations[aliasOf] == "" {
				continue
			}
		} else if !sub.IsAvailableCommand() {
			continue
		}
		now := name
		if a := sub.Annotations[aliasOf]; a != "" {
			now = a
		}
		d := editDistance(typed, name)
		if d*2 >= len(typed) {
			d = 3 // too far for so short a word
		}
		switch {
		case d < bestD:
			best, bestD = []string{now}, d
		case d == bestD && d < 3 && !slices.Contains(best, now):
			best = append(best, now)
		}
		if len(typed) >= 3 && strings.HasPrefix(name, typed) && !slices.Contains(prefixed, now) {
			prefixed = append(prefixed, now)
		}
	}
	if len(best) == 0 {
		best = prefixed
	}
	slices.Sort(best)
	return best[:min(len(best), 3)]
}

// orList quotes names as `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
func orList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// editDistance is the optimal string alignment distance between a and b:
// the insertions, deletions, substitutions and swaps of adjacent letters
// that turn one into the other (Damerau-Levenshtein without editing a
// substring twice), over bytes: command names are ASCII.
func editDistance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j]; three rows suffice.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
