"""Extract SGLang's server CLI (every option string argparse knows) from the
source, without importing it: reads the ServerArgs dataclass and the manual
add_argument calls of ServerArgs.add_cli_args with the ast module and mirrors
arg_groups/arg_utils.py add_cli_args_from_dataclass.

usage: extract_server.py REPO COMMIT > sglang_server.tsv
"""

import ast
import subprocess
import sys

REPO, COMMIT = sys.argv[1], sys.argv[2]


def show(path):
    return subprocess.run(
        ["git", "-C", REPO, "show", f"{COMMIT}:{path}"],
        check=True, capture_output=True, text=True,
    ).stdout


SRC_PATH = "python/sglang/srt/server_args.py"
src = show(SRC_PATH)
tree = ast.parse(src)

# ---- module constants (literal lists/sets/tuples and simple aliases) -------
consts = {}
EXTENSIBLE = set()  # constants that an add_*_choices hook can extend
for node in tree.body:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        name = node.targets[0].id
        try:
            consts[name] = list(ast.literal_eval(node.value))
        except Exception:
            if isinstance(node.value, ast.Name) and node.value.id in consts:
                consts[name] = consts[node.value.id]
    if isinstance(node, ast.FunctionDef) and node.name.startswith("add_") and node.name.endswith("_choices"):
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and sub.attr == "extend" and isinstance(sub.value, ast.Name):
                EXTENSIBLE.add(sub.value.id)
# SAMPLING_BACKEND_CHOICES gains "token_oracle" when an env var is set (L104-106).
consts["SAMPLING_BACKEND_CHOICES"] = sorted(consts["SAMPLING_BACKEND_CHOICES"]) + ["token_oracle"]


def dict_keys_of(path, cls, attr):
    t = ast.parse(show(path))
    for n in ast.walk(t):
        if isinstance(n, ast.ClassDef) and n.name == cls:
            for b in n.body:
                tgt = None
                if isinstance(b, ast.Assign):
                    tgt, val = b.targets[0], b.value
                elif isinstance(b, ast.AnnAssign):
                    tgt, val = b.target, b.value
                if isinstance(tgt, ast.Name) and tgt.id == attr and isinstance(val, ast.Dict):
                    return [ast.literal_eval(k) for k in val.keys]
    raise SystemExit(f"{path}: {cls}.{attr} not found")


def enum_names(path, cls):
    t = ast.parse(show(path))
    for n in ast.walk(t):
        if isinstance(n, ast.ClassDef) and n.name == cls:
            return [b.targets[0].id for b in n.body if isinstance(b, ast.Assign)]
    raise SystemExit(f"{path}: {cls} not found")


def module_list(path, name):
    t = ast.parse(show(path))
    for n in t.body:
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name:
            return n.value
    raise SystemExit(f"{path}: {name} not found")


def eval_choices(expr, dynamic):
    """Evaluate a choices= expression to a list of python values."""
    if expr is None:
        return None
    if ast.unparse(expr) == "Backend.ALL":
        # model_executor/cuda_graph_config.py class Backend
        return ["full", "breakable", "tc_piecewise", "disabled"]
    if isinstance(expr, ast.Name):
        if expr.id in dynamic:
            return dynamic[expr.id]
        if expr.id in consts:
            return consts[expr.id]
        raise SystemExit(f"unknown choices constant {expr.id}")
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return eval_choices(expr.left, dynamic) + eval_choices(expr.right, dynamic)
    try:
        return list(ast.literal_eval(expr))
    except Exception:
        pass
    if isinstance(expr, ast.List):
        # [NAME, ...] where NAME is a scalar constant.
        out = []
        for e in expr.elts:
            if isinstance(e, ast.Name):
                out.append(dynamic[e.id] if e.id in dynamic else consts[e.id])
            else:
                out.append(ast.literal_eval(e))
        return out
    raise SystemExit(f"cannot evaluate choices {ast.unparse(expr)}")


def choices_name(expr):
    if expr is None:
        return ""
    names = [n.id for n in ast.walk(expr) if isinstance(n, ast.Name)]
    return ",".join(n for n in names if n in EXTENSIBLE)


# ---- type annotations ------------------------------------------------------
def sub_name(node):
    if isinstance(node, ast.Subscript):
        v = node.value
        return v.id if isinstance(v, ast.Name) else (v.attr if isinstance(v, ast.Attribute) else None)
    return None


def sub_args(node):
    s = node.slice
    return list(s.elts) if isinstance(s, ast.Tuple) else [s]


def is_none(n):
    return isinstance(n, ast.Constant) and n.value is None


def unwrap_optional(t):
    name = sub_name(t)
    if name == "Optional":
        return sub_args(t)[0]
    if name == "Union":
        non_none = [a for a in sub_args(t) if not is_none(a)]
        if len(non_none) == 1:
            return non_none[0]
    if isinstance(t, ast.BinOp) and isinstance(t.op, ast.BitOr):
        parts = [t.left, t.right]
        non_none = [a for a in parts if not is_none(a)]
        if len(non_none) == 1:
            return non_none[0]
    return t


