package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Bounds of an endpoint audit: it is an audit of a staging server, never a load test.
const (
	MaxEndpointRequests     = 10_000
	DefaultEndpointRequests = 6 * DefaultSamples
	DefaultEndpointRate     = 20.0 // requests per second
	// endpointPromptChars is the length of the audit's prompts: long enough that
	// prefilling it is measurable, short enough for any context window.
	endpointPromptChars = 2048
	// endpointWarmup requests open the connection and wake the server before measuring.
	endpointWarmup  = 2
	maxEndpointBody = 1 << 20
)

// EndpointOptions are the settings of a live-endpoint audit.
type EndpointOptions struct {
	// URL is the server's base URL (http://host:port) or its completions URL; requests
	// go to it alone, and no redirect is followed.
	URL string
	// Requests bounds every request the audit sends, warm-up included; Rate bounds how
	// many it sends per second.
	Requests int
	Rate     float64
	// TenantHeader names the header that tells the server who the tenant is (e.g.
	// X-Tenant); SaltField the request body field that carries a per-tenant cache salt
	// (SGLang and vLLM: cache_salt). The victim and the attacker differ in whichever is set.
	TenantHeader string
	SaltField    string
	// Model is the body's "model" (omitted when empty).
	Model string
	Seed  uint64
	// Client sends the requests; nil is a client with a 60 s timeout.
	Client *http.Client
	// Progress, when set, is called after each request with the requests sent and planned.
	Progress func(done, total int)
}

// EndpointReport is the audit's answer (JSON "endpoint").
type EndpointReport struct {
	URL         string  `json:"url"`
	Requests    int     `json:"requests"`
	PValue      float64 `json:"p_value"`
	AUC         float64 `json:"auc"`
	Power       float64 `json:"power"`
	Significant bool    `json:"significant"`
	Alpha       float64 `json:"alpha"`
	// PowerMethod says how Power was computed.
	PowerMethod     string        `json:"power_method"`
	SamplesPerArm   int           `json:"samples_per_arm"`
	Control         KSTest        `json:"control"`
	PositiveControl KSTest        `json:"positive_control"`
	Arms            []EndpointArm `json:"arms"`
	Failed          int           `json:"failed"`
	Summary         string        `json:"summary"`
}

// EndpointArm is one arm of an endpoint audit: what a black box shows, wall-clock time
// (no cached-token count: a server need not report one).
type EndpointArm struct {
	Arm          string  `json:"arm"`
	Samples      int     `json:"samples"`
	MedianTTFTUs float64 `json:"median_ttft_us"`
}

// completionsURL is the URL every request of the audit goes to.
func completionsURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the URL, credentials and all: say only what is wrong.
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, fmt.Errorf("the URL cannot be parsed: %v", ue.Err)
		}
		return nil, err
	}
	if u.User != nil {
		return nil, fmt.Errorf("%s: credentials in the URL are not sent, nor printed", u.Redacted())
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%q: want an http:// or https:// URL with a host", u.Redacted())
	}
	if !strings.HasSuffix(u.Path, "/completions") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/completions"
	}
	return u, nil
}

