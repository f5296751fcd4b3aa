"""Host-side encoder of wire records, byte-identical to the firmware's emitter.

Used to synthesize streams (tests, the parser benchmark) and to check that a parsed record
re-encodes to the bytes it came from.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping

from hpx_core.wire.protocol import RECORDS

_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "%*=")


def _value(kind: str, value: int | str | bytes) -> str:
    if kind in ("int", "i32", "i64"):
        assert isinstance(value, int)
        return str(value)
    if kind == "hex32":
        assert isinstance(value, int)
        return f"0x{value:08x}"
    if kind == "bytes":
        assert isinstance(value, bytes)
        return value.hex()
    assert isinstance(value, str)
    return "".join(c if c in _SAFE else "".join(f"%{b:02x}" for b in c.encode()) for c in value)


def encode_record(seq: int, type_: str, fields: Mapping[str, int | str | bytes]) -> bytes:
    """One record line, fields in the protocol's order, with its CRC-32."""
    spec = RECORDS[type_]
    parts = [f"@HPX {seq} {type_}"]
    parts += [f" {f.name}={_value(f.kind, fields[f.name])}" for f in spec.fields]
    body = "".join(parts).encode("ascii")
    return body + f" *{zlib.crc32(body):08x}\n".encode("ascii")
