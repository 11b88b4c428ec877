package runtime

import (
	"container/heap"
	"slices"
)

// radixCache is SGLang's RadixCache (mem_cache/radix_cache.py) reduced to what matters
// for isolation and capacity:
//   - one tree per worker, shared by every request on it; the key is (extra_key, token
//     ids): a request's isolation key selects its own root, so different keys never share
//     prefix nodes (RadixKey.child_key, match_prefix docstring);
//   - with page_size > 1 keys are matched and inserted in whole pages;
//   - lock_ref protects the path of a running request (inc_lock_ref walks to the root and
//     moves tokens from evictable to protected);
//   - evict frees unlocked leaves in policy order until enough tokens are free; a parent
//     becomes a candidate once its last child is gone (evict, evict_policy.py). The freed
//     pages are not cleared.
type radixCache struct {
	pageSize int
	pool     *pool
	lfu      bool
	roots    map[string]*radixNode
	nodes    []*radixNode // every live node, in creation order (for deterministic scans)
	dead     int
	nextID   uint64
	tick     uint64

	evictable int // tokens in unlocked nodes
	protected int // tokens in locked nodes

	evictions     int
	evictedTokens int

	leaves []*radixNode // evict's heap storage, kept between calls
}

type radixNode struct {
	id       uint64
	parent   *radixNode
	children map[string]*radixNode
	key      []byte
	pages    []int32
	lockRef  int
	access   uint64
	hits     uint64
	owner    int32
	root     bool
	removed  bool
}

func newRadixCache(p *pool, policy string) *radixCache {
	return &radixCache{pageSize: p.pageSize, pool: p, lfu: policy == "lfu", roots: map[string]*radixNode{}}
}

func (c *radixCache) rootFor(ns string) *radixNode {
	r := c.roots[ns]
	if r == nil {
		c.nextID++
		r = &radixNode{id: c.nextID, children: map[string]*radixNode{}, root: true}
		c.roots[ns] = r
	}
	return r
}

func (c *radixCache) childKey(toks []byte) string { return string(toks[:c.pageSize]) }

// commonPages counts the whole pages a and b share from the start.
func (c *radixCache) commonPages(a, b []byte) int {
	n := 0
	for (n+1)*c.pageSize <= len(a) && (n+1)*c.pageSize <= len(b) {
		lo, hi := n*c.pageSize, (n+1)*c.pageSize
		if string(a[lo:hi]) != string(b[lo:hi]) {
			break
		}
		n++
	}
	return n
}

// match finds the longest cached page-aligned prefix of toks in namespace ns. It returns
// the pages holding it and the node where it ends (the namespace root when nothing
// matched), splitting a node when the match ends inside it.
func (c *radixCache) match(ns string, toks []byte) ([]int32, *radixNode) {
	c.tick++
	node := c.rootFor(ns)
	var pages []int32
	pos := 0
	for pos+c.pageSize <= len(toks) {
		child := node.children[c.childKey(toks[pos:])]
		if child == nil {
			break
		}
		child.access = c.tick
		child.hits++
		m := c.commonPages(child.key, toks[pos:])
		if m < len(child.pages) {
			child = c.split(child, m)
			pages = append(pages, child.pages...)
			node = child
			break
		}
		pages = append(pages, child.pages...)
		pos += len(child.key)
		node = child
	}
	return pages, node
}

// split cuts child after m pages and returns the new upper node.
func (c *radixCache) split(child *radixNode, m int) *radixNode {
	cut := m * c.pageSize
	c.nextID++
	upper := &radixNode{
		id:       c.nextID,
		parent:   child.parent,
		children: map[string]*radixNode{},
		key:      slices.Clone(child.key[:cut]),
		pages:    slices.Clone(child.pages[:m]),
		lockRef:  child.lockRef,
		access:   child.access,
		hits:     child.hits,
		owner:    child.owner,
	}
	child.parent.children[c.childKey(child.key)] = upper
	child.key = child.key[cut:]
	child.pages = child.pages[m:]
	child.parent = upper
	upper.children[c.childKey(child.key)] = child
	c.nodes = append(c.nodes, upper)
	return upper
}

