package engine

import (
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// frontendFlags are the frontend options kvlint reads, with the type each
// stores (components/src/dynamo/frontend/frontend_args.py
// FrontendArgGroup at ai-dynamo/dynamo 0243c51bb6e8, and
// common/configuration/groups/router_args.py RouterArgGroup for
// --router-mode). The frontend's other options are not checked: kvlint holds
// no table of them, so nothing is reported about its command line.
var frontendFlags = map[string]string{
	"--http-port":        "int",
	"--http-host":        "str",
	"--router-mode":      "str",
	"--namespace":        "str",
	"--namespace-prefix": "str",
	"--migration-limit":  "int",
}

// frontendServer is python -m dynamo.frontend: the deployment's router. It
// names no worker: it finds them through Dynamo's discovery backend
// (--discovery-backend etcd by default, or kubernetes), in the Dynamo
// namespace it is given (--namespace, or --namespace-prefix; with neither it
// serves the models of every namespace), where each worker registers under
// its own --namespace (runtime_args.py, default "dynamo"). Its one route is
// that discovery scope.
func frontendServer(l Launch) (*deploy.Server, Result) {
	res := Result{Args: map[string]deploy.Value{}}
	for i := 0; i < len(l.Argv); i++ {
		w := l.Argv[i]
		if !w.Known || !strings.HasPrefix(w.Raw, "--") {
			if !w.Known {
				res.Opaque = append(res.Opaque, w)
			}
			continue
		}
		name, _, hasEq := strings.Cut(w.Raw, "=")
		typ, ok := frontendFlags[name]
		if !ok {
			continue
		}
		var v deploy.Value
		switch {
		case hasEq:
			v = part(w, len(name)+1, len(w.Raw))
		case i+1 < len(l.Argv) && !looksLikeOption(l.Argv[i+1]):
			i++
			v = l.Argv[i]
		default:
			continue
		}
		if v.Known {
			if typ == "int" {
				if n, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
					v.Typed = deploy.TypedInt(n)
				}
			} else {
				v.Typed = deploy.TypedString(v.Raw)
			}
		}
		res.Args[name] = v
	}
	route := deploy.Route{Dynamo: true, Target: "dynamo namespace *"}
	scope, prefix := res.Args["--namespace-prefix"], true
	if !scope.IsSet() {
		scope, prefix = res.Args["--namespace"], false
	}
	switch {
	case scope.IsSet() && !scope.Known:
		// A placeholder may name any namespace: every worker may match.
		route.Target = "dynamo namespace " + scope.Raw
	case scope.IsSet():
		route.DynamoNamespace, route.DynamoPrefix = scope.Raw, prefix
		route.Target = "dynamo namespace " + scope.Raw
		if prefix {
			route.Target += "*"
		}
	}
	srv := &deploy.Server{
		Engine: deploy.EngineDynamoFrontend,
		Span:   l.Command.Span,
		Args:   res.Args,
		Role:   deploy.RoleRouter,
		Routes: []deploy.Route{route},
		Opaque: res.Opaque,
		Dynamo: true,
	}
	return srv, res
}
