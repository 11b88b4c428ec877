"""Extract vLLM's `vllm serve` CLI (every option string argparse knows) from
the source, without importing it.

vLLM builds most flags from config dataclasses: EngineArgs.add_cli_args calls
get_kwargs(SomeConfig) and registers `group.add_argument("--flag",
**some_kwargs["field"])`; _compute_kwargs (vllm/engine/arg_utils.py) turns
each field's type hint into argparse kwargs. This script reads the
add_argument calls with the ast module, resolves each field's annotation
through the config modules, and applies _compute_kwargs's rules in its order:

  dataclass in the hints        -> JSON (pydantic validate_json)
  {bool, str, None}             -> nargs '?', const True, type str
  bool in the hints             -> BooleanOptionalAction (--x / --no-x)
  Literal                       -> choices (sorted), or no choices when str
                                   is also a hint
  tuple / list / set            -> nargs '+' (or the tuple's length)
  int                           -> int; human_readable_int for
                                   max_num_batched_tokens,
                                   kv_cache_memory_bytes,
                                   safetensors_prefetch_block_size;
                                   human_readable_int_or_auto for max_model_len
  float                         -> float
  dict with str or a class      -> union_dict_and_str
  dict                          -> json.loads
  str or any other class        -> str
  None in the hints (not bool)  -> optional: "" and "None" mean None, and
                                   "None" joins the choices

then the explicit kwargs of each call, the overrides add_cli_args applies by
hand, the frontend flags (vllm/entrypoints/openai/cli_args.py
make_arg_parser, FrontendArgs) and AsyncEngineArgs.add_cli_args.

usage: extract_vllm.py REPO COMMIT > vllm_serve.tsv
"""

import ast
import itertools
import subprocess
import sys

REPO, COMMIT = sys.argv[1], sys.argv[2]


