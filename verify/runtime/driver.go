package runtime

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// driver plays the clients of a scenario's workload against a sim.
type driver struct {
	s       *sim
	wl      Workload
	rng     *rand.Rand
	shared  []byte
	cancels map[int]string // request id → stage at which it is cancelled
	next    int            // next generated request to send (closed loop)
	planned []*request     // generated requests, in order
	open    int            // main-workload requests not yet finished
	started bool           // extraction started
	x       *extraction
}

func newDriver(s *sim) *driver {
	d := &driver{s: s, wl: s.sc.Workload, rng: newRand(s.sc.Seed, "workload"), cancels: map[int]string{}}
	d.shared = letters(d.rng, d.wl.SharedPrefixTokens)
	s.stageHook = d.onStage
	return d
}

// letters is seeded filler: lowercase words, never a brace nor an upper-case letter, so it
// can neither open a secret nor contain a canary.
func letters(r *rand.Rand, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		if i%6 == 5 {
			out[i] = ' '
		} else {
			out[i] = 'a' + byte(r.IntN(26))
		}
	}
	return out
}

// secretPrompt is shared prefix + "{" + canary + "} " + filler up to length n.
func secretPrompt(r *rand.Rand, shared []byte, canary string, n int) []byte {
	p := make([]byte, 0, max(n, len(shared)+len(canary)+3))
	p = append(p, shared...)
	p = append(p, markerOpen)
	p = append(p, canary...)
	p = append(p, markerClose, ' ')
	if n > len(p) {
		p = append(p, letters(r, n-len(p))...)
	}
	return p
}

// z99 is the standard normal's 99th percentile.
const z99 = 2.3263478740408408

// logNormal draws a length with the given median whose 99th percentile is max, clipped to
// [1, max].
func logNormal(r *rand.Rand, median, most int) int {
	if most <= median {
		return median
	}
	sigma := math.Log(float64(most)/float64(median)) / z99
	n := int(math.Round(float64(median) * math.Exp(sigma*r.NormFloat64())))
	return min(most, max(1, n))
}

func (d *driver) pickTenant() int {
	total := 0
	for _, t := range d.wl.Tenants {
		total += *t.Weight
	}
	x := d.rng.IntN(total)
	for i, t := range d.wl.Tenants {
		if x < *t.Weight {
			return i
		}
		x -= *t.Weight
	}
	return 0
}

// plan creates every request of the workload and schedules what can be scheduled now.
func (d *driver) plan() {
	wl := d.wl
	for i := 0; i < wl.Requests; i++ {
		t := d.pickTenant()
		n, maxNew := 0, wl.MaxTokens
		if l := wl.Lengths; l != nil {
			n = logNormal(d.rng, l.PromptMedian, l.PromptMax)
			maxNew = logNormal(d.rng, l.OutputMedian, l.OutputMax)
		} else {
			n = wl.PromptTokens.Min + d.rng.IntN(wl.PromptTokens.Max-wl.PromptTokens.Min+1)
		}
		ten := d.s.tenants[t]
		r := d.s.newRequest("generated", "", t, secretPrompt(d.rng, d.shared, ten.canary, n), maxNew, ten.salt)
		if wl.Cancel.Fraction > 0 && d.rng.Float64() < wl.Cancel.Fraction {
			d.cancels[r.id] = wl.Cancel.Stage
		}
		d.track(r)
		d.planned = append(d.planned, r)
	}
	var at float64
	for i, r := range d.planned {
		switch wl.Arrival.Mode {
		case "burst":
			d.send(r, 0)
		case "rate":
			at += -math.Log(1-d.rng.Float64()) / wl.Arrival.RatePerSec * 1e6
			d.send(r, int64(at))
		case "closed":
			if i < wl.Arrival.Concurrency {
				d.send(r, 0)
				d.next = i + 1
			}
		}
	}
	for _, sr := range wl.Script {
		salt := d.s.tenants[d.s.tenantIx[sr.Tenant]].salt
		if sr.CacheSalt != nil {
			salt = *sr.CacheSalt
		}
		r := d.s.newRequest("scripted", sr.Label, d.s.tenantIx[sr.Tenant], []byte(sr.Prompt), sr.MaxTokens, salt)
		d.track(r)
		d.send(r, int64(sr.AtMs*1000))
		if sr.CancelAtMs > 0 {
			d.s.clock.at(int64(sr.CancelAtMs*1000), func() { d.s.cancel(r) })
		}
	}
	if x := wl.Extraction; x != nil && x.StartMs > 0 {
		d.s.clock.at(int64(x.StartMs*1000), d.startExtraction)
	}
	if d.open == 0 {
		d.s.clock.at(0, d.startExtraction)
	}
}

func (d *driver) track(r *request) {
	d.open++
	r.hooks = append(r.hooks, d.onFinish)
}

func (d *driver) send(r *request, at int64) {
	d.s.submit(r, at)
	if d.cancels[r.id] == "any" {
		delay := int64(d.rng.Float64() * d.wl.Cancel.WithinMs * 1000)
		d.s.clock.at(at+delay, func() { d.s.cancel(r) })
	}
}

func (d *driver) onStage(r *request, stage string) {
	if d.cancels[r.id] != stage {
		return
	}
	d.s.clock.after(int64(d.wl.Cancel.DelayMs*1000), func() { d.s.cancel(r) })
}

func (d *driver) onFinish(r *request) {
	d.open--
	if d.wl.Arrival.Mode == "closed" && r.kind == "generated" && d.next < len(d.planned) {
		d.send(d.planned[d.next], d.s.clock.now)
		d.next++
	}
	if d.open == 0 && (d.wl.Extraction == nil || d.wl.Extraction.StartMs == 0) {
		d.s.clock.after(0, d.startExtraction)
	}
}

