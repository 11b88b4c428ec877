package runtime

import "math/rand/v2"

// clock is the virtual clock: a queue of events ordered by time, then by the order they
// were scheduled, so a run is a pure function of its scenario and seed. Times are in
// microseconds.
//
// Timers (timeouts) are weak events: they fire in order like any other, but a run whose
// only pending events are timers is over, and they do not extend its duration.
type clock struct {
	now    int64
	last   int64 // time of the last strong event
	seq    uint64
	events eventHeap
	strong int
	fired  uint64
}

type event struct {
	at   int64
	seq  uint64
	weak bool
	fn   func()
}

func (c *clock) push(t int64, weak bool, fn func()) {
	if t < c.now {
		t = c.now
	}
	c.seq++
	if !weak {
		c.strong++
	}
	c.events.push(event{at: t, seq: c.seq, weak: weak, fn: fn})
}

func (c *clock) at(t int64, fn func()) { c.push(t, false, fn) }

func (c *clock) after(d int64, fn func()) { c.push(c.now+max(d, 0), false, fn) }

// timer schedules a weak event d microseconds from now.
func (c *clock) timer(d int64, fn func()) { c.push(c.now+max(d, 0), true, fn) }

// pending reports whether anything but timers is left.
func (c *clock) pending() bool { return c.strong > 0 }

func (c *clock) next() int64 { return c.events[0].at }

// step fires the earliest event.
func (c *clock) step() {
	e := c.events.pop()
	c.now = e.at
	if !e.weak {
		c.strong--
		c.last = e.at
	}
	c.fired++
	e.fn()
}

// eventHeap is a binary min-heap of events. It is typed rather than container/heap's
// interface so that pushing and popping an event does not box it on the heap. (at, seq)
// is unique per event, so the order events fire in is the same for any correct heap.
type eventHeap []event

func (h eventHeap) Len() int { return len(h) }

func (h eventHeap) less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	q := *h
	for i := len(q) - 1; i > 0; {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q[i], q[parent] = q[parent], q[i]
		i = parent
	}
}

func (h *eventHeap) pop() event {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q[n] = event{} // drop the closure so it can be collected
	q = q[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}

// newRand is a seeded generator for one component (stream), so that what one worker
// draws never shifts what another draws.
func newRand(seed uint64, stream string) *rand.Rand {
	s := uint64(0x6b766c696e74) // "kvlint"
	for i := 0; i < len(stream); i++ {
		s = mix64(s ^ uint64(stream[i]))
	}
	return rand.New(rand.NewPCG(seed, s))
}
