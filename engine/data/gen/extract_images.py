#!/usr/bin/env python3
"""Write images.tsv: what each listed container image runs by default.

    python3 extract_images.py images_inputs.tsv OWNER/NAME=GITDIR ... > ../images.tsv

For every line of the inputs file the Dockerfile is read with `git show
COMMIT:PATH` from a git directory holding that repository's history (a clone
or a mirror; several may be given for one repository, e.g. forks that carry
its release tags). Nothing is built or run: the Dockerfile text is parsed for
its FROM/ENTRYPOINT/CMD instructions and the named build stage's ENTRYPOINT
and CMD are written out, with the commit as the row's source.

A release tag is resolved in every git directory given for the repository;
they must agree, unless the inputs pin the commit (TAG=COMMIT), in which case
the pinned commit must be what at least one of them says.

An inferred row (ref A..B) is for a release tag no git directory carries:
the stage's ENTRYPOINT and CMD are read at A and at every commit from A to B
that touches the Dockerfile, and must be the same at all of them. Its
evidence column (REPO@REF, a tag or commit in a git directory given for
REPO, or URL DATE) dates the release: the date must not be later than B's
commit date, so the release cannot hold a commit of main after B. That the
release's branch was cut from main after A is the release order (a later
release is cut from a later main); see README.md.

A held row (ref COMMIT@OWNER/NAME:REF) is for a release tag no git directory
carries whose commit public sources name: the commit must be REF or an
ancestor of REF in a git directory given for OWNER/NAME (a fork branch that
holds the release branch), and is read there; its evidence column says who
names the commit the release (the same commits as vllm_releases.tsv).
"""

import json
import re
import subprocess
import sys
import time

HEX40 = re.compile(r"^[0-9a-f]{40}$")
RANGE = re.compile(r"^([0-9a-f]{40})\.\.([0-9a-f]{40})$")
HELD = re.compile(r"^([0-9a-f]{40})@([\w.-]+/[\w.-]+):(\S+)$")
URLDATE = re.compile(r"^(https://\S+) ([0-9]{4}-[0-9]{2}-[0-9]{2})$")
FROM = re.compile(r"^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?\s*$", re.I)
HEREDOC = re.compile(r"<<-?[\"']?([A-Za-z_][A-Za-z0-9_]*)[\"']?")
LAUNCHERS = ("vllm", "sglang")


def git(gitdir, *args):
    r = subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, text=True)
    return r.returncode, r.stdout


def resolve(gitdirs, ref):
    """Returns (commit, gitdir) for a tag, TAG=COMMIT or a commit."""
    tag, _, pinned = ref.partition("=")
    if HEX40.match(tag):
        for g in gitdirs:
            if git(g, "cat-file", "-e", tag + "^{commit}")[0] == 0:
                return tag, g
        sys.exit(f"commit {tag} is in none of {gitdirs}")
    seen = {}
    for g in gitdirs:
        rc, out = git(g, "rev-parse", "-q", "--verify", f"refs/tags/{tag}^{{commit}}")
        if rc == 0:
            seen.setdefault(out.strip(), g)
    if not seen:
        sys.exit(f"tag {tag} is in none of {gitdirs}")
    if pinned:
        if pinned not in seen:
            sys.exit(f"tag {tag}: pinned {pinned} is not what any mirror says ({sorted(seen)})")
        return pinned, seen[pinned]
    if len(seen) > 1:
        sys.exit(f"tag {tag}: mirrors disagree ({sorted(seen)}); pin one as TAG=COMMIT")
    return next(iter(seen.items()))


def logical_lines(text):
    """Dockerfile lines with continuations joined, comment lines and heredoc
    bodies dropped (a comment line inside a continued instruction is dropped
    too, as BuildKit does)."""
    out, cur, heredocs = [], None, []
    for raw in text.splitlines():
        s = raw.strip()
        if heredocs:  # a heredoc body (BuildKit `RUN <<EOF`) holds no instructions
            if s == heredocs[0]:
                heredocs.pop(0)
            continue
        if s.startswith("#") or (not s and cur is None):
            continue
        part = s[:-1] if s.endswith("\\") else s
        cur = part if cur is None else cur + " " + part
        if not s.endswith("\\"):
            out.append(cur.strip())
            heredocs = HEREDOC.findall(cur)
            cur = None
    if cur:
        out.append(cur.strip())
    return out


