#!/usr/bin/env python3
"""Writes a few small valid safetensors files into the directory given as argv[1]."""
import json
import os
import struct
import sys


def write(path, tensors, metadata=None):
    header, data = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, (dtype, shape, payload) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
write(os.path.join(out, "empty.safetensors"), {})
write(os.path.join(out, "one.safetensors"), {"w": ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4))})
write(os.path.join(out, "mixed.safetensors"), {
    "a": ("BF16", [3], b"\x80\x3f" * 3),
    "b": ("I64", [1], struct.pack("<q", -5)),
    "c": ("F8_E4M3", [2, 0], b""),
    "d": ("F4", [3], b"\x12\x03"),
    "e": ("BOOL", [], b"\x01"),
    "f": ("F8_E5M2", [1], b"\x3c"),
}, {"format": "pt"})
write(os.path.join(out, "ints.safetensors"), {
    "i8": ("I8", [2], b"\x01\xff"), "u8": ("U8", [1], b"\x07"),
    "i16": ("I16", [1], b"\x01\x00"), "i32": ("I32", [1], b"\x01\x00\x00\x00"), "f16": ("F16", [1], b"\x00\x3c"),
})
