package fixes

import (
	"fmt"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// KV210 (vllm_kv_transfer.rego) reports vLLM servers of one deployment
// whose --kv-transfer-config does not pair up: a consumer whose
// kv_connector differs from a producer's, or servers that all produce (or
// all consume). kv_role kv_producer sends, kv_consumer receives and
// kv_both does either (a vLLM fork, jsboige/vllm@ffd91ee17a79,
// vllm/config/kv_transfer.py: KVProducer = kv_producer|kv_both,
// KVConsumer = kv_consumer|kv_both, KVTransferConfig.is_kv_producer /
// is_kv_consumer). The fix writes the
// one value that makes the pair agree over the JSON value (or dotted
// option's value) the finding points at, keeping its quotes.
func init() {
	register("KV210", kvTransferAgree)
}

const (
	kvConnector = "--kv-transfer-config.kv_connector"
	kvRole      = "--kv-transfer-config.kv_role"
)

// transferMembers are the vLLM servers of the finding's deployment that
// set a kv_connector that is not null, as the rule collects them.
func transferMembers(s *Subject) []*deploy.Server {
	for _, d := range s.Deployments {
		mine := false
		for _, x := range d.Servers {
			mine = mine || x == s.Server
		}
		if !mine {
			continue
		}
		var out []*deploy.Server
		for _, x := range d.Servers {
			c, ok := x.Args[kvConnector]
			if x.Engine != deploy.EngineVLLM || !ok {
				continue
			}
			if str, isStr := c.Typed.Str(); c.Known && (c.Typed.IsNone() || isStr && str == "") {
				continue // kv_connector null: no transfer instance
			}
			out = append(out, x)
		}
		return out
	}
	return nil
}

// roleOf is a transfer server's kv_role ("" when it writes none); ok is
// false when the role is a placeholder.
func roleOf(x *deploy.Server) (string, bool) {
	v, ok := x.Args[kvRole]
	if !ok {
		return "", true
	}
	str, _ := v.Typed.Str()
	return str, v.Known
}

func produces(role string) bool { return role == "kv_producer" || role == "kv_both" }
func consumes(role string) bool { return role == "kv_consumer" || role == "kv_both" }

func kvTransferAgree(s *Subject) []diag.Fix {
	if s.Server == nil {
		return nil
	}
	switch s.Finding.Arg {
	case kvConnector:
		return connectorAgree(s)
	case kvRole:
		return roleAgree(s)
	}
	return nil
}

// connectorAgree writes the producers' kv_connector on the consumer the
// finding is about, when every other producer of the deployment names the
// same one: the consumer receives in the format the producers send.
func connectorAgree(s *Subject) []diag.Fix {
	mine, ok := s.Server.Args[kvConnector]
	if !ok || !mine.Known || mine.Span != s.Finding.Span {
		return nil
	}
	want := ""
	for _, x := range transferMembers(s) {
		if x == s.Server {
			continue
		}
		role, ok := roleOf(x)
		if !ok {
			return nil
		}
		if !produces(role) {
			continue
		}
		c := x.Args[kvConnector]
		str, isStr := c.Typed.Str()
		if !c.Known || !isStr {
			return nil
		}
		if want != "" && str != want {
			return nil // the producers disagree among themselves: no one value
		}
		want = str
	}
	cur, _ := mine.Typed.Str()
	if want == "" || want == cur {
		return nil
	}
	f := s.replace(mine, cur, want, fmt.Sprintf("kv_connector %s on %s (the connector its producers send with)", want, where(s.Server)))
	return []diag.Fix{*f}
}

// roleAgree makes one server of a deployment whose transfer servers all
// produce a consumer (or, all consuming, a producer): the server whose
// name or labels say it decodes (prefills). The same fix is given to every
// finding of the deployment, so applying it once clears them all; with no
// one such server, nothing in the files says which side to turn.
func roleAgree(s *Subject) []diag.Fix {
	members := transferMembers(s)
	allProduce, allConsume := true, true
	for _, x := range members {
		role, ok := roleOf(x)
		if !ok {
			return nil
		}
		allProduce = allProduce && produces(role) && role != "kv_both"
		allConsume = allConsume && consumes(role) && role != "kv_both"
	}
	var side, want string
	switch {
	case allProduce:
		side, want = "decode", "kv_consumer"
	case allConsume:
		side, want = "prefill", "kv_producer"
	default:
		return nil // a role is missing: the rule fires for both, and no one value fixes it
	}
	var pick *deploy.Server
	for _, x := range members {
		if says(x, side) {
			if pick != nil {
				pick = nil
				break
			}
			pick = x
		}
	}
	desc := fmt.Sprintf("kv_role %s on the %s server", want, side)
	if pick == nil {
		return []diag.Fix{{Description: desc, Unwritable: fmt.Sprintf("no one server's name or labels say it is the %s side: set kv_role %s on that server by hand", side, want)}}
	}
	v := pick.Args[kvRole]
	cur, _ := v.Typed.Str()
	f := s.replace(v, cur, want, fmt.Sprintf("%s %s (its name says it is the %s side)", desc, where(pick), side))
	return []diag.Fix{*f}
}

// says reports whether a server's name or a label value names the word as
// a whole part ("decode", "vllm-decode", "llm-d.ai/role: decode").
func says(x *deploy.Server, word string) bool {
	parts := func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}
	for _, p := range strings.FieldsFunc(strings.ToLower(x.Name), parts) {
		if p == word {
			return true
		}
	}
	for _, v := range x.Labels {
		if strings.EqualFold(v, word) {
			return true
		}
	}
	return false
}
