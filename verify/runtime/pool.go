package runtime

import (
	"math/bits"
	"slices"
)

// pool is a paged KV pool and its allocator, modelled on SGLang's
// PagedTokenToKVPoolAllocator (mem_cache/allocator/paged.py). In PD mode the allocator is
// built with need_sort=True (model_runner: need_sort = disaggregation_mode in
// ("decode", "prefill")): freed pages are staged, and only when an allocation runs short
// are the staged pages merged back and the free list sorted (merge_and_sort_free). Pages
// are not cleared when freed: their cells stay readable until someone writes over them.
type pool struct {
	pageSize  int
	numPages  int
	cells     []cell
	allocated []bool
	version   []uint32 // bumped on every write into the page
	// The free list is kept as two bitsets rather than slices of page numbers. SGLang's
	// free list is sorted after every merge and consumed from its front, so it always
	// holds ascending page numbers and an allocation takes its lowest pages: the lowest
	// set bits at or after cursor are exactly those pages, in that order. Staged pages
	// wait in their own bitset until a merge ORs them in, which is what sorting the
	// concatenation yields, without a sort or an allocation per freed page.
	free      []uint64
	staged    []uint64
	cursor    int // no free bit below this page
	nFree     int
	nStaged   int
	zeroAlloc bool
	used      int // pages handed out
	peakUsed  int
}

func newPool(tokens, pageSize int, zeroOnAlloc bool) *pool {
	n := tokens / pageSize
	words := (n + 63) / 64
	p := &pool{
		pageSize:  pageSize,
		numPages:  n,
		cells:     make([]cell, n*pageSize),
		allocated: make([]bool, n),
		version:   make([]uint32, n),
		free:      make([]uint64, words),
		staged:    make([]uint64, words),
		nFree:     n,
		zeroAlloc: zeroOnAlloc,
	}
	for i := range p.free {
		p.free[i] = ^uint64(0)
	}
	if r := n % 64; r != 0 {
		p.free[words-1] = 1<<r - 1
	}
	return p
}

func (p *pool) availablePages() int  { return p.nFree + p.nStaged }
func (p *pool) availableTokens() int { return p.availablePages() * p.pageSize }

// alloc hands out n pages, or nothing when fewer than n are available.
func (p *pool) alloc(n int) ([]int32, bool) {
	if n <= 0 {
		return nil, true
	}
	return p.appendAlloc(nil, n)
}

// appendAlloc is alloc appending the pages to dst; on failure dst comes back unchanged.
func (p *pool) appendAlloc(dst []int32, n int) ([]int32, bool) {
	if n <= 0 {
		return dst, true
	}
	if n > p.nFree {
		p.mergeAndSortFree()
	}
	if n > p.nFree {
		return dst, false
	}
	dst = slices.Grow(dst, n)
	taken := 0
	for wi := p.cursor / 64; taken < n; wi++ {
		word := p.free[wi]
		for word != 0 && taken < n {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			pg := int32(wi*64 + b)
			dst = append(dst, pg)
			p.allocated[pg] = true
			if p.zeroAlloc {
				clear(p.cells[int(pg)*p.pageSize : (int(pg)+1)*p.pageSize])
				p.version[pg]++
			}
			taken++
			p.cursor = int(pg) + 1
		}
		p.free[wi] = word
	}
	p.nFree -= n
	p.used += n
	p.peakUsed = max(p.peakUsed, p.used)
	return dst, true
}

// mergeAndSortFree is merge_and_sort_free: the staged pages join the free list, which
// is sorted again — for bitsets, an OR and a cursor back at the lowest page.
func (p *pool) mergeAndSortFree() {
	if p.nStaged == 0 {
		return
	}
	for i, w := range p.staged {
		p.free[i] |= w
	}
	clear(p.staged)
	p.nFree += p.nStaged
	p.nStaged = 0
	p.cursor = 0
}

// release returns pages to the allocator. Like _release_page_ids, it ignores pages that
// are out of range or not allocated, so a double free is harmless to the allocator — but
// not to whoever still holds the page.
func (p *pool) release(pages []int32) {
	for _, pg := range pages {
		p.releasePage(pg)
	}
}

// releasePage is release for a single page.
func (p *pool) releasePage(pg int32) {
	if pg < 0 || int(pg) >= p.numPages || !p.allocated[pg] {
		return
	}
	p.allocated[pg] = false
	p.staged[pg/64] |= 1 << (pg % 64)
	p.nStaged++
	p.used--
}

func (p *pool) at(page int32, off int) cell {
	if page < 0 || int(page) >= p.numPages || off < 0 || off >= p.pageSize {
		return cell{}
	}
	return p.cells[int(page)*p.pageSize+off]
}

func (p *pool) write(page int32, off int, c cell) {
	if page < 0 || int(page) >= p.numPages || off < 0 || off >= p.pageSize {
		return
	}
	p.cells[int(page)*p.pageSize+off] = c
	p.version[page]++
}

// pageTable maps a request's token positions to pool pages.
type pageTable []int32

// cellAt reads position pos of a sequence through its page table.
func (p *pool) cellAt(pt pageTable, pos int) cell {
	i := pos / p.pageSize
	if i < 0 || i >= len(pt) {
		return cell{}
	}
	return p.at(pt[i], pos%p.pageSize)
}

func (p *pool) writeAt(pt pageTable, pos int, c cell) {
	i := pos / p.pageSize
	if i < 0 || i >= len(pt) {
		return
	}
	p.write(pt[i], pos%p.pageSize, c)
}

func pagesFor(tokens, pageSize int) int { return (tokens + pageSize - 1) / pageSize }