// insert adds toks (page-aligned) with their pages under ns and returns how many leading
// tokens were already cached: the caller's own pages for those are duplicates to free.
func (c *radixCache) insert(ns string, toks []byte, pages []int32, owner int32) int {
	c.tick++
	toks = toks[:len(toks)/c.pageSize*c.pageSize]
	if n := len(pages) * c.pageSize; n < len(toks) {
		toks = toks[:n]
	}
	node := c.rootFor(ns)
	pos := 0
	for pos < len(toks) {
		child := node.children[c.childKey(toks[pos:])]
		if child == nil {
			c.nextID++
			leaf := &radixNode{
				id:       c.nextID,
				parent:   node,
				children: map[string]*radixNode{},
				key:      slices.Clone(toks[pos:]),
				pages:    slices.Clone(pages[pos/c.pageSize : len(toks)/c.pageSize]),
				access:   c.tick,
				owner:    owner,
			}
			node.children[c.childKey(leaf.key)] = leaf
			c.nodes = append(c.nodes, leaf)
			c.evictable += len(leaf.key)
			return pos
		}
		child.access = c.tick
		m := c.commonPages(child.key, toks[pos:])
		if m < len(child.pages) {
			child = c.split(child, m)
		}
		pos += len(child.key)
		node = child
	}
	return pos
}

func (c *radixCache) lock(n *radixNode) {
	for ; n != nil && !n.root; n = n.parent {
		if n.lockRef == 0 {
			c.evictable -= len(n.key)
			c.protected += len(n.key)
		}
		n.lockRef++
	}
}

func (c *radixCache) unlock(n *radixNode) {
	for ; n != nil && !n.root; n = n.parent {
		if n.lockRef <= 0 {
			continue
		}
		n.lockRef--
		if n.lockRef == 0 {
			c.evictable += len(n.key)
			c.protected -= len(n.key)
		}
	}
}

// evict frees unlocked leaves in policy order until tokens are freed or none is left.
func (c *radixCache) evict(tokens int) int {
	if tokens <= 0 {
		return 0
	}
	h := &leafHeap{nodes: c.leaves[:0], lfu: c.lfu}
	for _, n := range c.nodes {
		if !n.removed && len(n.children) == 0 && n.lockRef == 0 {
			h.nodes = append(h.nodes, n)
		}
	}
	heap.Init(h)
	freed := 0
	for freed < tokens && h.Len() > 0 {
		n := heap.Pop(h).(*radixNode)
		c.pool.release(n.pages)
		freed += len(n.key)
		c.evictable -= len(n.key)
		c.evictions++
		c.evictedTokens += len(n.key)
		delete(n.parent.children, c.childKey(n.key))
		n.removed = true
		c.dead++
		if p := n.parent; !p.root && len(p.children) == 0 && p.lockRef == 0 {
			heap.Push(h, p)
		}
	}
	clear(h.nodes[:cap(h.nodes)]) // evicted nodes must not stay reachable from here
	c.leaves = h.nodes[:0]
	c.compact()
	return freed
}

func (c *radixCache) compact() {
	if c.dead < 64 || c.dead*2 < len(c.nodes) {
		return
	}
	c.nodes = slices.DeleteFunc(c.nodes, func(n *radixNode) bool { return n.removed })
	c.dead = 0
}

// leafHeap orders eviction candidates: LRU by last access, LFU by hits then last access;
// node ids break ties so the order never depends on anything but the run.
type leafHeap struct {
	nodes []*radixNode
	lfu   bool
}

func (h *leafHeap) Len() int { return len(h.nodes) }
func (h *leafHeap) Less(i, j int) bool {
	a, b := h.nodes[i], h.nodes[j]
	if h.lfu && a.hits != b.hits {
		return a.hits < b.hits
	}
	if a.access != b.access {
		return a.access < b.access
	}
	return a.id < b.id
}
func (h *leafHeap) Swap(i, j int) { h.nodes[i], h.nodes[j] = h.nodes[j], h.nodes[i] }
func (h *leafHeap) Push(x any)    { h.nodes = append(h.nodes, x.(*radixNode)) }
func (h *leafHeap) Pop() any {
	n := h.nodes[len(h.nodes)-1]
	h.nodes = h.nodes[:len(h.nodes)-1]
	return n
}