def argv(rest):
    """Exec form (a JSON list) as is; shell form runs under /bin/sh -c."""
    if rest.startswith("["):
        try:
            v = json.loads(rest)
        except json.JSONDecodeError:
            v = None
        if isinstance(v, list) and all(isinstance(w, str) for w in v):
            return v
    return ["/bin/sh", "-c", rest]


def stage_argv(text, want):
    """ENTRYPOINT and CMD of stage `want` ("" = the last stage). A stage
    built FROM an earlier stage inherits its values; one built FROM an
    outside image starts with none (what that image sets is not in this
    Dockerfile: the row records only what the Dockerfile sets). Setting
    ENTRYPOINT clears an inherited CMD (Dockerfile reference, ENTRYPOINT)."""
    stages, cur = {}, None
    order = []
    for line in logical_lines(text):
        word, _, rest = line.partition(" ")
        word, rest = word.upper(), rest.strip()
        if word == "FROM":
            m = FROM.match(line)
            if not m:
                sys.exit(f"unparsed FROM: {line}")
            base = stages.get(m.group(1).lower())
            cur = {"entry": None, "cmd": None} if base is None else dict(base)
            name = (m.group(2) or f"#{len(order)}").lower()
            stages[name] = cur
            order.append(name)
        elif word == "ENTRYPOINT" and cur is not None:
            cur["entry"], cur["cmd"] = argv(rest), None
        elif word == "CMD" and cur is not None:
            cur["cmd"] = argv(rest)
    name = want.lower() if want else (order[-1] if order else None)
    if name not in stages:
        sys.exit(f"no stage {want!r} (stages: {order})")
    st = stages[name]
    return st["entry"] or [], st["cmd"] or []


def check_engine(engine, entry, cmd, where):
    """The engine column is a judgement written in the inputs; hold it to
    the argv read from the Dockerfile so a changed entrypoint cannot pass
    unnoticed."""
    words = entry + cmd
    starts = (words[:2] == ["vllm", "serve"]
              or "vllm.entrypoints.openai.api_server" in words)
    if engine == "vllm" and not starts:
        sys.exit(f"{where}: engine vllm but the image runs {words}")
    if engine == "" and any(w.split("/")[-1] in LAUNCHERS or w.startswith(("vllm.", "sglang.")) for w in words):
        sys.exit(f"{where}: engine empty but the image runs {words}")
    if engine not in ("", "vllm", "sglang"):
        sys.exit(f"{where}: unknown engine {engine!r}")


def commit_date(gitdir, ref):
    """Committer date of a commit, or tagger date of an annotated tag, as
    an ISO date in UTC."""
    rc, out = git(gitdir, "for-each-ref", "--format=%(objecttype) %(taggerdate:unix)", f"refs/tags/{ref}")
    if rc == 0 and out.startswith("tag "):
        ts = int(out.split()[1])
    else:
        rc, out = git(gitdir, "log", "-1", "--format=%ct", f"{ref}^{{commit}}")
        if rc != 0 or not out.strip():
            return None
        ts = int(out.strip())
    return time.strftime("%Y-%m-%d", time.gmtime(ts))


