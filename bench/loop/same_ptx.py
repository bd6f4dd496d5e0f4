#!/usr/bin/env python3
"""Whether a candidate still compiles to the PTX the loop measured, kernel by kernel.

    python3 bench/loop/same_ptx.py COMMIT operators/D/loop/candidates/NAME [MORE...]

For each candidate folder, compiles its kernel.cu to PTX for sm_90a twice with nvcc: from
the operator's folder at COMMIT (git archive) and from the working tree, with the
operator's folder and include/ on the include path. Then compares every kernel of the old
PTX with the new one of the same name (a bool template argument added since, such as
`Lb0E`, is allowed), with the mangled names, branch labels and virtual register numbers
renumbered in order of appearance: the same instructions on the same operands. Exit 0 when
every old kernel has its twin, 1 when one has none, 77 (CTest's skip) without nvcc or without
COMMIT in the repository's history (a shallow clone). Use it after moving a promoted
candidate's code into shared headers: what ships must be what the loop measured.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


DECLARATION = re.compile(
    r"^[ \t]*((?:\.(?:extern|visible|weak) )*\.(?:shared|global|const) (?:\.align \d+ )?\.\w+) ([\w$]+)"
    r"((?:\[\d*\])*(?:\s*=\s*\{[^;]*\})?);", re.M)  # with any initialiser: a table's values count


def declarations(ptx: str) -> dict:
    return {m.group(2): "<" + re.sub(r"\s+", " ", m.group(1) + m.group(3)) + ">" for m in DECLARATION.finditer(ptx)}


def entry_body(ptx: str, start: int) -> str:
    """The kernel from `.entry` at start to the brace that closes its body. An inline asm block
    (`{ .reg ...; ... }`, as mbarrier waits are written) opens and closes braces of its own on lines
    of their own inside the body, so the body ends where the depth returns to zero, not at the first
    line that is a lone `}`."""
    depth, at = 0, start
    for line in ptx[start:].splitlines(keepends=True):
        at += len(line)
        if line.strip() == "{":
            depth += 1
        elif line.strip() == "}":
            depth -= 1
            if depth == 0:
                break
    return ptx[start:at]


def kernels(ptx: str) -> dict:
    """Each kernel's body, with every variable it names (shared memory, static or dynamic, and
    globals) replaced by its declaration: state space, alignment, type and size belong to the
    kernel whether PTX declares them outside it (module scope) or inside it (a "demoted" one, as
    ptxas does when one kernel alone uses it; a second kernel sharing the device function that
    declares it moves it to module scope without changing the memory)."""
    module = declarations(ptx)
    out = {}
    for m in re.finditer(r"\.entry (\S+)\(", ptx):
        body = entry_body(ptx, m.start())
        decls = {**module, **declarations(body)}
        body = re.sub(r"^[ \t]*// demoted variable\n", "", DECLARATION.sub("", body), flags=re.M)
        for name in (n for n in decls if n in body):
            body = re.sub(rf"(?<![\w$]){re.escape(name)}(?![\w$])", decls[name], body)
        out[m.group(1)] = re.sub(r"\n\s*\n", "\n", body)
    return out


def canonical(body: str) -> str:
    body = re.sub(r"_Z\w+", "NAME", body)
    body = re.sub(r"\$L__BB\d+_", "$L__BB_", body)
    body = re.sub(r"__local_depot\d+", "__local_depot", body)  # numbered by the kernel's place in the file
    seen: dict = {}

    def rename(m):
        reg = m.group(0)
        kind = re.match(r"%[a-z]+", reg).group(0)
        names = seen.setdefault(kind, {})
        return names.setdefault(reg, f"{kind}{len(names)}")

    body = re.sub(r"%(rd|rs|fd|r|f|p|hh|h)\d+", rename, body)
    return re.sub(r"\.reg .*;", "", body)


def plain(name: str) -> str:
    """A kernel's mangled name without its namespace: code moved from a candidate's anonymous
    namespace (whose name carries a hash of the file's path) into a shared header's named one is
    still the same kernel. Only the first component after `_ZN` goes; substitutions that refer
    back to it (`S_`) keep their meaning, since it is one component either way."""
    m = re.match(r"_ZN(\d+)", name)
    if m:
        rest = name[m.end() + int(m.group(1)):]
        if rest[:1].isdigit():
            return "_ZN" + "NS" + rest
    return name


def unflagged(name: str) -> str:
    """plain(name) without its bool template arguments (`Lb0E`, `Lb1E`): a flag added since (with
    its old behaviour as default) keeps the kernel; the bodies tell the variants apart."""
    return re.sub(r"Lb[01]E", "", plain(name))


def base_name(name: str) -> str:
    """The kernel's own name in a mangled one, without namespace, template arguments or parameters:
    a kernel that became a template (a flag added, the old code its false branch) mangles its
    parameters with shifted substitution numbers, so only this still pairs it with its old self."""
    m = re.match(r"_ZN?", name)
    at, last = (m.end() if m else 0), name
    while at < len(name) and name[at].isdigit():
        digits = re.match(r"\d+", name[at:]).group(0)
        start = at + len(digits)
        last, at = name[start:start + int(digits)], start + int(digits)
        if not name.startswith("_ZN"):
            break
    return last


def nvcc() -> str:
    return shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else "")


def ptx(kernel_cu: Path, operator: Path, out: Path) -> str:
    subprocess.run([nvcc(), "-std=c++17", "-O2", "-arch=sm_90a", "-ptx", "-I", str(REPO / "include"), "-I",
                    str(operator), "-o", str(out), str(kernel_cu)], check=True)
    return out.read_text()


def compare(commit: str, candidate: Path, tmp: Path) -> list:
    candidate = candidate.resolve()
    operator = candidate.parents[2]
    rel = operator.relative_to(REPO)
    old_root = tmp / "old"
    old_root.mkdir(exist_ok=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, str(rel)], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "x", "-C", str(old_root)], input=archive, check=True)
    old_operator = old_root / rel
    old = kernels(ptx(old_operator / candidate.relative_to(operator) / "kernel.cu", old_operator, tmp / "old.ptx"))
    new = kernels(ptx(candidate / "kernel.cu", operator, tmp / "new.ptx"))
    missing = []
    for name, body in old.items():
        twins = [n for n in new if unflagged(n) == unflagged(name)] or \
            [n for n in new if base_name(n) == base_name(name)]
        if not any(canonical(new[n]) == canonical(body) for n in twins):
            missing.append(name)
    print(f"{candidate.name}: {len(old) - len(missing)} of {len(old)} kernels the same PTX as at {commit}")
    for name in missing:
        print(f"  differs or missing: {name}")
    return missing


def main() -> int:
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2
    if not nvcc():
        print("same_ptx.py: no nvcc (PATH or /usr/local/cuda/bin): skipped")
        return 77
    known = subprocess.run(["git", "-C", str(REPO), "cat-file", "-e", f"{sys.argv[1]}^{{commit}}"],
                           capture_output=True)
    if known.returncode != 0:
        print(f"same_ptx.py: commit {sys.argv[1]} is not in this clone's history: skipped")
        return 77
    failed = False
    for folder in sys.argv[2:]:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                failed |= bool(compare(sys.argv[1], Path(folder), Path(tmp)))
            except (subprocess.CalledProcessError, FileNotFoundError, ValueError) as e:
                print(f"{folder}: {e}", file=sys.stderr)
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
