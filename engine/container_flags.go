package engine

// The run options of the container CLIs, as data: for each option, whether
// it takes a value. Every CLI here parses with spf13/pflag and
// SetInterspersed(false), so the first word that is not an option is the
// image (or the compose service) and everything after it belongs to the
// container.

// runOptions is one command's option table.
type runOptions struct {
	// long maps a long option name (without "--") to whether it takes a
	// value; short does the same for one-letter options.
	long  map[string]bool
	short map[byte]bool
	// help is the option that prints usage instead of running anything.
	help string
}

func (o runOptions) with(long map[string]bool, short map[byte]bool) runOptions {
	out := runOptions{long: map[string]bool{}, short: map[byte]bool{}, help: o.help}
	for k, v := range o.long {
		out.long[k] = v
	}
	for k, v := range o.short {
		out.short[k] = v
	}
	for k, v := range long {
		out.long[k] = v
	}
	for k, v := range short {
		out.short[k] = v
	}
	return out
}

// optNames builds a long-option map in which every name has the same arity.
func optNames(value bool, list ...string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, n := range list {
		m[n] = value
	}
	return m
}

// optUnion is the union of option maps.
func optUnion(maps ...map[string]bool) map[string]bool {
	out := map[string]bool{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// dockerRun is `docker run` / `docker container run`, read from
// docker/cli@28f756087eea5fa301f3fbf12b01ae62f91521c2:
// cli/command/container/opts.go addFlags (the container options, shared
// with docker create) and cli/command/container/run.go NewRunCommand (the
// options of run itself: -d, --sig-proxy, --name, --detach-keys, --pull,
// -q, --use-api-socket, --help, --platform, --disable-content-trust).
// Boolean options are the BoolVar/BoolVarP ones; every Var, StringVar,
// IntVar, ... takes a value (none of the custom opts types is a boolean
// flag).
var dockerRun = runOptions{
	help: "help",
	long: optUnion(
		optNames(false,
			"interactive", "tty", "read-only", "rm", "privileged", "publish-all",
			"no-healthcheck", "oom-kill-disable", "init",
			// run.go
			"detach", "sig-proxy", "quiet", "use-api-socket", "help", "disable-content-trust"),
		optNames(true,
			"attach", "device-cgroup-rule", "device", "gpus", "env", "env-file", "entrypoint",
			"group-add", "hostname", "domainname", "label", "label-file", "restart",
			"stop-signal", "stop-timeout", "sysctl", "ulimit", "user", "workdir",
			"cap-add", "cap-drop", "security-opt", "userns", "cgroupns",
			"add-host", "dns", "dns-opt", "dns-option", "dns-search", "expose", "ip", "ip6",
			"link", "link-local-ip", "mac-address", "publish", "net", "network",
			"net-alias", "network-alias", "log-driver", "volume-driver", "log-opt",
			"storage-opt", "tmpfs", "volumes-from", "volume", "mount",
			"health-cmd", "health-interval", "health-retries", "health-timeout",
			"health-start-period", "health-start-interval",
			"blkio-weight", "blkio-weight-device", "cidfile", "cpuset-cpus", "cpuset-mems",
			"cpu-count", "cpu-percent", "cpu-period", "cpu-quota", "cpu-rt-period",
			"cpu-rt-runtime", "cpu-shares", "cpus", "device-read-bps", "device-read-iops",
			"device-write-bps", "device-write-iops", "io-maxbandwidth", "io-maxiops",
			"memory", "memory-reservation", "memory-swap", "memory-swappiness",
			"oom-score-adj", "pids-limit", "cgroup-parent", "ipc", "isolation", "pid",
			"shm-size", "uts", "runtime", "annotation", "kernel-memory",
			// run.go
			"name", "detach-keys", "pull", "platform"),
	),
	short: map[byte]bool{
		// VarP / StringVarP / Int64VarP: take a value.
		'a': true, 'e': true, 'h': true, 'l': true, 'u': true, 'w': true,
		'p': true, 'v': true, 'c': true, 'm': true,
		// BoolVarP.
		'i': false, 't': false, 'P': false, 'd': false, 'q': false,
	},
}

// podmanRun is `podman run`: the options Docker's run has (podman keeps
// them for compatibility) plus podman's own, read from
// containers/podman@02a77d27a2a2fdb835b97634ecd8155bb1d3f357
// cmd/podman/common/create.go DefineCreateFlags (BoolVar: env-host,
// http-proxy, unsetenv-all, read-only-tmpfs, rootfs, replace; tls-verify is
// an optional bool, written alone or as --tls-verify=false), and
// containers/podman@050c638c0b3f137a6e95dbe27b39680d6d488751
// cmd/podman/containers/run.go runFlags (SetInterspersed(false); BoolVar
// rmi and passwd; preserve-fds, preserve-fd and detach-keys take a value).
// An option in neither table (podman's network flags beyond Docker's,
// common.DefineNetFlags, were not read) stops the reading: kvlint cannot
// tell whether it takes a value.
var podmanRun = dockerRun.with(optUnion(
	optNames(false, "env-host", "http-proxy", "unsetenv-all", "read-only-tmpfs", "rootfs",
		"replace", "tls-verify", "rmi", "passwd"),
	optNames(true, "preserve-fds", "preserve-fd"),
	optNames(true, "authfile", "cgroups", "env-merge", "unsetenv", "health-on-failure",
		"hostuser", "image-volume", "init-path", "arch", "os", "variant", "pod-id-file",
		"requires", "sdnotify", "secret", "health-startup-cmd", "health-startup-interval",
		"health-startup-retries", "health-startup-success", "health-startup-timeout",
		"systemd", "personality", "timeout", "tz", "umask", "seccomp-policy", "cgroup-conf",
		"pidfile", "chrootdirs", "passwd-entry", "group-entry", "decryption-key",
		"signature-policy", "shm-size-systemd", "subgidname", "subuidname", "gidmap",
		"uidmap", "conmon-pidfile", "pod"),
), nil)

// composeRun is `docker compose run SERVICE`, read from
// docker/compose@f72979427042620a94dd52ce78b39c68cb02c085
// cmd/compose/run.go runCommand (normalizeRunFlags maps --volumes,
// --labels and --no-TTY to --volume, --label and --no-tty; --dry-run is a
// persistent flag of the root command, compose.go RootCommand).
var composeRun = runOptions{
	help: "help",
	long: optUnion(
		optNames(false, "detach", "rm", "no-tty", "no-TTY", "no-deps", "use-aliases",
			"service-ports", "quiet", "quiet-build", "quiet-pull", "build", "remove-orphans",
			"interactive", "tty", "dry-run", "help"),
		optNames(true, "env", "env-from-file", "label", "labels", "name", "user", "workdir",
			"entrypoint", "cap-add", "cap-drop", "volume", "volumes", "publish", "pull"),
	),
	short: map[byte]bool{
		'e': true, 'l': true, 'u': true, 'w': true, 'v': true, 'p': true,
		'd': false, 'T': false, 'P': false, 'q': false, 'i': false, 't': false,
	},
}

// dockerGlobal are the options of `docker` itself, before the command:
// docker/cli@28f756087eea cli/flags/options.go InstallFlags.
var dockerGlobal = runOptions{
	long: optUnion(
		optNames(false, "debug", "tls", "tlsverify"),
		optNames(true, "config", "log-level", "tlscacert", "tlscert", "tlskey", "host", "context"),
	),
	short: map[byte]bool{'D': false, 'l': true, 'H': true, 'c': true},
}

// composeGlobal are the options of `docker compose` before its command:
// docker/compose@f72979427042 cmd/compose/compose.go addProjectFlags
// (--profile, -p, -f, --insecure-registry, --env-file, --project-directory,
// --workdir, --compatibility, --progress, --all-resources) and RootCommand
// (--ansi, --parallel, -v/--version, --dry-run, --no-ansi, --verbose).
var composeGlobal = runOptions{
	long: optUnion(
		optNames(false, "compatibility", "all-resources", "version", "dry-run", "no-ansi", "verbose"),
		optNames(true, "profile", "project-name", "file", "insecure-registry", "env-file",
			"project-directory", "workdir", "progress", "ansi", "parallel"),
	),
	short: map[byte]bool{'p': true, 'f': true, 'v': false},
}

// nerdctlRun is `nerdctl run`: containerd/nerdctl@f02039b5cde1607f1801ffe6e62baaae1d9e8c2e
// cmd/nerdctl/run.go newRunCommand (SetInterspersed(false), -d) and
// setCreateFlags. Its options are a subset of Docker's with the same
// arities ("-h" is --hostname there too), plus the ones below (Bool:
// rootfs; String/StringSlice: the rest). The Docker table is kept under it,
// so an option only Docker has is read as Docker reads it (nerdctl would
// exit on it; kvlint then reads a command that does not run).
var nerdctlRun = dockerRun.with(optUnion(
	optNames(false, "rootfs"),
	optNames(true, "init-binary", "rdt-class", "umask", "cgroup-conf", "pidfile", "verify",
		"cosign-key"),
), nil)
