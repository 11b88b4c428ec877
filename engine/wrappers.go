package engine

import (
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// wrapperSkip consumes a wrapper's own options starting at words[i] and
// returns the index of the command it runs; ok=false when the wrapper runs
// no command (taskset -p PID) or its options cannot be read.
type wrapperSkip func(words []deploy.Value, i int) (int, bool)

// optSpec describes a wrapper's getopt-style options: which short letters
// and which long names take a value. A long option's value may follow as
// "--opt=v" or as the next word; a short one's as "-ov" or "-o v".
type optSpec struct {
	shortWithValue string
	longWithValue  map[string]bool
	// positionals is how many words after the options belong to the
	// wrapper (taskset's mask, timeout's duration).
	positionals int
}

var wrappers map[string]wrapperSkip

func init() {
	set := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	wrappers = map[string]wrapperSkip{
		"env": skipEnv,
		// bash's exec builtin: exec [-cl] [-a name] command.
		"exec":  optSpec{shortWithValue: "a"}.skip,
		"nohup": optSpec{}.skip,
		// numactl(8): options with an argument.
		"numactl": optSpec{shortWithValue: "imnNcCpPwoLMSfI", longWithValue: set(
			"--interleave", "--membind", "--cpunodebind", "--physcpubind", "--cpubind",
			"--preferred", "--preferred-many", "--weighted-interleave", "--offset",
			"--length", "--shmmode", "--shm", "--file", "--shmid", "--huge-page-size")}.skip,
		// taskset(1): [-a] [-c] MASK|LIST command; -p runs no command.
		"taskset": skipTaskset,
		// stdbuf(1): -i/-o/-e MODE.
		"stdbuf": optSpec{shortWithValue: "ioe", longWithValue: set("--input", "--output", "--error")}.skip,
		// timeout(1): [-s SIG] [-k DUR] DURATION command.
		"timeout": optSpec{shortWithValue: "sk", longWithValue: set("--signal", "--kill-after"), positionals: 1}.skip,
		// nice(1): -n N, --adjustment=N, or the old -N form.
		"nice":   optSpec{shortWithValue: "n", longWithValue: set("--adjustment")}.skip,
		"setsid": optSpec{}.skip,
		// bash's time keyword (-p) and GNU time(1) (-f FMT, -o FILE).
		"time": optSpec{shortWithValue: "fo", longWithValue: set("--format", "--output")}.skip,
		// sudo(8): -u USER, -g GROUP, -C NUM, -D DIR, -h HOST, -p PROMPT, -r ROLE, -t TYPE, -T TIMEOUT, -U USER.
		"sudo": optSpec{shortWithValue: "ugCDhprtTU", longWithValue: set(
			"--user", "--group", "--close-from", "--chdir", "--host", "--prompt",
			"--role", "--type", "--command-timeout", "--other-user")}.skip,
		"uv": skipUvRun,
		// Slurm's srun: the options srun registers with a required
		// argument (SchedMD/slurm@284c3b95f08a2dc2478499837b03355e1b9c5c75
		// src/common/slurm_opt.c: common_options entries with has_arg
		// required_argument and set_func or set_func_srun, as
		// slurm_option_table_create adds them). Its option string starts
		// with "+", so the first word that is not an option is the
		// command. The --container-* options with a value are those the
		// pyxis SPANK plugin adds on GPU clusters (NVIDIA/pyxis@a9c46341507e7225fc734f30bf15d30d884df9f0
		// args.c spank_opts, has_arg 1).
		"srun": optSpec{shortWithValue: "ABCDFGJLMNSTWbcdeimnopqrtwx", longWithValue: set(
			"--container-image", "--container-mounts", "--container-workdir", "--container-name", "--container-save",
			"--accel-bind", "--account", "--acctg-freq", "--autocomplete", "--bb", "--bbf",
			"--bcast-exclude", "--begin", "--chdir", "--cluster", "--cluster-constraint", "--clusters",
			"--comment", "--constraint", "--container", "--container-id", "--context", "--core-spec",
			"--cores-per-socket", "--cpu-bind", "--cpu-freq", "--cpu_bind", "--cpus-per-gpu",
			"--cpus-per-task", "--deadline", "--delay-boot", "--dependency", "--distribution",
			"--epilog", "--error", "--exclude", "--export", "--extra", "--extra-node-info",
			"--gpu-bind", "--gpu-freq", "--gpus", "--gpus-per-node", "--gpus-per-socket",
			"--gpus-per-task", "--gres", "--gres-flags", "--het-group", "--hint", "--ignore-signals",
			"--input", "--job-name", "--jobid", "--licenses", "--mail-type", "--mail-user",
			"--mcs-label", "--mem", "--mem-bind", "--mem-per-cpu", "--mem-per-gpu", "--mem-update",
			"--mincpus", "--mpi", "--msg-timeout", "--network", "--nodefile", "--nodelist", "--nodes",
			"--ntasks", "--ntasks-per-core", "--ntasks-per-gpu", "--ntasks-per-node",
			"--ntasks-per-socket", "--ntasks-per-tres", "--open-mode", "--output", "--pack-group",
			"--partition", "--prefer", "--priority", "--profile", "--prolog", "--qos", "--relative",
			"--reservation", "--resources", "--runtime", "--segment", "--signal", "--slurmd-debug",
			"--sockets-per-node", "--switches", "--task-epilog", "--task-prolog", "--tasks-per-node",
			"--thread-spec", "--threads", "--threads-per-core", "--time", "--time-min", "--tmp",
			"--treewidth", "--tres-bind", "--tres-per-task", "--wait", "--wckey")}.skip,
		"mpirun":  skipMpirun,
		"mpiexec": skipMpirun,
	}
}

// mpirunWithValue are Open MPI mpirun options that take a value
// (openpmix/prrte@52d5e4bb1fb6dab9c46636a797605b9629581cd6
// src/mca/schizo/ompi/schizo_ompi.c ompioptions, PMIX_ARG_REQD entries,
// with the names of src/util/prte_cmd_line.h and openpmix's
// src/util/pmix_cmd_line.h; its short options are "h::vVpn:c:N:sH:x:").
var mpirunWithValue = map[string]bool{}

func init() {
	for _, n := range []string{
		"N", "np", "n", "c", "H", "x", "app", "arch", "bindto", "cpu-list", "cpu-set", "cpus-per-proc", "cpus-per-rank", "default-hostfile", "display", "display-topo", "dvm", "file", "forward-signals", "gpu-support", "host", "hostfile", "initial-errhandler", "launch-agent", "machinefile", "mapby", "map-by", "max-restarts", "max-vm-size", "memory-alloc-kinds", "npernode", "npersocket", "output", "output-directory", "output-filename", "path", "personality", "ppr", "prefix", "preload-files", "pset", "rankby", "rank-by", "rankfile", "report-pid", "report-uri", "rtos", "spawn-timeout", "stdin", "stream-buffering", "timeout", "tmpdir", "tune", "wd", "wdir", "with-ft", "set-env", "prepend-env", "append-env", "unset-env", "app-pmix-prefix", "bind-to",
	} {
		mpirunWithValue[n] = true
	}
}

// skipMpirun reads mpirun/mpiexec options. As prrte's parse_cli does, a
// long option may be written with one dash (-np 4), and an option whose
// name ends in "mca" (--mca, --gmca, --prtemca, -mca ...) takes two words,
// the parameter and its value.
func skipMpirun(words []deploy.Value, i int) (int, bool) {
	for i < len(words) {
		w, ok := wordAt(words, i)
		if !ok {
			return 0, false
		}
		if w == "--" {
			return i + 1, true
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			break
		}
		name, _, hasEq := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case strings.HasSuffix(name, "mca"):
			i += 3
			continue
		case hasEq:
		case mpirunWithValue[name]:
			i++
		}
		i++
	}
	return i, i <= len(words)
}