def show(path):
    r = subprocess.run(["git", "-C", REPO, "show", f"{COMMIT}:{path}"], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


# ---- modules ---------------------------------------------------------------
class Module:
    def __init__(self, name, src, package):
        self.name = name
        self.package = package  # the package relative imports start from
        self.tree = ast.parse(src)
        self.imports = {}  # local name -> (module, attr)
        self.assigns = {}  # name -> expr
        self.classes = {}  # name -> ClassDef
        for node in self.tree.body:
            self._scan(node)

    def _scan(self, node):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = self.package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            for a in node.names:
                self.imports[a.asname or a.name] = (base, a.name)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.assigns[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            self.assigns[node.target.id] = node.value
        elif isinstance(node, ast.ClassDef):
            self.classes[node.name] = node
        elif isinstance(node, ast.If):
            # `if TYPE_CHECKING:` imports still name types.
            for sub in node.body + node.orelse:
                self._scan(sub)


_modules = {}


def module(name):
    if name not in _modules:
        base = name.replace(".", "/")
        src, package = show(base + ".py"), name.rsplit(".", 1)[0]
        if src is None:
            src, package = show(base + "/__init__.py"), name
        _modules[name] = Module(name, src, package) if src is not None else None
    return _modules[name]


def resolve(mod, name, depth=0):
    """Find what `name` means in module `mod`: ("class", Module, ClassDef),
    ("assign", Module, expr) or ("external", qualified name)."""
    if depth > 20 or mod is None:
        return ("external", name)
    if name in mod.classes:
        return ("class", mod, mod.classes[name])
    if name in mod.assigns:
        return ("assign", mod, mod.assigns[name])
    if name in mod.imports:
        src_mod, attr = mod.imports[name]
        if src_mod.startswith("vllm"):
            return resolve(module(src_mod), attr, depth + 1)
        return ("external", src_mod + "." + attr)
    return ("external", name)


BUILTINS = {"bool", "int", "float", "str", "dict", "list", "tuple", "set", "type", "bytes", "object"}


class Hint:
    """One member of a field's set of type hints (get_type_hints)."""

    def __init__(self, kind, **kw):
        self.kind = kind  # bool int float str none dict list tuple set literal dataclass other type
        self.__dict__.update(kw)

    def __repr__(self):
        return f"Hint({self.kind})"


def is_dataclass(mod, cls, depth=0):
    for d in cls.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        n = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else "")
        if n in ("config", "dataclass"):
            return True
    for b in cls.bases:
        if isinstance(b, ast.Name) and depth < 10:
            r = resolve(mod, b.id)
            if r[0] == "class" and is_dataclass(r[1], r[2], depth + 1):
                return True
    return False


def sub_parts(node):
    s = node.slice
    return list(s.elts) if isinstance(s, ast.Tuple) else [s]


def literal_values(mod, node, depth=0):
    """The flattened values of Literal[...] arguments (nested Literal aliases
    are flattened, as typing does)."""
    out = []
    for a in sub_parts(node):
        if isinstance(a, ast.Constant):
            out.append(a.value)
            continue
        if isinstance(a, ast.Name) and depth < 10:
            r = resolve(mod, a.id)
            if r[0] == "assign" and isinstance(r[2], ast.Subscript):
                out += literal_values(r[1], r[2], depth + 1)
                continue
        raise SystemExit(f"{mod.name}: cannot evaluate Literal member {ast.unparse(a)}")
    return out


def hints(mod, node, depth=0):
    """get_type_hints of an annotation: the set of its union members, with
    Annotated / SkipValidation unwrapped."""
    if depth > 30:
        return [Hint("other", name="?")]
    if isinstance(node, ast.Constant):
        if node.value is None:
            return [Hint("none")]
        if isinstance(node.value, str):
            return hints(mod, ast.parse(node.value, mode="eval").body, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return hints(mod, node.left, depth + 1) + hints(mod, node.right, depth + 1)
    if isinstance(node, ast.Subscript):
        base = node.value.id if isinstance(node.value, ast.Name) else (node.value.attr if isinstance(node.value, ast.Attribute) else "")
        parts = sub_parts(node)
        if base == "Optional":
            return hints(mod, parts[0], depth + 1) + [Hint("none")]
        if base == "Union":
            return [h for p in parts for h in hints(mod, p, depth + 1)]
        if base in ("Annotated", "SkipValidation"):
            return hints(mod, parts[0], depth + 1)
        if base == "Literal":
            return [Hint("literal", values=literal_values(mod, node))]
        if base in ("list", "List"):
            return [Hint("list", elem=parts)]
        if base in ("tuple", "Tuple"):
            return [Hint("tuple", elem=parts)]
        if base in ("set", "Set", "frozenset"):
            return [Hint("set", elem=parts)]
        if base in ("dict", "Dict"):
            return [Hint("dict")]
        if base == "type":
            return [Hint("type")]
        if isinstance(node.value, ast.Name):
            r = resolve(mod, node.value.id)
            if r[0] == "assign":
                # A generic alias used with parameters: its own hints.
                return hints(r[1], r[2], depth + 1)
        return [Hint("other", name=ast.unparse(node))]
    if isinstance(node, ast.Name):
        n = node.id
        if n in BUILTINS:
            return [Hint({"bytes": "other", "object": "other"}.get(n, n))]
        if n == "Any":
            return [Hint("other", name="Any")]
        r = resolve(mod, n)
        if r[0] == "class":
            if is_dataclass(r[1], r[2]):
                return [Hint("dataclass", name=n, mod=r[1], cls=r[2])]
            return [Hint("other", name=n)]
        if r[0] == "assign":
            return hints(r[1], r[2], depth + 1)
        return [Hint("other", name=r[1])]
    if isinstance(node, ast.Attribute):
        return [Hint("other", name=ast.unparse(node))]
    raise SystemExit(f"{mod.name}: cannot read annotation {ast.unparse(node)}")


def class_fields(mod, cls, depth=0):
    """Dataclass fields in definition order, base classes first:
    name -> (Module, annotation, default expr or None, line)."""
    out = {}
    for b in cls.bases:
        if isinstance(b, ast.Name) and depth < 10:
            r = resolve(mod, b.id)
            if r[0] == "class":
                out.update(class_fields(r[1], r[2], depth + 1))
    for st in cls.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            ann = st.annotation
            if isinstance(ann, ast.Subscript) and ast.unparse(ann.value) in ("ClassVar", "InitVar"):
                continue
            if isinstance(ann, ast.Name) and ann.id == "ClassVar":
                continue
            out[st.target.id] = (mod, ann, st.value, st.lineno)
    return out


def field_default(expr):
    """The default as written: Field(default=x) / field(default=x) give x,
    default_factory gives the factory call."""
    if expr is None:
        return ""
    if isinstance(expr, ast.Call):
        fn = ast.unparse(expr.func)
        if fn in ("Field", "field", "dataclasses.field", "pydantic.Field"):
            kw = {k.arg: k.value for k in expr.keywords}
            if "default" in kw:
                return ast.unparse(kw["default"])
            if "default_factory" in kw:
                return ast.unparse(kw["default_factory"]) + "()"
            if expr.args:
                return ast.unparse(expr.args[0])
            return ""
    return ast.unparse(expr)


def dataclass_keys(mod, cls):
    """Init fields of a config dataclass: the keys its JSON may hold
    (@config forbids extra keys)."""
    keys = []
    for name, (_, _, value, _) in class_fields(mod, cls).items():
        if isinstance(value, ast.Call) and ast.unparse(value.func) in ("field", "Field", "dataclasses.field"):
            kw = {k.arg: k.value for k in value.keywords}
            if "init" in kw and isinstance(kw["init"], ast.Constant) and kw["init"].value is False:
                continue
        keys.append(name)
    return keys


def py_str(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    return str(v)


def field_range(value, where):
    """The bounds a pydantic Field(gt=, ge=, lt=, le=) puts on a field, in the
    interval notation of the table ("(0,1]"), and where they are written.
    pydantic checks them when the config is built, before the engine starts."""
    if not (isinstance(value, ast.Call) and ast.unparse(value.func) in ("Field", "pydantic.Field")):
        return "", ""
    kw = {k.arg: k.value for k in value.keywords}
    lo = hi = ""
    lo_open = hi_open = False
    for key in ("gt", "ge", "lt", "le"):
        if key not in kw:
            continue
        try:
            v = ast.literal_eval(kw[key])
        except ValueError:
            return "", ""
        if key in ("gt", "ge"):
            lo, lo_open = py_str(v), key == "gt"
        else:
            hi, hi_open = py_str(v), key == "lt"
    if lo == "" and hi == "":
        return "", ""
    rng = ("(" if lo_open else "[") + lo + "," + hi + (")" if hi_open else "]")
    return rng, f"{where} {ast.unparse(value)}"


def compute_kwargs(name, mod, ann, value, where=""):
    """_compute_kwargs for one field (arg_utils.py)."""
    hs = hints(mod, ann)
    kinds = {h.kind for h in hs}
    kw = {"default": field_default(value), "action": "store", "type": "str", "nargs": "", "choices": None, "const": "", "keys": ""}
    kw["range"], kw["range_source"] = field_range(value, where)
    dc = next((h for h in hs if h.kind == "dataclass"), None)
    if dc is not None:
        kw["type"] = "json"
        kw["keys"] = "|".join(dataclass_keys(dc.mod, dc.cls))
    elif kinds == {"bool", "str", "none"}:
        kw.update(type="str", nargs="?", const="True")
    elif "bool" in kinds:
        kw.update(action="boolean_optional", type="bool", nargs="0")
    elif "literal" in kinds:
        vals = next(h for h in hs if h.kind == "literal").values
        kw["type"] = type(vals[0]).__name__
        if "str" not in kinds:
            kw["choices"] = sorted(vals)
    elif kinds & {"tuple", "list", "set"}:
        h = next(h for h in hs if h.kind in ("tuple", "list", "set"))
        elems = [e for e in h.elem if not (isinstance(e, ast.Constant) and e.value is Ellipsis)]
        ellipsis = len(elems) != len(h.elem)
        eh = hints(mod, elems[0]) if elems else [Hint("str")]
        ek = {x.kind for x in eh}
        if len(eh) > 1:
            etype = "str"  # a union element must include str
        elif "literal" in ek:
            vals = eh[0].values
            etype = type(vals[0]).__name__
            kw["choices"] = sorted(vals)
        elif ek & {"int", "float", "str"}:
            etype = next(iter(ek & {"int", "float", "str"}))
        else:
            etype = "str"
        kw["type"] = etype
        kw["nargs"] = str(len(h.elem)) if h.kind == "tuple" and not ellipsis else "+"
    elif "int" in kinds:
        if name == "max_model_len":
            kw["type"] = "vllm_human_readable_int_or_auto"
        elif name in ("max_num_batched_tokens", "kv_cache_memory_bytes", "safetensors_prefetch_block_size"):
            kw["type"] = "vllm_human_readable_int"
        else:
            kw["type"] = "int"
    elif "float" in kinds:
        kw["type"] = "float"
    elif "dict" in kinds and ("str" in kinds or any(h.kind in ("other", "dataclass") for h in hs)):
        kw["type"] = "union_dict_and_str"
    elif "dict" in kinds:
        kw["type"] = "json.loads"
    else:
        kw["type"] = "str"
    if "none" in kinds and "bool" not in kinds:
        kw["type"] = "optional:" + kw["type"]
        if kw["choices"] is not None:
            kw["choices"] = kw["choices"] + ["None"]
    return kw


def option_strings(call):
    return [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]


def dest_of(names, explicit):
    """argparse's dest: the first long option, dashes to underscores."""
    if explicit:
        return explicit
    long_ = next((n for n in names if n.startswith("--")), names[0])
    return long_.lstrip("-").replace("-", "_")


def expand_boolean(names):
    """BooleanOptionalAction registers --no-x after each --x."""
    out = []
    for n in names:
        out.append(n)
        if n.startswith("--"):
            out.append("--no-" + n[2:])
    return out


rows = []


def add(names, dest, kw, line, file):
    if kw["action"] == "boolean_optional":
        names = expand_boolean(names)
    rows.append(dict(names=names, dest=dest, line=line, file=file, **kw))


def explicit_kwargs(call):
    """Plain keyword arguments of an add_argument call."""
    out = {}
    for k in call.keywords:
        if k.arg is None:
            continue
        out[k.arg] = k.value
    return out


def apply_explicit(kw, ex):
    if "action" in ex:
        a = ast.unparse(ex["action"]).strip("'\"")
        if a == "argparse.BooleanOptionalAction":
            kw.update(action="boolean_optional", type="bool", nargs="0")
        elif a in ("store_true", "store_false"):
            kw.update(action=a, type="bool", nargs="0")
            if "default" not in ex:
                kw["default"] = "False" if a == "store_true" else "True"
        else:
            kw["action"] = a.split(".")[-1]
    if "type" in ex:
        t = ast.unparse(ex["type"])
        kw["type"] = {"int": "int", "str": "str", "float": "float"}.get(t, t)
    if "nargs" in ex:
        kw["nargs"] = str(ast.literal_eval(ex["nargs"]))
    if "choices" in ex:
        kw["choices"] = list(ast.literal_eval(ex["choices"]))
    if "default" in ex:
        kw["default"] = ast.unparse(ex["default"])
    if "const" in ex:
        kw["const"] = py_str(ast.literal_eval(ex["const"]))
    return kw


def blank_kwargs():
    return {"default": "None", "action": "store", "type": "str", "nargs": "", "choices": None, "const": "", "keys": "", "range": "", "range_source": ""}


# ---- EngineArgs.add_cli_args and AsyncEngineArgs.add_cli_args ---------------
ARG_UTILS = "vllm/engine/arg_utils.py"
engine = module("vllm.engine.arg_utils")


def walk_add_cli_args(mod, fn, file, overrides):
    """Every add_argument call of one add_cli_args, with the kwargs it gets."""
    kwargs_of = {}  # local var -> config class name (x_kwargs = get_kwargs(Cls))
    for st in ast.walk(fn):
        if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call) and ast.unparse(st.value.func) == "get_kwargs":
            kwargs_of[st.targets[0].id] = st.value.args[0].id
    calls = sorted((c for c in ast.walk(fn) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "add_argument"), key=lambda c: c.lineno)
    for call in calls:
        names = option_strings(call)
        if not names:
            continue
        ex = explicit_kwargs(call)
        kw = None
        field_name = None
        for k in call.keywords:
            if k.arg is not None:
                continue
            v = k.value
            if isinstance(v, ast.Dict):
                # **{**x_kwargs["f"], "default": None}
                inner = [val for key, val in zip(v.keys, v.values) if key is None]
                for key, val in zip(v.keys, v.values):
                    if key is not None:
                        ex[ast.literal_eval(key)] = val
                v = inner[0]
            if isinstance(v, ast.Subscript):
                var, field_name = v.value.id, ast.literal_eval(v.slice)
            elif isinstance(v, ast.Name):
                # moe_backend_kwargs = kernel_kwargs["moe_backend"]
                src = next(st.value for st in ast.walk(fn) if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name) and st.targets[0].id == v.id)
                var, field_name = src.value.id, ast.literal_eval(src.slice)
            cls_name = kwargs_of[var]
            r = resolve(mod, cls_name)
            fields = class_fields(r[1], r[2])
            fmod, ann, value, fline = fields[field_name]
            kw = compute_kwargs(field_name, fmod, ann, value, f"{fmod.name.replace('.', '/')}.py:{fline} {cls_name}.{field_name}")
        if kw is None:
            kw = blank_kwargs()
        kw = apply_explicit(kw, ex)
        for key, fix in overrides.items():
            if key in names:
                fix(kw)
        add(names, dest_of(names, ast.literal_eval(ex["dest"]) if "dest" in ex else None), kw, call.lineno, file)


def _detailed_traces(kw):
    # add_cli_args appends every 2-permutation of DetailedTraceModules,
    # comma-joined, to the choices.
    base = [c for c in kw["choices"] if c != "None"]
    kw["choices"] = kw["choices"] + [",".join(p) for p in itertools.permutations(base, 2)]


def _lower_underscore(kw):
    # moe_backend_kwargs["type"] = lambda s: s.lower().replace("-", "_")
    kw["type"] = "lower_underscore"


def _speculative(kw):
    # vllm_kwargs["speculative_config"]["type"] = optional_type(json.loads)
    kw["type"] = "optional:json.loads"
    kw["keys"] = ""


ENGINE_OVERRIDES = {
    "--collect-detailed-traces": _detailed_traces,
    "--moe-backend": _lower_underscore,
    "--linear-backend": _lower_underscore,
    "--speculative-config": _speculative,
}

engine_cls = engine.classes["EngineArgs"]
async_cls = engine.classes["AsyncEngineArgs"]
engine_add = next(b for b in engine_cls.body if isinstance(b, ast.FunctionDef) and b.name == "add_cli_args")
async_add = next(b for b in async_cls.body if isinstance(b, ast.FunctionDef) and b.name == "add_cli_args")

# ---- make_arg_parser (cli_args.py): its own flags, FrontendArgs, then the engine's
CLI_ARGS = "vllm/entrypoints/openai/cli_args.py"
cli = module("vllm.entrypoints.openai.cli_args")
make = next(n for n in cli.tree.body if isinstance(n, ast.FunctionDef) and n.name == "make_arg_parser")
for call in sorted((c for c in ast.walk(make) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "add_argument"), key=lambda c: c.lineno):
    names = option_strings(call)
    if not names or not names[0].startswith("-"):
        continue  # the positional model_tag
    add(names, dest_of(names, None), apply_explicit(blank_kwargs(), explicit_kwargs(call)), call.lineno, CLI_ARGS)

# FrontendArgs.add_cli_args: one flag per field, "--" + name with dashes,
# after _customize_cli_kwargs of FrontendArgs and BaseFrontendArgs.
front = cli.classes["FrontendArgs"]
for fname, (fmod, ann, value, line) in class_fields(cli, front).items():
    kw = compute_kwargs(fname, fmod, ann, value, f"{CLI_ARGS}:{line} FrontendArgs.{fname}")
    if fname == "default_chat_template_kwargs":
        kw["type"] = "json.loads"
    elif fname == "lora_modules":
        kw.update(type="optional:str", action="LoRAParserAction")
    elif fname in ("allowed_origins", "allowed_methods", "allowed_headers"):
        kw.update(type="json.loads", nargs="")
    elif fname == "middleware":
        kw.update(action="append", type="str", nargs="", default="[]")
    elif fname == "disable_access_log_for_endpoints":
        kw["nargs"] = ""
    add(["--" + fname.replace("_", "-")], fname, kw, line, CLI_ARGS)

walk_add_cli_args(engine, engine_add, ARG_UTILS, ENGINE_OVERRIDES)
walk_add_cli_args(engine, async_add, ARG_UTILS, {})

# -h/--help, added by argparse itself (first in registration order).
rows.insert(0, dict(names=["-h", "--help"], dest="help", line=0, file="argparse", default="", action="help", type="bool", nargs="0", choices=None, const="", keys="", range="", range_source=""))


def cell(s):
    s = str(s)
    assert "\t" not in s and "\n" not in s, s
    return s


seen = {}
for r in rows:
    for n in r["names"]:
        assert n not in seen, f"{n} registered twice (lines {seen[n]} and {r['line']})"
        seen[n] = r["line"]

print("# vLLM server CLI (vllm serve [MODEL] / python -m vllm.entrypoints.openai.api_server): every option string argparse accepts.")
print(f"# Source: vllm-project/vllm {COMMIT} ({ARG_UTILS} EngineArgs.add_cli_args + AsyncEngineArgs.add_cli_args, {CLI_ARGS} make_arg_parser + FrontendArgs, the config dataclasses under vllm/config/).")
print("# Generated by data/gen/extract_vllm.py: the ast module reads the add_argument calls and the config dataclass annotations and applies _compute_kwargs's type rules (see the script).")
print("# Columns: names (first = canonical, then aliases); dest; action; type (vllm_human_readable_int[_or_auto] are vLLM's, not SGLang's; optional:X accepts '' and 'None'; json = a config dataclass as JSON); nargs; default; choices (|-separated); extensible; const; deprecated; redirect; line; file; keys (fields a json config dataclass accepts, |-separated); range and range_source (a pydantic Field bound, checked when vLLM builds its config).")
print("names\tdest\taction\ttype\tnargs\tdefault\tchoices\textensible\tconst\tdeprecated\tredirect\tline\tfile\tkeys\trange\trange_source")
for r in rows:
    ch = "|".join(py_str(c) for c in r["choices"]) if r["choices"] is not None else ""
    print("\t".join(cell(x) for x in [",".join(r["names"]), r["dest"], r["action"], r["type"], r["nargs"], r["default"], ch, "", r["const"], "", "", r["line"], r["file"], r["keys"], r["range"], r["range_source"]]))
