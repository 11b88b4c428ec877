"""List SGLang server flags that were once accepted and are gone at COMMIT:
walks every commit that touched python/sglang/srt/server_args.py, reads each
version with the ast module (add_argument option strings, and ServerArgs
fields annotated A[...] without no_cli), and reports, for each option string
missing from the current CLI (CURRENT_TSV), the commit that dropped it.

usage: extract_removed.py REPO COMMIT CURRENT_TSV > sglang_server_removed.tsv
       extract_removed.py --history REPO COMMIT > sglang_server_history.tsv

--history reads server_args.py at every release (the first commit on main
whose python/sglang/version.py names it, from 0.3.0 on; the mirror carries no
tags) and at COMMIT, and writes the flag history (see history.py).
"""
import ast
import re
import subprocess
import sys

HISTORY = sys.argv[1] == "--history"
if HISTORY:
    REPO, COMMIT = sys.argv[2], sys.argv[3]
else:
    REPO, COMMIT, CURRENT = sys.argv[1], sys.argv[2], sys.argv[3]
P = "python/sglang/srt/server_args.py"

# Replacements, each read in the diff of the removing commit (help text of the
# deprecation, or the rename itself). Only these get an "instead".
INSTEAD = {
    "--optimistic-prefill-retries": "--optimistic-prefill-attempts",
    "--enable-deepep-waterfill": "--enable-waterfill",
    "--enable-ep-moe": "--ep-size (same value as --tp-size)",
    "--enable-deepep-moe": "--moe-a2a-backend deepep",
    "--enable-flashinfer-cutlass-moe": "--moe-runner-backend flashinfer_cutlass",
    "--enable-flashinfer-cutedsl-moe": "--moe-runner-backend flashinfer_cutedsl",
    "--enable-flashinfer-trtllm-moe": "--moe-runner-backend flashinfer_trtllm",
    "--enable-triton-kernel-moe": "--moe-runner-backend triton_kernel",
    "--enable-flashinfer-mxfp4-moe": "--moe-runner-backend flashinfer_mxfp4",
    "--speculative-ngram-branch-length": "--speculative-ngram-max-trie-depth",
    "--speculative-lookahead-branch-length": "--speculative-ngram-max-trie-depth",
    "--speculative-lookahead-capacity": "--speculative-ngram-capacity",
    "--speculative-lookahead-max-bfs-breadth": "--speculative-ngram-max-bfs-breadth",
    "--speculative-lookahead-min-bfs-breadth": "--speculative-ngram-min-bfs-breadth",
    "--speculative-lookahead-match-type": "--speculative-ngram-match-type",
    "--max-micro-batch-size": "--pp-max-micro-batch-size",
    "--hooks": "--forward-hooks",
    "--tokenizer-metrics-allowed-customer-labels": "--tokenizer-metrics-allowed-custom-labels",
    "--oltp-traces-endpoint": "--otlp-traces-endpoint",
    "--decode-cuda-graph-backend": "--cuda-graph-backend-decode",
    "--prefill-cuda-graph-backend": "--cuda-graph-backend-prefill",
    "--nsa-prefill": "--dsa-prefill-backend",
    "--nsa-decode": "--dsa-decode-backend",
    "--disable-flashinfer": "--attention-backend",
    "--max-num-reqs": "--max-running-requests",
}


def flags_of(src):
    try:
        t = ast.parse(src)
    except SyntaxError:
        return None
    out = set()
    for n in ast.walk(t):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "add_argument":
            for a in n.args:
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"):
                    out.add(a.value)
        if isinstance(n, ast.ClassDef) and n.name == "ServerArgs":
            for s in n.body:
                ann = getattr(s, "annotation", None)
                if not (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and isinstance(ann, ast.Subscript)
                        and isinstance(ann.value, ast.Name) and ann.value.id == "A"):
                    continue
                meta = ann.slice.elts[1:] if isinstance(ann.slice, ast.Tuple) else []
                cli, aliases, skip = "--" + s.target.id.replace("_", "-"), [], False
                for m in meta:
                    if isinstance(m, ast.Call):
                        for k in m.keywords:
                            try:
                                v = ast.literal_eval(k.value)
                            except Exception:
                                continue
                            cli = v if k.arg == "cli_name" else cli
                            aliases = v if k.arg == "aliases" else aliases
                            skip = skip or (k.arg == "no_cli" and v)
                if not skip:
                    out.add(cli)
                    out.update(aliases)
    return out


