"""List SGLang server flags that were once accepted and are gone at COMMIT:
walks every commit that touched python/sglang/srt/server_args.py, reads each
version with the ast module (add_argument option strings, and ServerArgs
fields annotated A[...] without no_cli), and reports, for each option string
missing from the current CLI (CURRENT_TSV), the commit that dropped it.

usage: extract_removed.py REPO COMMIT CURRENT_TSV > sglang_server_removed.tsv
"""
import ast
import re
import subprocess
import sys

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
