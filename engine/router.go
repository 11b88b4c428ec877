package engine

import (
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// routerRoutes reads the routes sglang_router.launch_router's flags name
// (sgl-model-gateway bindings/python/src/sglang_router/router_args.py):
// --prefill URL [BOOTSTRAP_PORT] (append, nargs "+": the optional bootstrap
// port, an integer or "none", follows its URL), --decode URL, --worker-urls
// URL…, and with --service-discovery the --prefill-selector,
// --decode-selector and --selector label sets ("k=v" words), looked up in
// --service-discovery-namespace. A flag whose value is a placeholder names
// no route: its servers cannot be known.
func routerRoutes(args map[string]deploy.Value) []deploy.Route {
	var out []deploy.Route
	for _, e := range prefillEntries(routeWords(args["--prefill"])) {
		out = append(out, deploy.Route{Role: deploy.RolePrefill, Target: e[0], BootstrapPort: e[1]})
	}
	for _, flag := range []struct {
		name string
		role deploy.Role
	}{{"--decode", deploy.RoleDecode}, {"--worker-urls", ""}} {
		for _, u := range routeWords(args[flag.name]) {
			out = append(out, deploy.Route{Role: flag.role, Target: u})
		}
	}
	if on, _ := args["--service-discovery"].Typed.Bool(); !on {
		return out
	}
	ns, _ := args["--service-discovery-namespace"].Typed.Str()
	ns = strings.TrimSpace(ns)
	for _, flag := range []struct {
		name string
		role deploy.Role
	}{{"--prefill-selector", deploy.RolePrefill}, {"--decode-selector", deploy.RoleDecode}, {"--selector", ""}} {
		v := args[flag.name]
		words := routeWords(v)
		if len(words) == 0 {
			continue
		}
		out = append(out, deploy.Route{Role: flag.role, Target: v.Raw, Discovery: true, Selector: selector(words), Namespace: ns})
	}
	return out
}

// routeWords are the words of a list flag's typed value, every occurrence's
// items in order, each split at white space (a quoted "URL PORT" is two
// words to kvlint); nil when the value is not known.
func routeWords(v deploy.Value) []string {
	var out []string
	var walk func(t deploy.Typed)
	walk = func(t deploy.Typed) {
		if items, ok := t.List(); ok {
			for _, it := range items {
				walk(it)
			}
			return
		}
		if s, ok := t.Str(); ok {
			out = append(out, strings.Fields(s)...)
		}
	}
	walk(v.Typed)
	return out
}

// prefillEntries splits --prefill's words into (URL, bootstrap port) pairs.
func prefillEntries(words []string) [][2]string {
	var out [][2]string
	for _, w := range words {
		if isBootstrapPort(w) && len(out) > 0 && out[len(out)-1][1] == "" {
			out[len(out)-1][1] = w
			continue
		}
		out = append(out, [2]string{w, ""})
	}
	return out
}

func isBootstrapPort(w string) bool {
	if strings.EqualFold(w, "none") {
		return true
	}
	_, err := strconv.Atoi(w)
	return err == nil
}

// selector reads "k=v" words into labels; nil when a word is not k=v with
// a key, so the selector matches nothing.
func selector(words []string) map[string]string {
	sel := make(map[string]string, len(words))
	for _, kv := range words {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil
		}
		sel[k] = v
	}
	return sel
}