// extraction is the attacker of Workload.Extraction.
type extraction struct {
	cfg       Extraction
	attacker  int
	victim    int
	salt      string
	page      int
	known     []byte
	recovered []byte
	width     int // bytes guessed at once: up to the next page boundary
	cand      int // index of the candidate, in base len(alphabet) over width digits
	cands     int // candidates at this width
	best      int
	bestHit   int
	probes    int
	stopped   string
	done      bool
}

func (d *driver) startExtraction() {
	xc := d.wl.Extraction
	if xc == nil || d.started {
		return
	}
	d.started = true
	x := &extraction{cfg: *xc, attacker: d.s.tenantIx[xc.Attacker], victim: d.s.tenantIx[xc.Victim]}
	x.salt = d.s.tenants[x.attacker].salt
	if xc.AttackerSalt != nil {
		x.salt = *xc.AttackerSalt
	}
	x.page = xc.PageSize
	if x.page <= 0 {
		x.page = d.s.prefills[0].cfg.PageSize
	}
	x.known = append(append([]byte(nil), d.shared...), markerOpen)
	d.x = x
	v := d.s.tenants[x.victim]
	primer := d.s.newRequest("victim", "extraction-primer", x.victim, secretPrompt(d.rng, d.shared, v.canary, len(d.shared)+len(v.canary)+40), 8, v.salt)
	primer.hooks = append(primer.hooks, func(*request) { d.nextPage() })
	d.s.submit(primer, d.s.clock.now)
}

// nextPage sets up the guesses for the bytes up to the next page boundary, or stops when
// they are more than the attacker's budget allows. SGLang's radix tree compares keys a
// whole page at a time (sgl-project/sglang@95769b28 python/sglang/srt/mem_cache/radix_cache.py
// _key_match_paged), so a guess that leaves a page incomplete matches nothing of it.
func (d *driver) nextPage() {
	x := d.x
	pos := len(x.known) + len(x.recovered)
	boundary := (pos/x.page + 1) * x.page
	x.width = boundary - pos
	x.cand, x.best, x.bestHit = 0, -1, -1
	n := len(x.cfg.Alphabet)
	x.cands = 1
	for range x.width {
		if x.cands > (x.cfg.MaxProbes-x.probes)/n {
			x.stopped = fmt.Sprintf("the next page boundary is %d bytes on: %d^%d guesses exceed the %d probes left", x.width, n, x.width, x.cfg.MaxProbes-x.probes)
			d.finishExtraction()
			return
		}
		x.cands *= n
	}
	d.probe()
}

// guess is the candidate bytes of index c.
func (x *extraction) guess(c int) []byte {
	n := len(x.cfg.Alphabet)
	out := make([]byte, x.width)
	for i := x.width - 1; i >= 0; i-- {
		out[i] = x.cfg.Alphabet[c%n]
		c /= n
	}
	return out
}

// probe sends the attacker's next guess: known prefix + recovered + candidate bytes up to
// the page boundary + one more byte, so that the whole page falls inside the part the cache
// can match (the last prompt token is always computed).
func (d *driver) probe() {
	x := d.x
	guess := append(append(append([]byte(nil), x.known...), x.recovered...), x.guess(x.cand)...)
	guess = append(guess, '~')
	r := d.s.newRequest("probe", "extraction-probe", x.attacker, guess, 1, x.salt)
	x.probes++
	r.hooks = append(r.hooks, func(r *request) {
		// What a production server reports: whole pages of the deployment's size.
		hit := r.reportedCached() / x.page * x.page
		if hit > x.bestHit {
			x.best, x.bestHit = x.cand, hit
		}
		x.cand++
		if x.cand < x.cands {
			d.probe()
			return
		}
		// A hit longer than everything the attacker itself has sent can only come from
		// someone else's cached prompt.
		if x.bestHit >= len(x.known)+len(x.recovered)+x.width {
			g := x.guess(x.best)
			if i := bytes.IndexByte(g, markerClose); i >= 0 {
				x.recovered = append(x.recovered, g[:i+1]...)
				d.finishExtraction()
				return
			}
			x.recovered = append(x.recovered, g...)
			if len(x.recovered) < x.cfg.MaxLength {
				d.nextPage()
				return
			}
		}
		d.finishExtraction()
	})
	d.s.submit(r, d.s.clock.now)
}

// finishExtraction makes the attacker ask the model to recite what it recovered: if that
// is the victim's canary, the attacker's client now holds it, and the scan counts it.
func (d *driver) finishExtraction() {
	x := d.x
	x.done = true
	secret := strings.TrimSuffix(string(x.recovered), "}")
	prompt := append(append([]byte(nil), x.known...), secret...)
	prompt = append(prompt, markerClose, ' ')
	r := d.s.newRequest("probe", "extraction-recital", x.attacker, prompt, len(secret)+3, x.salt)
	d.s.submit(r, d.s.clock.now)
}

func (d *driver) extractionResult() *ExtractionRun {
	if d.x == nil {
		return nil
	}
	x := d.x
	secret := strings.TrimSuffix(string(x.recovered), "}")
	return &ExtractionRun{
		Attacker:  d.s.tenants[x.attacker].name,
		Victim:    d.s.tenants[x.victim].name,
		Probes:    x.probes,
		Recovered: secret,
		Success:   secret != "" && secret == d.s.tenants[x.victim].canary,
		PageSize:  x.page,
		Stopped:   x.stopped,
	}
}
