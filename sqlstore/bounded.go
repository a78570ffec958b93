package sqlstore

import "sync"

// boundedMap is a map for the store's hints (kept counts, catalogs found by
// external ID) shared by an instance's requests. It holds at most max
// entries: past that it is emptied and fills again, so memory stays bounded
// whatever callers ask for, and a lost entry costs only the read that made
// it. Nothing kept in one may be trusted without the check its user makes.
type boundedMap[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

// boundedEntries is how many entries a boundedMap holds at most.
const boundedEntries = 10000

func (c *boundedMap[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *boundedMap[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= boundedEntries {
		c.m = map[K]V{}
	}
	c.m[k] = v
}
