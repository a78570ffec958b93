package fastpath

import "sync"

// Bounded is a map for a store's hints (kept counts, catalogs found by
// external ID) shared by an instance's requests. It holds at most
// BoundedEntries entries: past that it is emptied and fills again, so
// memory stays bounded whatever callers ask for, and a lost entry costs
// only the read that made it. Nothing kept in one may be trusted without
// the check its user makes.
type Bounded[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

// BoundedEntries is how many entries a Bounded holds at most.
const BoundedEntries = 10000

// Get returns the value kept for k.
func (c *Bounded[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

// Put keeps v for k.
func (c *Bounded[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= BoundedEntries {
		c.m = map[K]V{}
	}
	c.m[k] = v
}