def inferred(gitdirs, mirrors, a, b, path, stage, evidence, where):
    """Checks an inferred row: the stage argv is the same at A and every
    commit A..B touching path, and the evidence dates the release no later
    than B. Returns (entry, cmd, text for the source column)."""
    g = next((g for g in gitdirs if git(g, "merge-base", "--is-ancestor", a, b)[0] == 0), None)
    if g is None:
        sys.exit(f"{where}: {a} is not an ancestor of {b} in any of {gitdirs}")
    rc, out = git(g, "rev-list", f"{a}..{b}", "--", path)
    if rc != 0:
        sys.exit(f"{where}: rev-list {a}..{b} failed")
    want = None
    for c in [a] + out.split():
        rc, text = git(g, "show", f"{c}:{path}")
        if rc != 0:
            sys.exit(f"{where}: {path} is not at {c}")
        got = stage_argv(text, stage)
        if want is None:
            want = got
        elif got != want:
            sys.exit(f"{where}: stage {stage!r} runs {got} at {c}, {want} at {a}")
    bdate = commit_date(g, b)
    m = URLDATE.match(evidence)
    if m:
        date, said = m.group(2), f"{m.group(1)} ({m.group(2)})"
    else:
        repo, _, ref = evidence.partition("@")
        if repo not in mirrors or not ref:
            sys.exit(f"{where}: evidence {evidence!r}: want REPO@REF with a git directory for REPO, or URL DATE")
        date = next((d for d in (commit_date(e, ref) for e in mirrors[repo]) if d), None)
        if date is None:
            sys.exit(f"{where}: evidence {evidence!r} is in none of {mirrors[repo]}")
        said = f"{evidence} ({date})"
    if date > bdate:
        sys.exit(f"{where}: evidence dated {date}, after {b} ({bdate})")
    return want[0], want[1], f"unchanged to {bdate}; release dated by {said}"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mirrors = {}
    for a in sys.argv[2:]:
        repo, _, g = a.partition("=")
        mirrors.setdefault(repo, []).append(g)
    out = ["# Generated by gen/extract_images.py from gen/images_inputs.tsv; do not edit by hand.",
           "# Each row's source is repo@commit:path of the Dockerfile read, or for a release tag no",
           "# mirror carries \"inferred: repo@A..B:path ...\" (see gen/README.md, \"Inferred rows\").",
           "repository\ttags\tengine\tentrypoint\tcmd\trelease\tfloating\tsource"]
    header = True
    with open(sys.argv[1], encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if header:
                header = False
                continue
            fields = line.split("\t")
            if len(fields) != 10:
                sys.exit(f"inputs:{n}: {len(fields)} fields, want 10")
            image, tags, engine, release, floating, repo, ref, path, stage, evidence = fields
            if repo not in mirrors:
                sys.exit(f"inputs:{n}: no git directory given for {repo}")
            rng, held = RANGE.match(ref), HELD.match(ref)
            if held:
                commit, owner, branch = held.groups()
                if not evidence or not release:
                    sys.exit(f"inputs:{n}: a held row needs a release and evidence")
                if owner not in mirrors:
                    sys.exit(f"inputs:{n}: no git directory given for {owner}")
                g = next((g for g in mirrors[owner] if git(g, "merge-base", "--is-ancestor", commit, branch)[0] == 0), None)
                if g is None:
                    sys.exit(f"inputs:{n}: {commit} is not {branch} nor an ancestor of it in {mirrors[owner]}")
                rc, text = git(g, "show", f"{commit}:{path}")
                if rc != 0:
                    sys.exit(f"inputs:{n}: {path} is not at {commit}")
                entry, cmd = stage_argv(text, stage)
                source = f"{repo}@{commit}:{path} (no tag here; held by {owner} {branch}; {evidence})"
            elif rng:
                if not evidence or not release:
                    sys.exit(f"inputs:{n}: an inferred row needs a release and evidence")
                entry, cmd, why = inferred(mirrors[repo], mirrors, rng.group(1), rng.group(2),
                                           path, stage, evidence, f"inputs:{n}")
                source = f"inferred: {repo}@{ref}:{path} {why}"
            else:
                if evidence:
                    sys.exit(f"inputs:{n}: evidence is for inferred (A..B) and held rows only")
                commit, g = resolve(mirrors[repo], ref)
                rc, text = git(g, "show", f"{commit}:{path}")
                if rc != 0:
                    sys.exit(f"inputs:{n}: {path} is not at {commit}")
                entry, cmd = stage_argv(text, stage)
                source = f"{repo}@{commit}:{path}"
            check_engine(engine, entry, cmd, f"inputs:{n}")
            for t in tags.split(","):
                out.append("\t".join([image, t, engine, json.dumps(entry, separators=(",", ":")),
                                      json.dumps(cmd, separators=(",", ":")), release, floating, source]))
    print("\n".join(out))


if __name__ == "__main__":
    main()