// skip reads getopt options up to the first word that is not one ("--"
// ends them), then the wrapper's own positional words.
func (s optSpec) skip(words []deploy.Value, i int) (int, bool) {
	for i < len(words) {
		w, ok := wordAt(words, i)
		if !ok {
			return 0, false
		}
		if w == "--" {
			i++
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			break
		}
		if strings.HasPrefix(w, "--") {
			name, _, hasEq := strings.Cut(w, "=")
			if s.longWithValue[name] && !hasEq {
				i++
			}
			i++
			continue
		}
		// Short options: letters combine until one takes a value.
		i++
		for k := 1; k < len(w); k++ {
			if strings.IndexByte(s.shortWithValue, w[k]) >= 0 {
				if k == len(w)-1 {
					i++ // the value is the next word
				}
				break
			}
		}
	}
	i += s.positionals
	return i, i <= len(words)
}

// skipEnv reads env(1): -i, -0, -v, -u NAME, -C DIR, -S STRING (not
// followed: the command is inside the string), "-" and NAME=value words.
func skipEnv(words []deploy.Value, i int) (int, bool) {
	for i < len(words) {
		w := words[i]
		if isAssignment(w) {
			i++
			continue
		}
		if !w.Known {
			return 0, false
		}
		switch {
		case w.Raw == "-" || w.Raw == "--":
			i++
			continue
		case w.Raw == "-S" || strings.HasPrefix(w.Raw, "-S") || strings.HasPrefix(w.Raw, "--split-string"):
			return 0, false
		case w.Raw == "-u" || w.Raw == "-C" || w.Raw == "--unset" || w.Raw == "--chdir":
			i += 2
			continue
		case strings.HasPrefix(w.Raw, "-"):
			i++
			continue
		}
		break
	}
	return i, true
}

