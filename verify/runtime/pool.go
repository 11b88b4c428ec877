package runtime

import "slices"

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
	free      []int32
	staged    []int32
	zeroAlloc bool
	used      int // pages handed out
	peakUsed  int
}

func newPool(tokens, pageSize int, zeroOnAlloc bool) *pool {
	n := tokens / pageSize
	p := &pool{
		pageSize:  pageSize,
		numPages:  n,
		cells:     make([]cell, n*pageSize),
		allocated: make([]bool, n),
		version:   make([]uint32, n),
		free:      make([]int32, n),
		zeroAlloc: zeroOnAlloc,
	}
	for i := range p.free {
		p.free[i] = int32(i)
	}
	return p
}

func (p *pool) availablePages() int  { return len(p.free) + len(p.staged) }
func (p *pool) availableTokens() int { return p.availablePages() * p.pageSize }

// alloc hands out n pages, or nothing when fewer than n are available.
func (p *pool) alloc(n int) ([]int32, bool) {
	if n <= 0 {
		return nil, true
	}
	if n > len(p.free) {
		p.mergeAndSortFree()
	}
	if n > len(p.free) {
		return nil, false
	}
	out := slices.Clone(p.free[:n])
	p.free = p.free[n:]
	for _, pg := range out {
		p.allocated[pg] = true
		if p.zeroAlloc {
			clear(p.cells[int(pg)*p.pageSize : (int(pg)+1)*p.pageSize])
			p.version[pg]++
		}
	}
	p.used += n
	p.peakUsed = max(p.peakUsed, p.used)
	return out, true
}

func (p *pool) mergeAndSortFree() {
	if len(p.staged) == 0 {
		return
	}
	p.free = append(p.free, p.staged...)
	p.staged = p.staged[:0]
	slices.Sort(p.free)
}

// release returns pages to the allocator. Like _release_page_ids, it ignores pages that
// are out of range or not allocated, so a double free is harmless to the allocator — but
// not to whoever still holds the page.
func (p *pool) release(pages []int32) {
	for _, pg := range pages {
		if pg < 0 || int(pg) >= p.numPages || !p.allocated[pg] {
			continue
		}
		p.allocated[pg] = false
		p.staged = append(p.staged, pg)
		p.used--
	}
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
