"""A decoded, checked device stream. Only records that passed every check get here."""

from __future__ import annotations

from collections.abc import Mapping

import attrs


def _int(value: int | str | bytes) -> int:
    assert isinstance(value, int)
    return value


@attrs.frozen
class Record:
    """One checked record: its sequence number, type and typed fields."""

    seq: int
    type: str
    fields: Mapping[str, int | str | bytes]

    def number(self, key: str) -> int:
        value = self.fields[key]
        assert isinstance(value, int)
        return value

    def text(self, key: str) -> str:
        value = self.fields[key]
        assert isinstance(value, str)
        return value


@attrs.frozen
class Capture:
    """Everything the device sent, decoded, plus the raw bytes it came from."""

    raw: bytes
    records: tuple[Record, ...]
    text_lines: tuple[str, ...]

    def of(self, type_: str) -> list[Record]:
        return [r for r in self.records if r.type == type_]

    def first(self, type_: str) -> Record | None:
        found = self.of(type_)
        return found[0] if found else None

    @property
    def start(self) -> Record:
        return self.records[0]

    @property
    def end(self) -> Record:
        return self.records[-1]

    @property
    def status(self) -> int:
        return self.end.number("status")

    @property
    def fault(self) -> Record | None:
        return self.first("FAULT")

    def layer_names(self) -> dict[int, tuple[str, str]]:
        """Layer index -> (name, op) from the LAYERINFO records."""
        return {r.number("idx"): (r.text("name"), r.text("op")) for r in self.of("LAYERINFO")}

    def outputs(self) -> dict[int, bytes]:
        """Output tensors reassembled from their chunks (the parser checked they are whole)."""
        return {_int(k[0]): v for k, v in self._joined("OUTPUT", ("tensor",)).items()}

    def layer_sums(self) -> dict[tuple[int, int], Record]:
        """(layer, output) -> its LAYERSUM record from the check pass."""
        return {(r.number("idx"), r.number("tensor")): r for r in self.of("LAYERSUM")}

    def layer_tensors(self) -> dict[tuple[int, str, int], bytes]:
        """(layer, role, index) -> a tensor the check pass dumped, reassembled."""
        joined = self._joined("TENSOR", ("idx", "role", "tensor"))
        return {(_int(k[0]), str(k[1]), _int(k[2])): v for k, v in joined.items()}

    def files(self) -> dict[str, bytes]:
        """Files the engine sent (FILE chunks up to their FILEEND), reassembled by name."""
        joined = self._joined("FILE", ("name",))
        return {r.text("name"): joined.get((r.text("name"),), b"") for r in self.of("FILEEND")}

    def _joined(self, type_: str, keys: tuple[str, ...]
                ) -> dict[tuple[int | str | bytes, ...], bytes]:
        chunks: dict[tuple[int | str | bytes, ...], dict[int, bytes]] = {}
        for r in self.of(type_):
            value = r.fields["hex"]
            assert isinstance(value, bytes)
            chunks.setdefault(tuple(r.fields[k] for k in keys), {})[r.number("offset")] = value
        return {k: b"".join(parts[o] for o in sorted(parts)) for k, parts in chunks.items()}

    def metrics(self) -> dict[str, int]:
        return {r.text("name"): r.number("value") for r in self.of("METRIC")}