// AuditEndpoint runs the prompt-caching audit of Gu et al. against an OpenAI-compatible
// server: per trial a fresh random prompt; the arms HIT-cross (the victim sends P, the
// attacker P′ sharing its first 95%), HIT-same (the victim sends both: the positive
// control), MISS (the attacker sends a fresh prompt) and A/A (a second MISS: the negative
// control), in seeded random order, one request at a time. Time to first token is the wall
// time of a non-streaming request for one token. The HIT-cross and A/A arms are tested
// against MISS with the one-sided KS test and AUC at FamilyAlpha.
func AuditEndpoint(ctx context.Context, opt EndpointOptions) (*EndpointReport, error) {
	target, err := completionsURL(opt.URL)
	if err != nil {
		return nil, err
	}
	if opt.Requests <= 0 {
		opt.Requests = DefaultEndpointRequests
	}
	if opt.Rate <= 0 {
		opt.Rate = DefaultEndpointRate
	}
	// Each trial of a HIT arm costs two requests, of the others one: six per sample.
	samples := (min(opt.Requests, MaxEndpointRequests) - endpointWarmup) / 6
	if samples < 5 {
		return nil, fmt.Errorf("%d requests leave fewer than 5 samples per arm (each sample costs 6 requests, plus %d warm-up)", opt.Requests, endpointWarmup)
	}
	client := opt.Client
	if client == nil {
		client = &http.Client{Timeout: 60 * time.Second}
	}
	cl := *client
	// Only the URL given: a redirect elsewhere (or anywhere) is not followed.
	cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	r := newRand(opt.Seed, "endpoint")
	tag := fmt.Sprintf("%08x", r.Uint32())
	who := map[string]string{victim: "kvlint-victim-" + tag, attacker: "kvlint-attacker-" + tag}
	rep := &EndpointReport{URL: target.String(), Alpha: FamilyAlpha, SamplesPerArm: samples, Arms: []EndpointArm{}}
	gap := time.Duration(float64(time.Second) / opt.Rate)
	planned := endpointWarmup + 6*samples
	var last time.Time
	send := func(tenant, prompt string) (float64, error) {
		if wait := time.Until(last.Add(gap)); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		body := map[string]any{"prompt": prompt, "max_tokens": 1, "temperature": 0}
		if opt.Model != "" {
			body["model"] = opt.Model
		}
		if opt.SaltField != "" {
			body[opt.SaltField] = who[tenant]
		}
		buf, _ := json.Marshal(body)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), bytes.NewReader(buf))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		if opt.TenantHeader != "" {
			req.Header.Set(opt.TenantHeader, who[tenant])
		}
		rep.Requests++
		if opt.Progress != nil {
			opt.Progress(rep.Requests, planned)
		}
		// The clock starts after the progress line is written: the time
		// measured is the request's alone.
		last = time.Now()
		resp, err := cl.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxEndpointBody))
		resp.Body.Close()
		took := time.Since(last)
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("%s answered %s", target.Redacted(), resp.Status)
		}
		return float64(took / time.Microsecond), nil
	}
	for range endpointWarmup {
		if _, err := send(attacker, filler(r, endpointPromptChars)); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	order := make([]string, 0, 4*samples)
	for _, a := range arms {
		for range samples {
			order = append(order, a)
		}
	}
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	ttft := map[string][]float64{}
	shared := int(math.Round(prefixFraction * endpointPromptChars))
	for _, arm := range order {
		var t float64
		var err error
		switch arm {
		case armHitCross, armHitSame:
			p := filler(r, endpointPromptChars)
			if _, err = send(victim, p); err != nil {
				break
			}
			measuredBy := attacker
			if arm == armHitSame {
				measuredBy = victim
			}
			t, err = send(measuredBy, derived(r, p, shared))
		default:
			t, err = send(attacker, filler(r, endpointPromptChars))
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		if err != nil {
			rep.Failed++
			if rep.Failed > samples {
				return nil, fmt.Errorf("more than %d requests failed; the last: %w", samples, err)
			}
			continue
		}
		ttft[arm] = append(ttft[arm], t)
	}
	miss := ttft[armMiss]
	test := func(arm string) KSTest {
		d, p := KSGreater(ttft[arm], miss)
		return KSTest{Arm: arm, D: d, P: p, AUC: finite(AUC(ttft[arm], miss)),
			MedianGapUs: finite(median(miss) - median(ttft[arm])),
			Significant: len(ttft[arm]) > 0 && len(miss) > 0 && p < FamilyAlpha}
	}
	for _, a := range arms {
		rep.Arms = append(rep.Arms, EndpointArm{Arm: a, Samples: len(ttft[a]), MedianTTFTUs: finite(median(ttft[a]))})
	}
	cross := test(armHitCross)
	rep.Control, rep.PositiveControl = test(armAA), test(armHitSame)
	rep.PValue, rep.AUC, rep.Significant = cross.P, cross.AUC, cross.Significant
	// The effect to have power against is the server's own cache hit, as the positive
	// control shows it; a server that shows none gives the audit nothing to see.
	gain := max(0, rep.PositiveControl.MedianGapUs)
	rep.Power = finite(ksPower(miss, gain, 1, FamilyAlpha, newRand(opt.Seed, "endpoint-power")))
	rep.PowerMethod = fmt.Sprintf("simulation: %d audits of this size drawn from the measured MISS times, HIT times less the positive control's median gain (%s ms), tested at α", powerReplicates, trimMs(gain))
	rep.Summary = endpointVerdict(rep)
	rep.Summary = fmt.Sprintf("%s; HIT-cross vs MISS D⁺ = %.3f, p = %s, AUC = %.2f, power %.2f; HIT-same p = %s; A/A p = %s",
		rep.Summary, cross.D, formatP(cross.P), cross.AUC, rep.Power, formatP(rep.PositiveControl.P), formatP(rep.Control.P))
	return rep, nil
}

// endpointVerdict words what an audit's tests mean, in the order they must be
// read: a drifting A/A control voids the rest; a significant cross-tenant
// arm is sharing; no cross-tenant difference counts as evidence of
// isolation only when the positive control shows the server's own hit and
// the audit had the power to see it, and says which of the two it lacked
// otherwise.
func endpointVerdict(rep *EndpointReport) string {
	switch {
	case rep.Control.Significant:
		return "the A/A control is significant: the server's timing drifts, so no difference can be trusted"
	case rep.Significant:
		return "another tenant's prompt makes the attacker's measurably faster: the prefix cache is shared across tenants"
	case rep.PositiveControl.Significant && rep.Power >= minPower:
		return "the victim's own repeat hits and another tenant's does not: no cross-tenant sharing seen, with the power shown"
	case rep.PositiveControl.Significant && rep.Power <= 0:
		// finite() turns a power the simulation could not compute into 0:
		// no figure to quote.
		return "no cross-tenant difference, and the audit's power could not be computed from the measured times: no evidence either way"
	case rep.PositiveControl.Significant:
		return fmt.Sprintf("no cross-tenant difference, but an audit of this size would see the victim's own gain only %.0f%% of the time (power below %.2f): too few samples, no evidence either way", 100*rep.Power, minPower)
	default:
		return "no cross-tenant difference, but the victim's own repeat was not measurably faster either (prefix cache off, or too few samples): no evidence either way"
	}
}