// skipTaskset reads taskset(1): options, then the mask or CPU list, then
// the command. With -p it changes a running process instead.
func skipTaskset(words []deploy.Value, i int) (int, bool) {
	for i < len(words) {
		w, ok := wordAt(words, i)
		if !ok {
			return 0, false
		}
		if !strings.HasPrefix(w, "-") {
			break
		}
		if w == "-p" || w == "--pid" || (!strings.HasPrefix(w, "--") && strings.ContainsRune(w, 'p')) {
			return 0, false
		}
		i++
	}
	return i + 1, i+1 <= len(words)
}

// uvRunWithValue are `uv run` options that take a value (uv's CLI
// reference for `uv run`).
var uvRunWithValue = map[string]bool{
	"--with": true, "--with-editable": true, "--with-requirements": true,
	"--python": true, "-p": true, "--project": true, "--directory": true,
	"--env-file": true, "--extra": true, "--group": true, "--no-group": true,
	"--only-group": true, "--package": true, "--index": true, "--default-index": true,
	"--index-url": true, "-i": true, "--extra-index-url": true, "--find-links": true,
	"-f": true, "--config-file": true, "--cache-dir": true, "--color": true,
	"--index-strategy": true, "--keyring-provider": true, "--resolution": true,
	"--prerelease": true, "--exclude-newer": true, "--link-mode": true,
	"--python-platform": true, "--refresh-package": true, "--reinstall-package": true,
	"--upgrade-package": true, "-P": true, "--no-binary-package": true,
	"--no-build-package": true, "--config-setting": true, "-C": true,
	"--allow-insecure-host": true, "--no-extra": true, "--max-recursion-depth": true,
}

// skipUvRun reads `uv run [opts] command`; `uv run -m module` runs a module
// like `python -m` and is handled by returning to the python reader.
func skipUvRun(words []deploy.Value, i int) (int, bool) {
	if w, ok := wordAt(words, i); !ok || w != "run" {
		return 0, false
	}
	i++
	for i < len(words) {
		w, ok := wordAt(words, i)
		if !ok {
			return 0, false
		}
		if w == "--" {
			return i + 1, true
		}
		if !strings.HasPrefix(w, "-") {
			break
		}
		if w == "-m" || w == "--module" {
			// Leave "-m module" for the python reader: uv runs
			// `python -m module`.
			return i, true
		}
		name, _, hasEq := strings.Cut(w, "=")
		if uvRunWithValue[name] && !hasEq {
			i++
		}
		i++
	}
	return i, true
}
