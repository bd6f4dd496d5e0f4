"""kharness's side of a Python or Triton solution inside the measurement worker.

The worker embeds CPython and drives solutions through this module; the timing, the
cache flush, the poisoning and the input hashes stay in C++, around Call.run(). The
worker hands over its own tensors as DLPack capsules (no copy): inputs, then the
output slots it poisoned. A destination-passing solution writes those; a
value-returning one returns its outputs, which are checked and copied into them, and
the copy is part of the timed call.
"""

import importlib
import json
import os
import site
import sys
import traceback

_SHAPE = "INCORRECT_SHAPE"
_DTYPE = "INCORRECT_DTYPE"
_RUNTIME = "RUNTIME_ERROR"


def configure(settings_json):
    """Gives the embedded interpreter the module path of the Python it came from."""
    settings = json.loads(settings_json)
    sys.path[:] = list(settings["path"])
    for directory in settings["site"]:
        if os.path.isdir(directory):
            site.addsitedir(directory)  # runs the .pth files a venv relies on
    sys.executable = settings["executable"]
    sys.prefix = settings["prefix"]
    sys.exec_prefix = settings["exec_prefix"]
    sys.argv = [""]  # an embedded interpreter has none; some libraries read it
    # Triton's compiled kernels go to the worker's own scratch folder (its cwd), not a
    # cache shared with other solutions, which one solution could plant kernels in.
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(os.getcwd(), "triton_cache"))


class _Failure(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _failure_text(skip_frames):
    """The current exception's traceback, without the driver's own frames."""
    kind, value, tb = sys.exc_info()
    for _ in range(skip_frames):
        if tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
    return "".join(traceback.format_exception(kind, value, tb))


def _torch_dtypes(torch):
    names = {
        "float32": "float32", "float16": "float16", "bfloat16": "bfloat16",
        "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
        "float4_e2m1": "float4_e2m1fn_x2", "int64": "int64", "int32": "int32",
        "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool",
    }
    return {ours: getattr(torch, theirs, None) for ours, theirs in names.items()}


class Solution:
    """An imported solution. `unavailable` (the environment lacks torch) and `rejected`
    (the solution's own import or entry failed) say why it cannot run; both are empty
    when it can."""

    def __init__(self, spec_json):
        spec = json.loads(spec_json)
        self.unavailable = ""
        self.rejected = ""
        try:
            import torch
        except BaseException:
            self.unavailable = ("Python solutions and PyTorch references need torch, which this "
                                "Python (%s) cannot import:\n%s" % (sys.executable, _failure_text(0)))
            return
        self.torch = torch
        self.params = spec["params"]
        self.output_names = [p["name"] for p in self.params if p["role"] == "output"]
        self.input_count = len(self.params) - len(self.output_names)
        self.dps = spec["destination_passing"]
        dtypes = _torch_dtypes(torch)
        self.dtypes = [dtypes.get(p["dtype"]) for p in self.params]
        self.cuda = spec["device_type"] == "cuda"
        self.stream = None
        self.stream_pointer = None
        if self.cuda:
            torch.cuda.set_device(spec["device_index"])
        torch.set_grad_enabled(False)  # as upstream runs solutions: under no_grad
        root = spec["root"]
        if root not in sys.path:
            sys.path.insert(0, root)
        name = spec["package"] + "." + spec["module"]
        try:
            module = importlib.import_module(name)
        except BaseException:
            self.rejected = "importing the solution's module '%s' failed:\n%s" % (
                spec["module"], _failure_text(1))
            return
        self.function = getattr(module, spec["function"], None)
        if not callable(self.function):
            self.rejected = "module '%s' has no function '%s'" % (spec["module"], spec["function"])

    def _use_stream(self, pointer):
        """Makes the harness's stream torch's current one, so that torch and Triton
        launches are ordered after the harness's preparation, as native kernels are."""
        if not self.cuda:
            return
        torch = self.torch
        if self.stream_pointer != pointer:
            self.stream = torch.cuda.ExternalStream(pointer) if pointer else torch.cuda.default_stream()
            self.stream_pointer = pointer
        if torch.cuda.current_stream().cuda_stream != self.stream.cuda_stream:
            torch.cuda.set_stream(self.stream)

    def prepare(self, args, stream_pointer):
        """Wraps one call's arguments (capsules and numbers, ABI order) as tensors."""
        try:
            self._use_stream(stream_pointer)
            values = []
            for value, param, dtype in zip(args, self.params, self.dtypes):
                if param["role"] != "scalar":
                    value = self.torch.from_dlpack(value)
                    if dtype is not None and value.dtype != dtype:
                        value = value.view(dtype)  # fp8, fp4 and bool travel as bytes
                values.append(value)
            return Call(self, values[:self.input_count], values[self.input_count:])
        except BaseException:
            return _Broken("cannot hand the arguments to the solution:\n" + _failure_text(0))

    def store(self, result, outputs):
        """Checks a value-returning solution's result and copies it into the outputs."""
        torch = self.torch
        if isinstance(result, list):
            result = tuple(result)
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) != len(outputs):
            raise _Failure(_RUNTIME, "the solution returned %d value(s); the definition has %d output(s): %s"
                           % (len(result), len(outputs), ", ".join(self.output_names)))
        values = []
        for value, out, name in zip(result, outputs, self.output_names):
            if not isinstance(value, torch.Tensor):
                try:
                    value = torch.tensor(value, dtype=out.dtype, device=out.device)
                except BaseException:
                    raise _Failure(_RUNTIME, "output '%s': returned %s, not a tensor"
                                   % (name, type(value).__name__))
            if tuple(value.shape) != tuple(out.shape):
                raise _Failure(_SHAPE, "output '%s' has shape %s; the definition needs %s"
                               % (name, list(value.shape), list(out.shape)))
            if value.dtype != out.dtype:
                raise _Failure(_DTYPE, "output '%s' has dtype %s; the definition needs %s"
                               % (name, value.dtype, out.dtype))
            values.append(value)
        for value, out in zip(values, outputs):
            out.copy_(value)


class Call:
    """One prepared call; run() is what the worker times."""

    __slots__ = ("solution", "function", "inputs", "outputs")

    def __init__(self, solution, inputs, outputs):
        self.solution = solution
        self.function = solution.function
        self.inputs = inputs
        self.outputs = outputs

    def run(self):
        """'' when the call succeeded, else 'STATUS\\nwhy'."""
        try:
            if self.solution.dps:
                self.function(*self.inputs, *self.outputs)
            else:
                self.solution.store(self.function(*self.inputs), self.outputs)
            return ""
        except _Failure as failure:
            return "%s\n%s" % (failure.status, failure)
        except BaseException:
            return "%s\n%s" % (_RUNTIME, _failure_text(1))


class _Broken:
    """A call whose arguments could not be converted: it fails when run."""

    def __init__(self, message):
        self.message = message

    def run(self):
        return "%s\n%s" % (_RUNTIME, self.message)


def open_solution(spec_json):
    return Solution(spec_json)
