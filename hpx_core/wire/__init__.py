"""The device-to-host wire protocol: vocabulary, streaming parser, decoded capture."""

from hpx_core.wire.capture import Capture, Record
from hpx_core.wire.encode import encode_record
from hpx_core.wire.errors import StreamError
from hpx_core.wire.parser import WireParser, parse_capture
from hpx_core.wire.protocol import RECORDS, VERSION

__all__ = [
    "RECORDS",
    "VERSION",
    "Capture",
    "Record",
    "StreamError",
    "WireParser",
    "encode_record",
    "parse_capture",
]
