package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// sizeCell is one route's figures for one engine and tenant.
type sizeCell struct {
	p50, p99      time.Duration
	n             int
	fivexx, other int
	timeouts      int    // no answer in 30 s
	status        int    // the first non-2xx, non-5xx answer's status
	skip          string // why not measured
	rows          string // the rows of the first 2xx answer, on lists
}

func (c sizeCell) String() string {
	switch {
	case c.skip != "":
		return "—"
	case c.n == 0:
		return "no answer"
	case c.other == c.n:
		return fmt.Sprintf("%d (not on this server)", c.status)
	}
	s := fmt.Sprintf("%s / %s", num(c.p50), num(c.p99))
	if c.fivexx > 0 {
		s += fmt.Sprintf(" **%d×5xx**", c.fivexx)
	}
	if c.timeouts > 0 {
		s += fmt.Sprintf(" **%d× no answer in 30 s**", c.timeouts)
	}
	if c.other > 0 {
		s += fmt.Sprintf(" (%d×%d)", c.other, c.status)
	}
	if c.rows != "" {
		s += " (" + c.rows + ")"
	}
	return s
}

func num(d time.Duration) string {
	v := float64(d.Microseconds()) / 1000
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// engineSummary is what a size run found on one engine, beside the
// routes.
type engineSummary struct {
	name     string
	fill     string
	rssStart int64 // after the fill, when the server starts serving
	peakRSS  int64 // the server's peak, the fill's excluded
	idle     string
	ops      []opResult
}

// sizeSummary gathers the size runs of every engine for one table.
type sizeSummary struct {
	routes  []string // in the order first measured
	cells   map[string]map[string]sizeCell
	engines []*engineSummary
}

var summary = &sizeSummary{cells: map[string]map[string]sizeCell{}}

func (s *sizeSummary) engine(name string) *engineSummary {
	e := &engineSummary{name: name}
	s.engines = append(s.engines, e)
	return e
}

// put records route's cell for engine and column (big, small, demo, env).
func (s *sizeSummary) put(route, engine, column string, c sizeCell) {
	if s.cells[route] == nil {
		s.cells[route] = map[string]sizeCell{}
		s.routes = append(s.routes, route)
	}
	s.cells[route][engine+" "+column] = c
}

var engineTitle = map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"}

// print writes the table ready for docs/performance.md: a column per
// engine and tenant measured (the environment's routes, measured once, in
// the big tenant's column), then each engine's fill, memory, idle CPU and
// operator operations.
func (s *sizeSummary) print() {
	if len(s.engines) == 0 {
		return
	}
	var cols []string
	var titles []string
	// SQLite's columns first, whatever order the engines ran in.
	engines := slices.Clone(s.engines)
	slices.SortStableFunc(engines, func(a, b *engineSummary) int { return strings.Compare(b.name, a.name) })
	for _, e := range engines {
		for _, t := range []string{"big", "small", "demo"} {
			for _, r := range s.routes {
				if _, ok := s.cells[r][e.name+" "+t]; ok {
					cols = append(cols, e.name+" "+t)
					titles = append(titles, engineTitle[e.name]+" "+t)
					break
				}
			}
		}
	}
	fmt.Printf("\n### At size: p50 / p99 in ms\n\n| Route | %s |\n|---|%s\n", strings.Join(titles, " | "), strings.Repeat("---|", len(cols)))
	for _, r := range s.routes {
		var row []string
		for _, col := range cols {
			c, ok := s.cells[r][col]
			if !ok && strings.HasSuffix(col, " big") {
				c, ok = s.cells[r][strings.TrimSuffix(col, " big")+" env"]
			}
			if !ok {
				row = append(row, "")
				continue
			}
			row = append(row, c.String())
		}
		fmt.Printf("| %s | %s |\n", r, strings.Join(row, " | "))
	}
	fmt.Println("\nThe environment's routes (operator lists, /metrics) are measured once per server, in the big tenant's column and the demo's; — not measured (the tenant has none of what it looks up).")
	for _, e := range s.engines {
		fmt.Printf("\n**%s**: %s; this process's RSS when the server started serving %d MiB, its peak while serving (the fill's excluded) %d MiB", engineTitle[e.name], e.fill, e.rssStart>>20, e.peakRSS>>20)
		if e.idle != "" {
			fmt.Printf("; idle server: %s", e.idle)
		}
		fmt.Println(".")
		if len(e.ops) > 0 {
			fmt.Printf("\n| %s operation | answer | time | RSS before → after (MiB) |\n|---|---|---|---|\n", engineTitle[e.name])
			for _, o := range e.ops {
				if o.took == 0 {
					fmt.Printf("| %s | %s | | |\n", o.name, o.outcome)
					continue
				}
				fmt.Printf("| %s | %s | %s | %d → %d |\n", o.name, o.outcome, seconds(o.took), o.rssBefore>>20, o.rssAfter>>20)
			}
		}
	}
	fmt.Println()
}

// seconds is d for the operations' table: ms below a second, else s.
func seconds(d time.Duration) string {
	if d < time.Second {
		return num(d) + " ms"
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
