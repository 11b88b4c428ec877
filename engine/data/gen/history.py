"""Flag history across releases, shared by extract_removed.py --history
(SGLang) and extract_vllm_removed.py --history (vLLM).

Each release is a commit; at each one the caller reads the source with the
ast module (nothing is imported or run) and returns {option string: attrs},
attrs holding what the add_argument call (or the dataclass field) says
literally: type, default, choices, deprecated (and instead). Consecutive
snapshots are compared and every change is one row naming the release and the
commit it was read at. An attribute the source does not state as a literal
(a default computed at run time, a type from a config dataclass) is left
out of the comparison: the table says nothing rather than something wrong.
"""

import ast
import re

REPLACEMENT = re.compile(r"(?:[Uu]se|replaced (?:by|with)|in favou?r of|[Pp]lease use|[Rr]enamed to)[^.]{0,40}?[`'\"]?(--[a-z][\w-]*)")
DEPRECATED = re.compile(r"\bdeprecated\b", re.I)


def cell(v):
    if v is None:
        return "None"
    if isinstance(v, (list, tuple)):
        return "|".join(str(x) for x in v)
    return str(v).replace("\t", " ").replace("\n", " ")


def literal(node, classes):
    """The value of node when the source states it: a literal, or Cls.field
    where Cls is a class of the same file whose field has a literal default."""
    try:
        return True, ast.literal_eval(node)
    except Exception:
        pass
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        cls = classes.get(node.value.id)
        if cls and node.attr in cls:
            return True, cls[node.attr]
    return False, None


def class_defaults(tree):
    """{class: {field: literal default}} for the classes of a module; a
    field(default=…) or Field(default=…) counts as its default."""
    out = {}
    for n in ast.walk(tree):
        if not isinstance(n, ast.ClassDef):
            continue
        fields = {}
        for s in n.body:
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
                v = s.value
                if isinstance(v, ast.Call) and getattr(v.func, "id", getattr(v.func, "attr", "")) in ("field", "Field"):
                    d = [k.value for k in v.keywords if k.arg == "default"]
                    if not d:
                        continue
                    v = d[0]
                try:
                    fields[s.target.id] = ast.literal_eval(v)
                except Exception:
                    pass
        out[n.name] = fields
    return out


def type_name(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None  # a lambda or a call: not comparable across releases


def call_attrs(call, src, classes):
    """attrs of one add_argument call."""
    a = {}
    for k in call.keywords:
        if k.arg == "type":
            t = type_name(k.value)
            if t:
                a["type"] = t
        elif k.arg == "default":
            ok, v = literal(k.value, classes)
            if ok:
                a["default"] = repr(v) if isinstance(v, str) else v
        elif k.arg == "choices":
            ok, v = literal(k.value, classes)
            if ok and isinstance(v, (list, tuple, set)):
                a["choices"] = sorted(str(x) for x in v)
        elif k.arg == "action":
            t = type_name(k.value) or ""
            if "Deprecated" in t:
                a["deprecated"] = True
        elif k.arg == "deprecated":
            ok, v = literal(k.value, classes)
            if ok and v:
                a["deprecated"] = True
        elif k.arg == "help":
            seg = ast.get_source_segment(src, k.value) or ""
            if DEPRECATED.search(seg) and not re.search(r"deprecated\s+(?:flag|option)s?\s+(?:of|for)\b", seg, re.I):
                a["deprecated"] = True
            m = REPLACEMENT.search(seg)
            if m and a.get("deprecated"):
                a["instead"] = m.group(1)
    if a.get("deprecated") and "instead" not in a:
        seg = ast.get_source_segment(src, call) or ""
        m = REPLACEMENT.search(seg)
        if m:
            a["instead"] = m.group(1)
    return a


def add_argument_attrs(src, classes=None):
    """{option string: attrs} of every add_argument call in src."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return None
    classes = classes if classes is not None else class_defaults(tree)
    out = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "add_argument":
            names = [a.value for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--")]
            if not names:
                continue
            attrs = call_attrs(n, src, classes)
            for x in names:
                out[x] = dict(attrs)
    return out


COMPARED = ("type", "default", "choices")


def diff(releases, snapshots, out):
    """releases: [(version, commit, evidence)]; snapshots: one {flag: attrs}
    per release. Writes the release rows, then one row per change."""
    out.write("kind\tname\trelease\tcommit\tdetail\n")
    for version, commit, evidence in releases:
        out.write(f"release\t{version}\t{version}\t{commit}\t{evidence}\n")
    rows = []
    prev = {}
    for idx, ((version, commit, _), snap) in enumerate(zip(releases, snapshots)):
        for flag in sorted(set(prev) | set(snap)):
            old, new = prev.get(flag), snap.get(flag)
            if old is None and new is not None:
                rows.append((flag, idx, "added", version, commit, "present at the first release read" if idx == 0 else ""))
            elif old is not None and new is None:
                rows.append((flag, idx, "removed", version, commit, ""))
            if old is None or new is None:
                if new is not None and new.get("deprecated"):
                    rows.append((flag, idx, "deprecated", version, commit, new.get("instead", "")))
                continue
            if new.get("deprecated") and not old.get("deprecated"):
                rows.append((flag, idx, "deprecated", version, commit, new.get("instead", "")))
            if old.get("deprecated") and not new.get("deprecated"):
                rows.append((flag, idx, "undeprecated", version, commit, ""))
            for k in COMPARED:
                if k in old and k in new and old[k] != new[k]:
                    rows.append((flag, idx, k, version, commit, f"{cell(old[k])} -> {cell(new[k])}".replace("\t", " ")))
        prev = snap
    for flag, _, kind, version, commit, detail in sorted(rows, key=lambda r: (r[0], r[1])):
        out.write(f"{kind}\t{flag}\t{version}\t{commit}\t{detail}\n")
