package runtime

import (
	"slices"
	"testing"
)

func TestPoolAllocStagesFreedPagesUntilShort(t *testing.T) {
	p := newPool(64, 16, false) // 4 pages
	a, ok := p.alloc(2)
	if !ok || !slices.Equal(a, []int32{0, 1}) {
		t.Fatalf("alloc(2) = %v, %v; want [0 1]", a, ok)
	}
	p.release([]int32{1, 0})
	// need_sort: the freed pages wait in staging while the free list has enough.
	b, _ := p.alloc(1)
	if !slices.Equal(b, []int32{2}) {
		t.Fatalf("alloc(1) = %v; want [2] from the free list, not a staged page", b)
	}
	// Short now (1 free, 2 staged): merge and sort.
	c, ok := p.alloc(3)
	if !ok || !slices.Equal(c, []int32{0, 1, 3}) {
		t.Fatalf("alloc(3) = %v, %v; want [0 1 3] after merge_and_sort_free", c, ok)
	}
	if _, ok := p.alloc(1); ok {
		t.Fatal("alloc from an empty pool succeeded")
	}
	if p.availableTokens() != 0 || p.peakUsed != 4 {
		t.Fatalf("available %d peak %d; want 0 and 4", p.availableTokens(), p.peakUsed)
	}
}

func TestPoolDoubleFreeIsIgnored(t *testing.T) {
	p := newPool(32, 16, false)
	a, _ := p.alloc(1)
	p.release(a)
	p.release(a)
	p.release([]int32{-1, 99})
	if got := p.availablePages(); got != 2 {
		t.Fatalf("available pages %d after a double free; want 2", got)
	}
}

func TestPoolKeepsBytesOfFreedPagesUnlessZeroing(t *testing.T) {
	for _, zero := range []bool{false, true} {
		p := newPool(16, 16, zero)
		a, _ := p.alloc(1)
		p.write(a[0], 3, cell{tok: 'x', writer: 1})
		p.release(a)
		b, _ := p.alloc(1)
		got := p.at(b[0], 3)
		if zero && got != (cell{}) {
			t.Errorf("zeroing pool: reallocated page still holds %+v", got)
		}
		if !zero && got.tok != 'x' {
			t.Errorf("pool without zeroing: reallocated page lost its old bytes (%+v); SGLang does not clear freed pages", got)
		}
	}
}
