package engine

import (
	"embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The tables are generated from the engine's source (data/gen/*.py name the
// files and the commit read); the ranges are written by hand, each with its
// source line.
//
//go:embed data/*.tsv
var dataFS embed.FS

// Flag is one option of a program: what argparse registers for it, plus what
// kvlint knows about its history.
type Flag struct {
	Name    string   // canonical option string: the first one registered
	Aliases []string // other option strings of the same action
	Dest    string   // argparse dest (the ServerArgs field it writes)
	// Key is the name the value is stored under in Result.Args: the
	// canonical flag of the field that Dest belongs to. It differs from Name
	// for deprecated aliases (--cuda-graph-max-bs stores under
	// --cuda-graph-max-bs-decode).
	Key string
	// Type is the argparse type: str, int, float, bool (no value),
	// human_readable_int, json.loads, json_list_type, nullable_str,
	// parse_cuda_graph_config_arg.
	Type    string
	Default string // as written in the source (a Python expression)
	Choices []string
	// ChoicesExtensible is set when a plugin hook (server_args.py
	// add_*_choices) can add choices at run time.
	ChoicesExtensible bool
	// Nargs is argparse's nargs: "" (exactly one value), "0" (none), "?",
	// "*", "+", or a count such as "1".
	Nargs string
	// Action is the argparse action: store, store_true, append, help,
	// boolean_optional (--x / --no-x), or the class name of a custom action
	// (DeprecatedAliasStoreAction, DeprecatedStoreConstAction,
	// DeprecatedStoreTrueAction, DeprecatedAction, LoRAPathAction).
	Action string
	Const  string // the value a store-const action writes
	// Deprecated is what to use instead when the flag is deprecated but still
	// accepted ("(no replacement)" when SGLang names none).
	Deprecated string
	// Removed says when the flag stopped being accepted ("2026-03-02 #19618
	// 0a6678bf3ad6"); a removed flag is not an option of the table.
	Removed string
	// Instead is the replacement of a removed flag, when the removing change
	// names one.
	Instead string
	// RedirectsTo is the canonical flag whose value a deprecated alias
	// writes ("" when it writes its own).
	RedirectsTo string
	// Min and Max bound a numeric value where the engine validates it;
	// MinOpen/MaxOpen make the bound exclusive. RangeSource cites the check.
	Min, Max         *float64
	MinOpen, MaxOpen bool
	RangeSource      string
	Line             int // line of the definition in the engine's source
	// Keys are the fields a JSON config flag accepts (vLLM's config
	// dataclasses forbid extra keys); nil when any key goes.
	Keys []string

	engine string // "SGLang" or "vLLM", for messages
}

// OptionStrings returns the canonical name followed by the aliases.
func (f *Flag) OptionStrings() []string {
	return append([]string{f.Name}, f.Aliases...)
}

// TakesValue reports whether the flag consumes words after it.
func (f *Flag) TakesValue() bool { return f.Nargs != "0" }

// IsList reports whether the flag's value is a list of words.
func (f *Flag) IsList() bool {
	switch f.Nargs {
	case "", "0", "?":
		return f.Action == "append"
	}
	return true
}

// Table is every flag of one program.
type Table struct {
	Program Program
	flags   []*Flag          // live flags in registration order
	options []string         // live option strings in argparse registration order
	byOpt   map[string]*Flag // live option string → flag
	removed map[string]*Flag // removed option string → flag
}

var (
	tablesOnce sync.Once
	tables     map[Program]*Table
	tablesErr  error
)

// Lookup returns the flag table of a program, or nil for a program kvlint
// does not know. The tables are loaded once, from embedded data.
func Lookup(p Program) *Table {
	tablesOnce.Do(loadTables)
	if tablesErr != nil {
		// The data is embedded and covered by tests: a broken table is a
		// build defect, not an input error.
		panic(tablesErr)
	}
	return tables[p]
}

// Flag returns the flag with this exact option string (canonical name or
// alias). Removed flags are found too: check Removed.
func (t *Table) Flag(name string) (*Flag, bool) {
	if f, ok := t.byOpt[name]; ok {
		return f, true
	}
	f, ok := t.removed[name]
	return f, ok
}

// Names returns the canonical names of the flags the program accepts, sorted.
func (t *Table) Names() []string {
	out := make([]string, 0, len(t.flags))
	for _, f := range t.flags {
		out = append(out, f.Name)
	}
	sort.Strings(out)
	return out
}

// Flags returns the flags the program accepts, in registration order.
func (t *Table) Flags() []*Flag { return t.flags }

// RemovedFlags returns the flags the program no longer accepts, sorted by name.
func (t *Table) RemovedFlags() []*Flag {
	out := make([]*Flag, 0, len(t.removed))
	for _, f := range t.removed {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func loadTables() {
	server, err := readFlagTSV("data/sglang_server.tsv")
	if err != nil {
		tablesErr = err
		return
	}
	if err := applyRanges(server, "data/sglang_server_ranges.tsv"); err != nil {
		tablesErr = err
		return
	}
	removed, err := readRemovedTSV("data/sglang_server_removed.tsv")
	if err != nil {
		tablesErr = err
		return
	}
	router, err := readFlagTSV("data/sglang_router.tsv")
	if err != nil {
		tablesErr = err
		return
	}
	vllm, vllmRemoved, err := loadVLLM()
	if err != nil {
		tablesErr = err
		return
	}
	tables = map[Program]*Table{
		VLLMServer:         newTable(VLLMServer, vllm, vllmRemoved),
		SGLangServer:       newTable(SGLangServer, server, removed),
		SGLangRouter:       newTable(SGLangRouter, router, nil),
		SGLangRouterServer: newTable(SGLangRouterServer, routerServerFlags(server, router), removed),
	}
}

// routerServerFlags builds sglang_router.launch_server's parser: the server
// flags, then RouterArgs.add_cli_args(parser, use_router_prefix=True,
// exclude_host_port=True), then --router-dp-worker-base-port
// (sgl-model-gateway/bindings/python/src/sglang_router/launch_server.py main,
// router_args.py add_cli_args).
func routerServerFlags(server, router []*Flag) []*Flag {
	out := append([]*Flag(nil), server...)
	for _, f := range router {
		if f.Name == "--host" || f.Name == "--port" || f.Action == "help" {
			continue
		}
		g := *f
		g.Name = "--router-" + strings.TrimPrefix(f.Name, "--")
		g.Aliases = nil
		g.Dest = "router_" + f.Dest
		out = append(out, &g)
	}
	return append(out, &Flag{Name: "--router-dp-worker-base-port", Dest: "router_dp_worker_base_port", Type: "int", Default: "31000", Action: "store"})
}

func newTable(p Program, flags []*Flag, removed []*Flag) *Table {
	t := &Table{Program: p, byOpt: map[string]*Flag{}, removed: map[string]*Flag{}}
	for _, f := range append(append([]*Flag(nil), flags...), removed...) {
		f.engine = p.engineName()
	}
	// argparse registers -h/--help first, so it leads the option order
	// (the order shows in "ambiguous option" messages).
	for _, f := range flags {
		if f.Action == "help" {
			t.add(f)
		}
	}
	primary := map[string]*Flag{}
	for _, f := range flags {
		if f.Action != "help" {
			t.add(f)
		}
		if _, ok := primary[f.Dest]; !ok {
			primary[f.Dest] = f
		}
	}
	for _, f := range t.flags {
		f.Key = primary[f.Dest].Name
		if f.Key != f.Name && f.Deprecated != "" {
			f.RedirectsTo = f.Key
		}
	}
	for _, f := range removed {
		if _, live := t.byOpt[f.Name]; !live {
			t.removed[f.Name] = f
		}
	}
	return t
}

func (t *Table) add(f *Flag) {
	t.flags = append(t.flags, f)
	for _, o := range f.OptionStrings() {
		if _, dup := t.byOpt[o]; dup {
			continue
		}
		t.byOpt[o] = f
		t.options = append(t.options, o)
	}
}

// tsvRows reads a data file: '#' lines are comments, the first other line is
// the header, the rest are rows keyed by the header's column names.
func tsvRows(path string) ([]map[string]string, error) {
	data, err := dataFS.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var header []string
	var rows []map[string]string
	for n, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cells := strings.Split(line, "\t")
		if header == nil {
			header = cells
			continue
		}
		if len(cells) != len(header) {
			return nil, fmt.Errorf("%s:%d: %d cells, want %d", path, n+1, len(cells), len(header))
		}
		row := map[string]string{}
		for i, h := range header {
			row[h] = cells[i]
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func readFlagTSV(path string) ([]*Flag, error) {
	rows, err := tsvRows(path)
	if err != nil {
		return nil, err
	}
	var out []*Flag
	for _, r := range rows {
		names := strings.Split(r["names"], ",")
		f := &Flag{
			Name:              names[0],
			Aliases:           names[1:],
			Dest:              r["dest"],
			Type:              r["type"],
			Default:           r["default"],
			Nargs:             r["nargs"],
			Action:            r["action"],
			Const:             r["const"],
			Deprecated:        r["deprecated"],
			ChoicesExtensible: r["extensible"] != "",
		}
		f.Line, _ = strconv.Atoi(r["line"])
		switch {
		case f.Action == "store_true_optional":
			f.Action = "boolean_optional"
		case strings.HasPrefix(f.Action, "custom:"):
			f.Action = strings.TrimPrefix(f.Action, "custom:")
		}
		// "*" marks choices computed at run time (the router's tool-call
		// parsers come from its Rust extension): nothing to validate against.
		if c := r["choices"]; c != "" && c != "*" {
			f.Choices = strings.Split(c, "|")
		}
		out = append(out, f)
	}
	return out, nil
}

func readRemovedTSV(path string) ([]*Flag, error) {
	rows, err := tsvRows(path)
	if err != nil {
		return nil, err
	}
	var out []*Flag
	for _, r := range rows {
		out = append(out, &Flag{
			Name:    r["flag"],
			Removed: strings.TrimSpace(r["removed"] + " " + r["pr"] + " " + r["commit"]),
			Instead: r["instead"],
		})
	}
	return out, nil
}

// applyRanges reads "flag  range  source" rows; a range is interval notation
// with an empty bound for "unbounded": (0,1]  [1,]  [1,65535].
func applyRanges(flags []*Flag, path string) error {
	rows, err := tsvRows(path)
	if err != nil {
		return err
	}
	byName := map[string]*Flag{}
	for _, f := range flags {
		byName[f.Name] = f
	}
	for _, r := range rows {
		f, ok := byName[r["flag"]]
		if !ok {
			return fmt.Errorf("%s: range for unknown flag %s", path, r["flag"])
		}
		if err := f.setRange(r["range"], r["source"]); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
	}
	return nil
}

// setRange reads interval notation ("(0,1]", "[1,]") into the flag's bounds.
func (f *Flag) setRange(rg, source string) error {
	if len(rg) < 3 || (rg[0] != '(' && rg[0] != '[') || (rg[len(rg)-1] != ')' && rg[len(rg)-1] != ']') {
		return fmt.Errorf("bad range %q", rg)
	}
	lo, hi, ok := strings.Cut(rg[1:len(rg)-1], ",")
	if !ok {
		return fmt.Errorf("bad range %q", rg)
	}
	f.MinOpen, f.MaxOpen = rg[0] == '(', rg[len(rg)-1] == ')'
	if lo != "" {
		v, err := strconv.ParseFloat(lo, 64)
		if err != nil {
			return fmt.Errorf("bad range %q", rg)
		}
		f.Min = &v
	}
	if hi != "" {
		v, err := strconv.ParseFloat(hi, 64)
		if err != nil {
			return fmt.Errorf("bad range %q", rg)
		}
		f.Max = &v
	}
	f.RangeSource = source
	return nil
}

// rangeString renders a flag's range in the notation of the data file.
func (f *Flag) rangeString() string {
	var b strings.Builder
	if f.MinOpen {
		b.WriteByte('(')
	} else {
		b.WriteByte('[')
	}
	if f.Min != nil {
		b.WriteString(strconv.FormatFloat(*f.Min, 'g', -1, 64))
	}
	b.WriteString(", ")
	if f.Max != nil {
		b.WriteString(strconv.FormatFloat(*f.Max, 'g', -1, 64))
	}
	if f.MaxOpen {
		b.WriteByte(')')
	} else {
		b.WriteByte(']')
	}
	return b.String()
}
