#!/usr/bin/env python3
"""Builds FlashInfer 0.6.4 JIT modules ahead of time on a machine without torch or a GPU.

    python3 bench/loop/flashinfer/build_aot.py WHEELS_DIR AOT_DIR MODULE... [--jobs N]

MODULE is gdn_prefill_sm90 or fused_moe_90. Each goes to AOT_DIR/<module>/<module>.so, the
layout of FlashInfer's AOT folder (flashinfer/data/aot): a module found there is loaded as it
is, without building (JitSpec.build_and_load, `is_aot`). run.sh copies it there when given
FI_AOT_DIR=AOT_DIR. Why: the device's JIT build of gdn_prefill_sm90 (34 CUTLASS files) takes
longer than a device call can spare, and the cache does not survive a fresh machine.

The ninja file is FlashInfer's own (jit.gdn / jit.fused_moe generators, same sources, same
flags, sm_90a), written with torch and tvm_ffi's compiled core replaced by the few constants
the generator reads (torch 2.11's C++11 ABI flag and CUDA 13.0, the device's). Only nvcc
13.0, ninja and the wheels of prepare.sh are needed. Progress: ninja's [k/n] lines.
"""
import argparse
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import textwrap
import types
import zipfile

GENERATORS = {
    "gdn_prefill_sm90": ("flashinfer.jit.gdn", "gen_gdn_prefill_sm90_module"),
    "fused_moe_90": ("flashinfer.jit.fused_moe", "gen_cutlass_fused_moe_sm90_module"),
}

# Read by FlashInfer's JIT generator from torch; the values are the device's torch 2.11+cu130.
TORCH_STANDIN = textwrap.dedent('''
    import types
    from unittest import mock
    _C = types.SimpleNamespace(_GLIBCXX_USE_CXX11_ABI=True)
    version = types.SimpleNamespace(cuda="13.0")
    __version__ = "2.11.0+cu130"
    def __getattr__(name):  # dtypes and decorators that modules touch at import; never called here
        return mock.MagicMock(name=f"torch.{name}")
''')


def unpack(wheels, site):
    for wheel in sorted(pathlib.Path(wheels).glob("*.whl")):
        with zipfile.ZipFile(wheel) as z:
            z.extractall(site)


def import_generators(site, standins):
    """FlashInfer's jit package with the torch stand-in and tvm_ffi's libinfo alone."""
    (standins / "torch").mkdir(parents=True, exist_ok=True)
    (standins / "torch" / "__init__.py").write_text(TORCH_STANDIN)
    sys.path[:0] = [str(standins), str(site)]
    tvm_ffi = types.ModuleType("tvm_ffi")
    tvm_ffi.__path__ = [str(site / "tvm_ffi")]
    sys.modules["tvm_ffi"] = tvm_ffi
    spec = importlib.util.spec_from_file_location("tvm_ffi.libinfo", site / "tvm_ffi" / "libinfo.py")
    libinfo = importlib.util.module_from_spec(spec)
    sys.modules["tvm_ffi.libinfo"] = libinfo
    spec.loader.exec_module(libinfo)
    tvm_ffi.libinfo = libinfo
    flashinfer = types.ModuleType("flashinfer")  # without its __init__, which imports torch for real
    flashinfer.__path__ = [str(site / "flashinfer")]
    sys.modules["flashinfer"] = flashinfer


def build(name, jobs, aot_dir, dry_run):
    module, function = GENERATORS[name]
    spec = getattr(importlib.import_module(module), function)()
    spec.write_ninja()
    print(f"{name}: {len(spec.sources)} sources, {spec.ninja_path}", flush=True)
    if dry_run:
        return
    subprocess.run(["ninja", "-C", str(spec.build_dir), "-f", str(spec.ninja_path), f"-j{jobs}"], check=True)
    dest = aot_dir / name
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(spec.jit_library_path, dest / f"{name}.so")
    print(f"{name}: {dest / (name + '.so')} ({(dest / (name + '.so')).stat().st_size >> 20} MiB)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wheels", help="the folder of prepare.sh's wheels")
    parser.add_argument("aot_dir", help="where <module>/<module>.so go")
    parser.add_argument("modules", nargs="+", choices=sorted(GENERATORS))
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="ninja -j (default: every core)")
    parser.add_argument("--dry-run", action="store_true", help="write the ninja files only")
    parser.add_argument("--work", help="where the wheels unpack and the objects build (default: a temporary folder; "
                        "give one to resume an interrupted build)")
    args = parser.parse_args()
    if shutil.which("nvcc") is None and not pathlib.Path("/usr/local/cuda/bin/nvcc").exists():
        sys.exit("build_aot.py: nvcc not found (CUDA_HOME or /usr/local/cuda)")
    missing = [m for m in ("jinja2", "filelock", "packaging") if importlib.util.find_spec(m) is None]
    if missing:
        sys.exit(f"build_aot.py: FlashInfer's generators need {', '.join(missing)} (pip install, or Debian's "
                 f"python3-{' python3-'.join(missing)})")
    if shutil.which("ninja") is None:
        sys.exit("build_aot.py: ninja not found on PATH (apt-get install ninja-build)")
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="kh_fi_aot_")).resolve()
    site = work / "site"
    if not (site / "flashinfer").exists():
        unpack(args.wheels, site)
    os.environ["FLASHINFER_WORKSPACE_BASE"] = str(work / "cache")
    os.environ.setdefault("FLASHINFER_CUDA_ARCH_LIST", "9.0a")
    os.environ.setdefault("CUDA_HOME", "/usr/local/cuda")
    import_generators(site, work / "standins")
    for name in args.modules:
        build(name, args.jobs, pathlib.Path(args.aot_dir).resolve(), args.dry_run)


if __name__ == "__main__":
    main()