def field_attrs(src):
    """attrs (history.py) of the dataclass-generated flags: the literal default."""
    out = {}
    try:
        t = ast.parse(src)
    except SyntaxError:
        return out
    for n in ast.walk(t):
        if isinstance(n, ast.ClassDef) and n.name == "ServerArgs":
            for s in n.body:
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
                    try:
                        v = ast.literal_eval(s.value)
                    except Exception:
                        continue
                    out["--" + s.target.id.replace("_", "-")] = {"default": repr(v) if isinstance(v, str) else v}
    return out


def release_commits():
    """[(version, commit, evidence)]: the first commit on main whose
    version.py names each version, from 0.3.0 on, then COMMIT."""
    vp = "python/sglang/version.py"
    log = subprocess.run(["git", "-C", REPO, "log", "--reverse", "--first-parent", "--format=%H %cs", "-G", "__version__", COMMIT, "--", vp],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    seen, out = set(), []
    for line in log:
        h, date = line.split()
        src = subprocess.run(["git", "-C", REPO, "show", f"{h}:{vp}"], capture_output=True, text=True).stdout
        m = re.search(r"__version__\s*=\s*[\"']([^\"']+)[\"']", src)
        if not m or m.group(1) in seen:
            continue
        seen.add(m.group(1))
        v = m.group(1)
        nums = [int(x) for x in re.findall(r"\d+", v)[:2]]
        if nums < [0, 3]:
            continue
        out.append((v, h, f"first commit on main whose {vp} says {v} ({date}); the release tag itself is not in the mirror"))
    out.append(("main", COMMIT, "sgl-project/sglang main as mirrored by modal-projects/sglang (no release number)"))
    return out


if HISTORY:
    import history
    rels = release_commits()
    snaps = []
    for v, h, _ in rels:
        src = subprocess.run(["git", "-C", REPO, "show", f"{h}:{P}"], capture_output=True, text=True).stdout
        names = flags_of(src) or set()
        attrs = history.add_argument_attrs(src) or {}
        fa = field_attrs(src)
        snap = {}
        for x in names:
            a = dict(fa.get(x, {}))
            a.update(attrs.get(x, {}))
            snap[x] = a
        snaps.append(snap)
    print("# SGLang server flag history: the option strings python/sglang/srt/server_args.py registers at each release, read with the ast module.")
    print(f"# Releases: the first commit on modal-projects/sglang main (a mirror of sgl-project/sglang main, up to {COMMIT}) whose python/sglang/version.py")
    print("# names the version (`git log -G __version__ -- python/sglang/version.py`): the mirror has no tags, so a release is identified with its version-bump")
    print("# commit on main (inferred: a tag cut from a release branch may hold cherry-picks on top). version.py ends at 0.5.6.post2 (setuptools-scm after);")
    print("# 'main' is the table's commit. Rows: kind (release | added | removed | deprecated | undeprecated | type | default | choices), name, the release")
    print("# the change is first seen at, the commit read there, detail (evidence; replacement; old -> new). Generated by gen/extract_removed.py --history.")
    history.diff(rels, snaps, sys.stdout)
    sys.exit(0)

current = set()
for line in open(CURRENT):
    if line.startswith("#") or line.startswith("names\t"):
        continue
    current.update(line.split("\t")[0].split(","))

log = subprocess.run(["git", "-C", REPO, "log", "--reverse", "--format=%H\t%ad\t%s", "--date=short", COMMIT, "--", P],
                     check=True, capture_output=True, text=True).stdout.splitlines()
last = {}
for i, line in enumerate(log):
    h = line.split("\t")[0]
    f = flags_of(subprocess.run(["git", "-C", REPO, "show", f"{h}:{P}"], capture_output=True, text=True).stdout)
    for x in f or ():
        last[x] = i

print("# SGLang server flags that argparse no longer accepts (\"unrecognized arguments\").")
print(f"# Found by walking every commit that touched {P} up to modal-projects/sglang {COMMIT} (sgl-project/sglang main) with the ast module;")
print("# 'commit' is the first commit whose server_args.py no longer registers the flag, 'pr' the upstream PR named in its subject.")
print("# 'instead' is filled only where the removing commit's diff names the replacement (a rename, or the deprecation help text).")
print("flag\tremoved\tpr\tcommit\tinstead\tsubject")
for flag, i in sorted(last.items(), key=lambda kv: (kv[1], kv[0])):
    if flag in current or i + 1 >= len(log):
        continue
    h, date, subject = log[i + 1].split("\t", 2)
    m = re.search(r"\(#(\d+)\)\s*$", subject) or re.search(r"#(\d+)", subject)
    pr = "#" + m.group(1) if m else ""
    print("\t".join([flag, date, pr, h[:12], INSTEAD.get(flag, ""), subject.replace("\t", " ")]))
