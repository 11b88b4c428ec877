package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/rules"
	"github.com/kvlint/kvlint/verify"
	"github.com/kvlint/kvlint/verify/runtime"
)

func newRuntimeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runtime",
		Short: "The miniature prefill/decode runtime kvlint verify runs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("kvlint runtime needs a subcommand: serve")
		},
	}
	cmd.AddCommand(newRuntimeServeCmd())
	return cmd
}

func newRuntimeServeCmd() *cobra.Command {
	var scenarioPath, listen string
	var realTime bool
	var flags commonFlags
	cmd := &cobra.Command{
		Use:   "serve [PATH...] [--scenario FILE] --listen 127.0.0.1:PORT",
		Short: "Serve a deployment's (or a scenario's) runtime behind an OpenAI-compatible API on loopback",
		Long: `serve boots the runtime a scenario file describes (its workers, router, timing
and fault models; its workload is not played), or the first SGLang deployment
found in the deployment files at PATH, configured as kvlint verify models it:
its pools, its prefix cache (--disable-radix-cache), its enforced isolation key
(a namespace per tenant) and the modelled costs of its model on its GPU. It
serves until interrupted:

  POST /v1/completions   {"prompt", "max_tokens", "cache_salt", "user"}, tenant
                         in the X-Tenant header (else "user")
  GET  /v1/models, /health
  GET  /kvlint/result    what the runtime measured so far (leaks, retractions, …)

A deployment is served in real time: a request answers after its modelled
duration, so a client's own stopwatch measures the model (kvlint verify
--endpoint does). A scenario is served on its virtual clock unless --real-time
is given; compare the X-Kvlint-Ttft-Us response header then. The address must
be on loopback (127.0.0.1, ::1 or localhost): kvlint never touches the
network beyond this machine. Port 0 picks a free port; the bound address is
printed.

Exit status: 0 after an interrupt, 2 usage error (including a non-loopback
address or a port in use), 3 the scenario or deployment files could not be
read, or hold no deployment the runtime can model.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			if scenarioPath == "" && len(paths) == 0 {
				return usagef("serve needs deployment files (PATH) or --scenario FILE")
			}
			if scenarioPath != "" && len(paths) > 0 {
				return usagef("serve takes deployment files (PATH) or --scenario FILE, not both")
			}
			addr, err := loopbackAddr(listen)
			if err != nil {
				return err
			}
			var sc runtime.Scenario
			what := scenarioPath
			if scenarioPath != "" {
				if sc, err = runtime.LoadScenario(scenarioPath); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "kvlint: %v\n", err)
					return exitError{exitInput}
				}
				if err := sc.Validate(); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "kvlint: %s: %v\n", scenarioPath, err)
					return exitError{exitInput}
				}
			} else {
				res, _, err := flags.analyse(cmd.Context(), paths)
				if err != nil {
					return err
				}
				for _, e := range res.Errors {
					fmt.Fprintf(cmd.ErrOrStderr(), "kvlint: %s\n", e.Error())
				}
				served, err := verify.ServeScenario(res, verify.Options{Seed: 1, Tenancy: deploy.Tenancy(flags.tenancy)})
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "kvlint: %v\n", err)
					return exitError{exitInput}
				}
				sc, what, realTime = served.Scenario, "deployment "+served.Deployment, true
				if len(served.Others) > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "kvlint: serving %s; not served: %s\n", served.Deployment, strings.Join(served.Others, ", "))
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "kvlint: prefix cache %s, isolation %s, timing %s (model %s on GPU %s)\n",
					onOff(served.Scaling.PrefixCache), served.Scaling.Isolation, served.Timing.Source, quotedOrUnknown(served.Timing.Model), quotedOrUnknown(served.Timing.GPU))
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return usagef("--listen %s: %v", listen, err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			fmt.Fprintf(cmd.OutOrStdout(), "kvlint runtime: serving %s on http://%s (POST /v1/completions); interrupt to stop\n", what, ln.Addr())
			return runtime.ServeWith(ctx, sc, ln, runtime.ServeOptions{RealTime: realTime})
		},
	}
	cmd.Flags().StringVar(&scenarioPath, "scenario", "", "scenario file (YAML or JSON) describing the workers, router, timing and faults")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "loopback address to serve on: 127.0.0.1:PORT, [::1]:PORT or localhost:PORT")
	cmd.Flags().BoolVar(&realTime, "real-time", false, "pace a scenario's virtual clock by the wall clock (a deployment is always served in real time)")
	cmd.Flags().StringVar(&flags.tenancy, "tenancy", "", "multi (the default) or single: whether tenants share servers")
	cmd.Flags().StringVar(&flags.gpu, "gpu", "", "GPU the servers run on when their files don't say (e.g. H100-80GB)")
	cmd.Flags().StringVar(&flags.configPath, "config", "", "configuration file (default: the .kvlint.yaml nearest the paths)")
	flags.policyTimeout = rules.DefaultTimeout
	return cmd
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// loopbackAddr checks that a --listen address is a port on loopback and returns it in the
// form net.Listen takes. A name other than localhost is refused rather than resolved.
func loopbackAddr(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", usagef("--listen %q: want HOST:PORT on loopback, such as 127.0.0.1:8080", s)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", usagef("--listen %q: the port must be a number from 0 to 65535", s)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		what := "a host that is not loopback"
		if host == "" || (ip != nil && ip.IsUnspecified()) {
			what = "every interface"
		}
		return "", usagef("--listen %q would serve on %s: kvlint serves only on loopback (127.0.0.1, ::1 or localhost) and never touches the network beyond this machine", s, what)
	}
	return net.JoinHostPort(ip.String(), port), nil
}

// quotedOrUnknown quotes a known name and says "unknown" for a nil one.
func quotedOrUnknown(p *string) string {
	if p == nil {
		return "unknown"
	}
	return strconv.Quote(*p)
}
