package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

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
	cmd := &cobra.Command{
		Use:   "serve --scenario FILE --listen 127.0.0.1:PORT",
		Short: "Serve a scenario's runtime behind an OpenAI-compatible API on loopback",
		Long: `serve boots the runtime a scenario file describes (its workers, router, timing
and fault models; its workload is not played) and serves it until interrupted:

  POST /v1/completions   {"prompt", "max_tokens", "cache_salt", "user"}, tenant
                         in the X-Tenant header (else "user")
  GET  /v1/models, /health
  GET  /kvlint/result    what the runtime measured so far (leaks, retractions, …)

Time is virtual: compare the X-Kvlint-Ttft-Us response header, not the wall
clock. The address must be on loopback (127.0.0.1, ::1 or localhost): kvlint
never touches the network beyond this machine. Port 0 picks a free port; the
address is printed.

Exit status: 0 after an interrupt, 2 usage error (including a non-loopback
address or a port in use), 3 the scenario file could not be read.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if scenarioPath == "" {
				return usagef("--scenario FILE is required")
			}
			addr, err := loopbackAddr(listen)
			if err != nil {
				return err
			}
			sc, err := runtime.LoadScenario(scenarioPath)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "kvlint: %v\n", err)
				return exitError{exitInput}
			}
			if err := sc.Validate(); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "kvlint: %s: %v\n", scenarioPath, err)
				return exitError{exitInput}
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return usagef("--listen %s: %v", listen, err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			fmt.Fprintf(cmd.OutOrStdout(), "kvlint runtime: serving %s on http://%s (POST /v1/completions); interrupt to stop\n", scenarioPath, ln.Addr())
			return runtime.Serve(ctx, sc, ln)
		},
	}
	cmd.Flags().StringVar(&scenarioPath, "scenario", "", "scenario file (YAML or JSON) describing the workers, router, timing and faults")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "loopback address to serve on: 127.0.0.1:PORT, [::1]:PORT or localhost:PORT")
	return cmd
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
