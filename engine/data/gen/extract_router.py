"""Extract the SGLang router CLI (python -m sglang_router.launch_router) from
sgl-model-gateway/bindings/python/src/sglang_router/router_args.py
RouterArgs.add_cli_args, read with the ast module, as launch_router.py calls
it: use_router_prefix=False, exclude_host_port=False.

usage: extract_router.py REPO COMMIT > sglang_router.tsv
"""
import ast
import subprocess
import sys

REPO, COMMIT = sys.argv[1], sys.argv[2]
PATH = "sgl-model-gateway/bindings/python/src/sglang_router/router_args.py"
src = subprocess.run(["git", "-C", REPO, "show", f"{COMMIT}:{PATH}"], check=True, capture_output=True, text=True).stdout
tree = ast.parse(src)
consts = {}
for n in tree.body:
    if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name):
        try:
            consts[n.targets[0].id] = ast.literal_eval(n.value)
        except Exception:
            pass
cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "RouterArgs")
fn = next(b for b in cls.body if isinstance(b, ast.FunctionDef) and b.name == "add_cli_args")


def name_of(e):
    if isinstance(e, ast.Constant):
        return e.value
    if isinstance(e, ast.JoinedStr):
        out = ""
        for v in e.values:
            if isinstance(v, ast.Constant):
                out += v.value
            elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and v.value.id == "prefix":
                out += ""
            else:
                raise SystemExit(ast.unparse(e))
        return out
    raise SystemExit(ast.unparse(e))


print("# SGLang router CLI (python -m sglang_router.launch_router): every option string argparse accepts.")
print(f"# Source: {PATH} RouterArgs.add_cli_args (use_router_prefix=False, exclude_host_port=False, as launch_router.py parse_router_args calls it) at sgl-project/sglang main as mirrored by modal-projects/sglang {COMMIT}.")
print("# sglang_router.launch_server adds these with a 'router-' prefix (except --host/--port) next to the server flags.")
print("# Columns as in sglang_server.tsv. choices '*' = computed at run time (not validated).")
print("names\tdest\taction\ttype\tnargs\tdefault\tchoices\textensible\tconst\tdeprecated\tredirect\tline")
calls = sorted((c for c in ast.walk(fn) if isinstance(c, ast.Call)), key=lambda c: c.lineno)
for call in calls:
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument"):
        continue
    names = [name_of(a) for a in call.args]
    kw = {k.arg: k.value for k in call.keywords}
    dest = ast.literal_eval(kw["dest"]) if "dest" in kw else names[0].lstrip("-").replace("-", "_")
    action = ast.literal_eval(kw["action"]) if "action" in kw else "store"
    nargs = str(ast.literal_eval(kw["nargs"])) if "nargs" in kw else ""
    typ = ast.unparse(kw["type"]) if "type" in kw else "str"
    if action == "store_true":
        typ, nargs = "bool", "0"
    choices = ""
    if "choices" in kw:
        c = kw["choices"]
        if isinstance(c, ast.Name) and c.id in consts:
            choices = "|".join(consts[c.id])
        else:
            try:
                choices = "|".join(ast.literal_eval(c))
            except Exception:
                choices = "*"
    default = ast.unparse(kw["default"]) if "default" in kw else ""
    print("\t".join([",".join(names), dest, action, typ, nargs, default, choices, "", "", "", "", str(call.lineno)]))
print("\t".join(["-h,--help", "help", "help", "bool", "0", "", "", "", "", "", "", "0"]))