def infer_type(t):
    if isinstance(t, ast.Name) and t.id in ("str", "int", "float"):
        return t.id
    return "str"


def py_str(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    return str(v)


DYNAMIC = {
    "SUPPORTED_LORA_TARGET_MODULES": list(ast.literal_eval(module_list("python/sglang/srt/utils/common.py", "SUPPORTED_LORA_TARGET_MODULES"))),
    "LORA_TARGET_ALL_MODULES": ast.literal_eval(module_list("python/sglang/srt/utils/common.py", "LORA_TARGET_ALL_MODULES")),
}

rows = []  # dicts


def add(option_strings, **kw):
    rows.append(dict(names=option_strings, **kw))


# ---- dataclass fields ------------------------------------------------------
server_cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ServerArgs")
field_dest_flag = {}  # dest -> primary option string
no_cli_fields = set()
# A field annotated twice in the class body is one dataclass field: Python
# keeps the position of the first annotation and the last definition.
last_def = {}
for stmt in server_cls.body:
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        last_def[stmt.target.id] = stmt
for stmt in last_def.values():
    ann = stmt.annotation
    if sub_name(ann) != "A":
        continue
    field = stmt.target.id
    raw_type, meta = sub_args(ann)[0], sub_args(ann)[1:]
    kw = {}
    for m in meta:
        if isinstance(m, ast.Call) and isinstance(m.func, ast.Name) and m.func.id == "Arg":
            kw = {k.arg: k.value for k in m.keywords}
            break
        if isinstance(m, ast.Constant) and isinstance(m.value, str):
            kw = {}
            break
    else:
        continue
    if "no_cli" in kw and ast.literal_eval(kw["no_cli"]):
        no_cli_fields.add(field)
        continue
    cli_name = ast.literal_eval(kw["cli_name"]) if "cli_name" in kw else "--" + field.replace("_", "-")
    aliases = ast.literal_eval(kw["aliases"]) if "aliases" in kw else []
    default = ast.unparse(stmt.value) if stmt.value is not None else "(required)"
    if default.startswith("dataclasses.field("):
        default = "(factory)"
    type_parser = ast.unparse(kw["type_parser"]) if "type_parser" in kw else ""
    nargs = ast.literal_eval(kw["nargs"]) if "nargs" in kw else ""
    choices_expr = kw.get("choices")
    const = py_str(ast.literal_eval(kw["const"])) if "const" in kw else ""
    base = dict(dest=field, default=default, line=stmt.lineno, deprecated="", redirect="", const="")
    field_dest_flag[field] = cli_name

    if "action" in kw:
        action = ast.unparse(kw["action"])
        ak = {}
        if "action_kwargs" in kw:
            for k, v in zip(kw["action_kwargs"].keys, kw["action_kwargs"].values):
                ak[ast.literal_eval(k)] = v.id if isinstance(v, ast.Name) else ast.literal_eval(v)
        if action == "argparse.BooleanOptionalAction":
            names = [cli_name] + aliases
            names += ["--no-" + n[2:] for n in names if n.startswith("--")]
            add(names, action="store_true_optional", type="bool", nargs="0", choices=None, extensible="", **base)
        else:
            add([cli_name] + aliases, action="custom:" + action.split(".")[-1], type=ak.get("type", "str"),
                nargs=ak.get("nargs", ""), choices=None, extensible="", **base)
        continue

    inner = unwrap_optional(raw_type)
    if sub_name(inner) == "Literal":
        lits = [ast.literal_eval(a) for a in sub_args(inner)]
        choices = eval_choices(choices_expr, {}) if choices_expr is not None else lits
        first = lits[0] if lits else ""
        typ = type_parser or ("int" if type(first) is int else "float" if type(first) is float else "str")
        add([cli_name] + aliases, action="store", type=typ, nargs="", choices=choices, extensible=choices_name(choices_expr), **dict(base, const=const))
        continue
    if sub_name(inner) in ("List", "list") and not type_parser:
        elem = sub_args(inner)[0]
        add([cli_name] + aliases, action="store", type=infer_type(elem), nargs=nargs or "+",
            choices=eval_choices(choices_expr, DYNAMIC) if choices_expr is not None else None,
            extensible=choices_name(choices_expr), **dict(base, const=const))
        continue
    if isinstance(inner, ast.Name) and inner.id == "bool":
        add([cli_name] + aliases, action="store_true", type="bool", nargs="0", choices=None, extensible="", **base)
        continue
    typ = type_parser or infer_type(inner)
    add([cli_name] + aliases, action="store", type=typ, nargs=nargs,
        choices=eval_choices(choices_expr, DYNAMIC) if choices_expr is not None else None,
        extensible=choices_name(choices_expr), **dict(base, const=const))


# ---- manual registrations in ServerArgs.add_cli_args ------------------------
reasoning = dict_keys_of("python/sglang/srt/parser/reasoning_parser.py", "ReasoningParser", "DetectorMap")
toolcall = dict_keys_of("python/sglang/srt/function_call/function_call_parser.py", "FunctionCallParser", "ToolCallParserEnum")
kvhash = [n.lower() for n in enum_names("python/sglang/jit_kernel/kv_canary/consts.py", "RealKvHashMode")]
backend = {"Backend.FULL": "full", "Backend.BREAKABLE": "breakable", "Backend.TC_PIECEWISE": "tc_piecewise", "Backend.DISABLED": "disabled"}

add_cli = next(b for b in server_cls.body if isinstance(b, ast.FunctionDef) and b.name == "add_cli_args")
for call in sorted((c for c in ast.walk(add_cli) if isinstance(c, ast.Call)), key=lambda c: c.lineno):
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument"):
        continue
    names = [ast.literal_eval(a) for a in call.args]
    kw = {k.arg: k.value for k in call.keywords}
    dest = ast.literal_eval(kw["dest"]) if "dest" in kw else names[0].lstrip("-").replace("-", "_")
    action = ast.unparse(kw["action"]) if "action" in kw else "store"
    action = action.strip("'\"")
    nargs = ast.literal_eval(kw["nargs"]) if "nargs" in kw else ""
    typ = ast.unparse(kw["type"]) if "type" in kw else ""
    new_flag = ast.literal_eval(kw["new_flag"]) if "new_flag" in kw else ""
    help_ = ast.unparse(kw.get("help", ast.Constant(""))) if "help" in kw else ""
    const = backend.get(ast.unparse(kw["const_value"]), "") if "const_value" in kw else ""
    choices_expr = kw.get("choices")
    if choices_expr is not None:
        src_c = ast.unparse(choices_expr)
        if "reasoning_parser_choices" in src_c:
            choices = ["auto"] + reasoning
        elif "tool_call_parser_choices" in src_c:
            choices = ["auto"] + toolcall
        elif "RealKvHashMode" in src_c:
            choices = kvhash
        else:
            choices = eval_choices(choices_expr, DYNAMIC)
    else:
        choices = None
    default = ast.unparse(kw["default"]) if "default" in kw else ""
    deprecated = ""
    if action.startswith("Deprecated"):
        deprecated = new_flag or "(no replacement)"
        if action in ("DeprecatedAction", "DeprecatedStoreTrueAction", "DeprecatedStoreConstAction"):
            nargs, typ = "0", "bool"
    if action == "store_true":
        nargs, typ = "0", "bool"
    if "Deprecated: use" in help_:
        # --enable-flashinfer-allreduce-fusion: a plain store_true whose help
        # text says it is deprecated.
        deprecated = help_.split("Deprecated: use ", 1)[1].split(")")[0]
    add(names, dest=dest, default=default, line=call.lineno, deprecated=deprecated,
        redirect=dest if dest in field_dest_flag and field_dest_flag[dest] not in names else "",
        const=const, action=action, type=typ or "str", nargs=nargs, choices=choices,
        extensible=choices_name(choices_expr))

# -h/--help, added by argparse itself.
add(["-h", "--help"], dest="help", default="", line=0, deprecated="", redirect="", const="",
    action="help", type="bool", nargs="0", choices=None, extensible="")

def cell(s):
    s = str(s)
    assert "\t" not in s and "\n" not in s, s
    return s

print("# SGLang server CLI (python -m sglang.launch_server / sglang serve): every option string argparse accepts.")
print(f"# Source: {SRC_PATH} (ServerArgs fields + ServerArgs.add_cli_args) at sgl-project/sglang main as mirrored by modal-projects/sglang {COMMIT}.")
print("# Generated by reading the source with Python's ast module, mirroring arg_groups/arg_utils.py add_cli_args_from_dataclass: no_cli fields are left out, cli_name replaces the field name, Optional[List[X]] is nargs '+', bool is store_true, Literal[...] gives choices.")
print("# Columns: names (first = canonical, then aliases, comma-separated); dest; action; type; nargs; default; choices (|-separated, after type conversion); extensible (choices constant a plugin hook can extend); const (value a store-const action writes); deprecated (replacement named by new_flag); redirect (dest of a field this deprecated flag writes); line (in server_args.py).")
print("names\tdest\taction\ttype\tnargs\tdefault\tchoices\textensible\tconst\tdeprecated\tredirect\tline")
for r in rows:
    ch = "|".join(py_str(c) for c in r["choices"]) if r["choices"] is not None else ""
    print("\t".join(cell(x) for x in [",".join(r["names"]), r["dest"], r["action"], r["type"], r["nargs"], r["default"], ch, r["extensible"], r["const"], r["deprecated"], r["redirect"], r["line"]]))
