package runtime

import (
	"slices"
	"testing"
)

// cacheWith returns a radix cache over a pool of n pages of size page.
func cacheWith(n, page int, policy string) (*radixCache, *pool) {
	p := newPool(n*page, page, false)
	return newRadixCache(p, policy), p
}

// store allocates pages for toks and inserts them.
func store(t *testing.T, c *radixCache, p *pool, ns, toks string) []int32 {
	t.Helper()
	pages, ok := p.alloc(len(toks) / p.pageSize)
	if !ok {
		t.Fatalf("pool full storing %q", toks)
	}
	if got := c.insert(ns, []byte(toks), pages, 1); got != 0 {
		t.Fatalf("insert %q found %d tokens already cached", toks, got)
	}
	return pages
}

func TestRadixHitMissAndIsolationByKey(t *testing.T) {
	c, p := cacheWith(16, 2, "lru")
	pages := store(t, c, p, "salt-a", "abcdefgh")
	cases := []struct {
		name, ns, query string
		want            int // matched pages
	}{
		{"same key, same prompt", "salt-a", "abcdefgh", 4},
		{"same key, longer prompt", "salt-a", "abcdefghij", 4},
		{"same key, diverges inside a page", "salt-a", "abcdeXgh", 2},
		{"same key, sub-page prefix never hits", "salt-a", "a", 0},
		{"other key, same prompt", "salt-b", "abcdefgh", 0},
		{"no key, same prompt", "", "abcdefgh", 0},
	}
	for _, tc := range cases {
		got, _ := c.match(tc.ns, []byte(tc.query))
		if len(got) != tc.want {
			t.Errorf("%s: matched %d pages, want %d", tc.name, len(got), tc.want)
		}
		if len(got) > 0 && !slices.Equal(got, pages[:len(got)]) {
			t.Errorf("%s: matched pages %v, want a prefix of %v", tc.name, got, pages)
		}
	}
}

func TestRadixSplitAndDuplicateInsert(t *testing.T) {
	c, p := cacheWith(16, 2, "lru")
	store(t, c, p, "", "abcdefgh")
	mine, _ := p.alloc(4)
	existing := c.insert("", []byte("abcdXYZW"), mine, 2)
	if existing != 4 {
		t.Fatalf("insert of a prompt sharing 4 tokens reported %d cached", existing)
	}
	for _, q := range []string{"abcdefgh", "abcdXYZW"} {
		if got, _ := c.match("", []byte(q)); len(got) != 4 {
			t.Errorf("after the split, %q matches %d pages, want 4", q, len(got))
		}
	}
	if c.evictable != 12 {
		t.Errorf("evictable = %d tokens, want 12 (abcd + efgh + XYZW)", c.evictable)
	}
}

func TestRadixEvictsLeastRecentlyUsedLeavesFirst(t *testing.T) {
	c, p := cacheWith(16, 2, "lru")
	a := store(t, c, p, "", "aaaa")
	b := store(t, c, p, "", "bbbb")
	store(t, c, p, "", "cccc")
	c.match("", []byte("aaaa")) // a is now the most recent
	if freed := c.evict(4); freed != 4 {
		t.Fatalf("evict(4) freed %d", freed)
	}
	if got, _ := c.match("", []byte("bbbb")); len(got) != 0 {
		t.Error("b, the least recently used, survived the first eviction")
	}
	if got, _ := c.match("", []byte("aaaa")); len(got) != 2 {
		t.Error("a, just used, was evicted")
	}
	if p.allocated[b[0]] || !p.allocated[a[0]] {
		t.Error("eviction did not return exactly b's pages to the pool")
	}
}

func TestRadixLFUEvictsLeastHitFirst(t *testing.T) {
	c, p := cacheWith(16, 2, "lfu")
	store(t, c, p, "", "aaaa")
	store(t, c, p, "", "bbbb")
	for range 3 {
		c.match("", []byte("aaaa"))
	}
	c.match("", []byte("bbbb")) // b is more recent but less hit
	c.evict(4)
	if got, _ := c.match("", []byte("aaaa")); len(got) != 2 {
		t.Error("LFU evicted the most hit leaf")
	}
}

func TestRadixNeverEvictsLockedNodes(t *testing.T) {
	c, p := cacheWith(16, 2, "lru")
	store(t, c, p, "", "aaaaaaaa")
	store(t, c, p, "", "bbbb")
	_, node := c.match("", []byte("aaaaaaaa"))
	c.lock(node)
	if c.protected != 8 || c.evictable != 4 {
		t.Fatalf("protected %d evictable %d after locking 8 tokens; want 8 and 4", c.protected, c.evictable)
	}
	freed := c.evict(1000)
	if freed != 4 {
		t.Fatalf("evict freed %d tokens; only the 4 unlocked ones may go", freed)
	}
	if got, _ := c.match("", []byte("aaaaaaaa")); len(got) != 4 {
		t.Fatal("a locked path was evicted")
	}
	c.unlock(node)
	if c.protected != 0 || c.evictable != 8 {
		t.Fatalf("after unlock protected %d evictable %d; want 0 and 8", c.protected, c.evictable)
	}
	if freed := c.evict(1000); freed != 8 {
		t.Fatalf("after unlock evict freed %d, want 8", freed)
	}
	if p.availablePages() != 16 {
		t.Fatalf("pool has %d free pages after evicting everything, want 16", p.availablePages())
	}
}

func TestRadixParentBecomesEvictableAfterItsChildren(t *testing.T) {
	c, p := cacheWith(16, 2, "lru")
	store(t, c, p, "", "aaaabb")
	mine, _ := p.alloc(3)
	c.insert("", []byte("aaaacc"), mine, 1) // splits into aaaa -> {bb, cc}
	// Whole nodes go: the two leaves (4 tokens) are not enough, so their parent follows.
	if freed := c.evict(6); freed != 8 {
		t.Fatalf("evict(6) freed %d; want the leaves (4 tokens) and then their parent (4)", freed)
	}
	if len(c.rootFor("").children) != 0 {
		t.Fatal("the emptied parent is still in the tree")
	}
}
